"""The endpoint the conformance suite's server scenarios run against: a real `gatehouse serve`,
as a person starts it, in front of the fixture server (conformance/fixture_server.py), under
conformance/policy.toml, on a database of its own in a temporary folder.

The suite cannot send a header of its own, so it calls the bearer proxy
(conformance/bearer_proxy.py) on another loopback port, which adds the token
`gatehouse tokens issue` made for the policy's one person: the endpoint authenticates every
request as it does in production.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from conformance.bearer_proxy import bearer_proxy

ROOT = Path(__file__).resolve().parents[1]
POLICY = ROOT / "conformance" / "policy.toml"
CALLER = "conformance"
SERVER = "conformance"
START_SECONDS = 90.0
STOP_SECONDS = 20.0
# Where the endpoint's settings come from in a person's shell; this run names its own.
_SETTINGS = frozenset({"GATEHOUSE_DB", "GATEHOUSE_POLICY", "GATEHOUSE_SERVERS", "GATEHOUSE_DATA"})


class EndpointError(RuntimeError):
    """`gatehouse serve` or its token could not be had: what it said is in the message."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def servers_file(folder: Path) -> Path:
    """A servers file with the fixture server alone, started from this checkout."""
    entry = {"command": sys.executable, "args": ["-m", "conformance.fixture_server"], "cwd": str(ROOT)}
    path = folder / "servers.json"
    path.write_text(json.dumps({"mcpServers": {SERVER: entry}}), encoding="utf-8")
    return path


def _environment(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SETTINGS}
    return env | {"GATEHOUSE_DATA": str(folder), "PYTHONPATH": str(ROOT)}


def _gatehouse(*args: str) -> list[str]:
    return [sys.executable, "-m", "gatehouse.cli", *args]


def issue_token(folder: Path, servers: Path) -> str:
    issued = subprocess.run(
        _gatehouse("tokens", "issue", CALLER, "--json", "--servers", str(servers), "--policy", str(POLICY)),
        cwd=ROOT,
        env=_environment(folder),
        capture_output=True,
        text=True,
        check=False,
    )
    if issued.returncode != 0:
        raise EndpointError(f"gatehouse tokens issue failed: {issued.stderr.strip()[-500:]}")
    token: str = json.loads(issued.stdout)["token"]
    return token


def _answers(url: str) -> bool:
    try:
        httpx.post(url, json={}, timeout=1)
    except httpx.HTTPError:
        return False
    return True


@contextmanager
def gatehouse_endpoint() -> Iterator[str]:
    """Start `gatehouse serve` and the bearer proxy before it; yield the URL the suite calls
    (the proxy's ``/mcp``); stop both, `gatehouse serve` with Ctrl-C as a person stops it."""
    with tempfile.TemporaryDirectory(prefix="gatehouse-conformance-") as name:
        folder = Path(name)
        servers = servers_file(folder)
        port = free_port()
        log = folder / "serve.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                _gatehouse("serve", "--port", str(port), "--servers", str(servers), "--policy", str(POLICY)),
                cwd=ROOT,
                env=_environment(folder),
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            # While it starts (its servers, its imports): a token, from the same database, as
            # a person issues one beside a running endpoint.
            token = issue_token(folder, servers)
            upstream = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + START_SECONDS
            while not _answers(upstream + "/mcp"):
                if process.poll() is not None or time.monotonic() > deadline:
                    said = log.read_text(encoding="utf-8", errors="replace")[-2000:]
                    raise EndpointError(f"gatehouse serve did not start:\n{said}")
                time.sleep(0.1)
            with bearer_proxy(upstream, token, free_port()) as proxy:
                yield proxy + "/mcp"
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
