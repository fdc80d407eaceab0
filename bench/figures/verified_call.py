"""Figure 11: a side-effecting call on a server that verifies Gatehouse's grants, against the
same bare call on the same server that does not. Two processes of the bundled e-mail server
over stdio, one configured with a public key (gatehouse_verify/), one without; each call on an
open SDK session, timed inside its event loop. The verified call includes making its grant
(Ed25519 signing, the argument digest) as Gatehouse does right before sending, and the server's
check (signature, digest, expiry, nonce)."""

from __future__ import annotations

import statistics
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from mcp import Client, StdioServerParameters

from bench.report import Figure, Target, listed, summary_ms
from bench.workspace import Workspace
from gatehouse_verify import META_KEY
from gatehouse_verify.grant import Why, public_key_text, sign_grant
from gatehouse_verify.keys import KEYS_ENV

SECTION = "11 verified call"
CALLS = 1000
WARMUP = 50
ROUNDS = 5
RATIO_TARGET = 1.1
ROOT = Path(__file__).resolve().parents[2]
MESSAGE = {"to": "bob@example.com", "body": "the benchmark's message"}


def _server(data: Path, env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "servers.email", "--data-dir", str(data)],
        env=env,
        cwd=str(ROOT),
    )


def run(space: Workspace) -> list[Figure]:
    return anyio.run(_measure, space.root)


async def _measure(root: Path) -> list[Figure]:
    key = Ed25519PrivateKey.generate()
    why = Why.review("bench-review", "reviewer")

    async def bare_call(client: Client) -> float:
        began = time.perf_counter()
        await client.call_tool("send_email", MESSAGE)
        return time.perf_counter() - began

    async def verified_call(client: Client) -> float:
        began = time.perf_counter()
        grant = sign_grant(
            key,
            why=why,
            server="email",
            tool="send_email",
            arguments=MESSAGE,
            policy_version=1,
            issued_at=int(time.time()),
            lifetime_seconds=120,
        )
        result = await client.call_tool("send_email", MESSAGE, meta={META_KEY: grant})  # type: ignore[arg-type]
        if result.is_error:
            raise RuntimeError(f"the verifying server refused a valid grant: {result.content}")
        return time.perf_counter() - began

    async with AsyncExitStack() as stack:
        bare = await stack.enter_async_context(Client(_server(root / "bare", {})))
        verifying = await stack.enter_async_context(
            Client(_server(root / "verifying", {KEYS_ENV: public_key_text(key.public_key())}))
        )
        for _ in range(WARMUP):
            await bare_call(bare)
            await verified_call(verifying)
        bare_samples: list[float] = []
        verified_samples: list[float] = []
        ratios: list[float] = []
        for _ in range(ROUNDS):
            bare_round: list[float] = []
            verified_round: list[float] = []
            # Interleaved, so a burst of load on this shared machine hits both sides alike.
            for _ in range(CALLS // ROUNDS):
                bare_round.append(await bare_call(bare))
                verified_round.append(await verified_call(verifying))
            ratios.append(statistics.median(verified_round) / statistics.median(bare_round))
            bare_samples += bare_round
            verified_samples += verified_round
    return _figures(summary_ms(bare_samples), summary_ms(verified_samples), ratios)


def _figures(bare: dict[str, float], verified: dict[str, float], ratios: list[float]) -> list[Figure]:
    added_us = (verified["median_ms"] - bare["median_ms"]) * 1000
    return [
        Figure(
            SECTION,
            "bare call_tool median (server not verifying)",
            bare["median_ms"],
            "ms",
            None,
            f"{CALLS} calls after {WARMUP} warm-up, send_email on the e-mail server without keys",
            bare,
        ),
        Figure(
            SECTION,
            "verified call median (grant signed, checked)",
            verified["median_ms"],
            "ms",
            None,
            f"the same calls, each with a fresh grant, on the e-mail server with a key: {added_us:.0f} µs more",
            verified,
        ),
        Figure(
            SECTION,
            "verified / bare",
            statistics.median(ratios),
            "x",
            Target("<=", RATIO_TARGET),
            f"median of {ROUNDS} rounds, each its own medians' ratio ({listed(ratios)})",
            {"rounds": ratios},
        ),
    ]
