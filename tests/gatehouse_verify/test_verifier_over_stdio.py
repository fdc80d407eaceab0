"""A bundled server that verifies, over stdio, refuses every side-effecting call that does not
carry a valid Gatehouse grant for exactly that call, and runs the one that does, once."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from mcp import Client, MCPError, StdioServerParameters

from gatehouse.approval_keys import (
    load_signing_keys,
    public_keys_path,
    retire_previous_keys,
    rotate_signing_key,
)
from gatehouse_verify import META_KEY
from gatehouse_verify.grant import Why, public_key_text, sign_grant
from gatehouse_verify.keys import KEYS_ENV, KEYS_FILE_ENV
from tests.mcp_host.helpers import REPO_ROOT

# Starts processes of its own (servers over stdio): not in `make quick`.
pytestmark = [pytest.mark.processes, pytest.mark.anyio]

MESSAGE = {"to": "bob@example.com", "body": "hi"}


@asynccontextmanager
async def email_server(data_dir: Path, env: dict[str, str]) -> AsyncIterator[Client]:
    """The bundled e-mail server as its own process, configured by ``env``."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "servers.email", "--data-dir", str(data_dir)],
        env=env,
        cwd=str(REPO_ROOT),
    )
    with anyio.fail_after(60):
        async with Client(params) as client:
            yield client


def grant(key: Ed25519PrivateKey, arguments: dict[str, Any], **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "why": Why.review("r-1", "reviewer"),
        "server": "email",
        "tool": "send_email",
        "arguments": arguments,
        "policy_version": 1,
        "issued_at": int(time.time()),
        "lifetime_seconds": 120,
    } | changes
    return {META_KEY: sign_grant(key, **fields)}


def sent(data_dir: Path) -> list[dict[str, Any]]:
    outbox = data_dir / "outbox.jsonl"
    if not outbox.exists():
        return []
    return [json.loads(line) for line in outbox.read_text(encoding="utf-8").splitlines()]


async def refusal(client: Client, arguments: dict[str, Any], meta: dict[str, Any] | None) -> str:
    with pytest.raises(MCPError) as refused:
        await client.call_tool("send_email", arguments, meta=meta)  # type: ignore[arg-type]
    assert refused.value.code == -32602
    assert refused.value.message.startswith("send_email needs a Gatehouse approval")
    return refused.value.message


async def test_unsigned_tampered_expired_other_argument_other_server_and_reused_grants_are_refused(
    data_dir: Path,
) -> None:
    key = Ed25519PrivateKey.generate()
    async with email_server(data_dir, {KEYS_ENV: public_key_text(key.public_key())}) as client:
        assert "no grant" in await refusal(client, MESSAGE, None)

        tampered = grant(key, MESSAGE)
        tampered[META_KEY]["grant"]["why"]["approved_by"] = "mallory"
        assert "signature does not match" in await refusal(client, MESSAGE, tampered)

        expired = grant(key, MESSAGE, issued_at=int(time.time()) - 300)
        assert "expired" in await refusal(client, MESSAGE, expired)

        for_other_arguments = grant(key, MESSAGE)
        other = MESSAGE | {"to": "eve@example.com"}
        assert "arguments are not the ones" in await refusal(client, other, for_other_arguments)

        assert "not 'email'" in await refusal(client, MESSAGE, grant(key, MESSAGE, server="tickets"))
        stranger = Ed25519PrivateKey.generate()
        assert "does not accept" in await refusal(client, MESSAGE, grant(stranger, MESSAGE))
        assert sent(data_dir) == []

        valid = grant(key, MESSAGE)
        result = await client.call_tool("send_email", MESSAGE, meta=valid)  # type: ignore[arg-type]
        assert not result.is_error
        assert "used before" in await refusal(client, MESSAGE, valid)

    assert [message["to"] for message in sent(data_dir)] == ["bob@example.com"]


async def test_during_a_rotation_the_old_and_the_new_key_pass_and_after_retiring_only_the_new(
    data_dir: Path, tmp_path: Path
) -> None:
    gatehouse_data = tmp_path / "gatehouse"
    old = load_signing_keys(gatehouse_data).current
    env = {KEYS_FILE_ENV: str(public_keys_path(gatehouse_data))}
    async with email_server(data_dir, env) as client:
        accepted = await client.call_tool("send_email", MESSAGE, meta=grant(old, MESSAGE))  # type: ignore[arg-type]
        assert not accepted.is_error

        new = rotate_signing_key(gatehouse_data).current
        for key in (old, new):
            result = await client.call_tool("send_email", MESSAGE, meta=grant(key, MESSAGE))  # type: ignore[arg-type]
            assert not result.is_error

        retire_previous_keys(gatehouse_data)
        assert "does not accept" in await refusal(client, MESSAGE, grant(old, MESSAGE))
        result = await client.call_tool("send_email", MESSAGE, meta=grant(new, MESSAGE))  # type: ignore[arg-type]
        assert not result.is_error

    assert len(sent(data_dir)) == 4
