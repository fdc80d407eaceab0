"""`gatehouse serve` is an MCP server an agent calls through: the MCP Python SDK's own client,
over Streamable HTTP with a token `gatehouse tokens issue` made, lists the configured servers'
tools under their namespaced keys, runs an allowed read and gets its result, and is told that
a send waits for a reviewer, naming the review the call opened in the ledger as the token's
person's; without a token, or with one made up, the endpoint answers 401 before any MCP
message is read.

One process: `python -m gatehouse.cli serve` on a free port of 127.0.0.1, with the bundled
filesystem and e-mail servers (forks of the tests' prefork process), on a SQLite file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

from reviews.ledger import ReviewLedger
from tests.cli_support import run_cli
from tests.http_servers import free_port
from tests.support import bundled_server_entry

pytestmark = pytest.mark.processes

REPO = Path(__file__).resolve().parents[2]
START_SECONDS = 60


def _environment(data: Path, servers: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"GATEHOUSE_DB", "GATEHOUSE_POLICY"}}
    return env | {"GATEHOUSE_DATA": str(data), "GATEHOUSE_SERVERS": str(servers)}


@contextmanager
def gatehouse_serve(data: Path, servers: Path) -> Iterator[str]:
    """`gatehouse serve` on a free port; yields the endpoint's URL, stops the process."""
    port = free_port()
    log = data / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "gatehouse.cli", "serve", "--port", str(port)],
            cwd=REPO,
            env=_environment(data, servers),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _answers(url):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"gatehouse serve did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.1)
        yield url
    finally:
        server.send_signal(signal.SIGINT)
        try:
            stopped = server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
            raise
    # Ctrl-C is how it is stopped: a clean exit, not an interruption.
    assert stopped == 0, log.read_text(errors="replace")[-3000:]


def _answers(url: str) -> bool:
    try:
        httpx.post(url, json={}, timeout=1)
    except httpx.HTTPError:
        return False
    return True


async def _calls(url: str, auth: dict[str, str]) -> tuple[list[str], CallToolResult, CallToolResult]:
    """What an agent does: list the tools, read a folder, send an e-mail."""
    async with (
        httpx2.AsyncClient(headers=auth, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        tools = await client.list_tools()
        read = await client.call_tool("filesystem__list_directory", {})
        send = await client.call_tool("email__send_email", {"to": "bob@example.com", "body": "hi"})
    return [tool.name for tool in tools.tools], read, send


def _servers_file(data: Path) -> Path:
    demo = data / "demo"
    entries = {name: bundled_server_entry(name, demo) for name in ("filesystem", "email")}
    path = data / "servers.json"
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    return path


def test_an_mcp_client_calls_through_gatehouse_with_its_token_and_sends_wait_for_a_reviewer(
    data_dir: Path,
) -> None:
    servers = _servers_file(data_dir)
    issued = run_cli("tokens", "issue", "operator", "--json", env=_environment(data_dir, servers))
    assert issued.returncode == 0, issued.stderr
    token = json.loads(issued.stdout)["token"]

    with gatehouse_serve(data_dir, servers) as url:
        for headers in ({}, {"Authorization": "Bearer gth_made-up"}):
            refused = httpx.post(url, json={}, headers=headers, timeout=10)
            assert refused.status_code == 401
            assert refused.headers["www-authenticate"].startswith("Bearer")

        async def as_agent() -> tuple[list[str], CallToolResult, CallToolResult]:
            with anyio.fail_after(120):
                return await _calls(url, {"Authorization": f"Bearer {token}"})

        names, read, send = anyio.run(as_agent)

    assert {"filesystem__list_directory", "filesystem__read_file", "email__send_email"} <= set(names)
    assert not read.is_error
    assert isinstance(read.content[0], TextContent) and "notes.md" in read.content[0].text
    assert send.is_error
    ledger = ReviewLedger(data_dir / "gatehouse.db")
    try:
        [review] = ledger.queue("pending")
    finally:
        ledger.close()
    assert review.requester == "operator"
    assert review.capability_key == "email__send_email"
    assert isinstance(send.content[0], TextContent)
    assert f"Review {review.id} waits on Gatehouse's Reviews page" in send.content[0].text
