"""`gatehouse serve` is an MCP server an agent calls through: the MCP Python SDK's own client,
over Streamable HTTP with a token `gatehouse tokens issue` made, lists the configured servers'
tools under their namespaced keys, runs an allowed read and gets its result, and is told that
a send waits for a reviewer up to the endpoint's wait, naming the review the call opened in the ledger as the token's
person's; without a token, or with one made up, the endpoint answers 401 before any MCP
message is read.

One process: `python -m gatehouse.cli serve` on a free port of 127.0.0.1, with the bundled
filesystem and e-mail servers (forks of the tests' prefork process), on a SQLite file."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

from reviews.ledger import ReviewLedger
from tests.gatehouse.gateway_support import gatehouse_serve, issue_token, servers_file

pytestmark = pytest.mark.processes


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


def test_an_mcp_client_calls_through_gatehouse_with_its_token_and_sends_wait_for_a_reviewer(
    data_dir: Path,
) -> None:
    servers = servers_file(data_dir)
    token = issue_token(data_dir, servers, "operator")

    # A short wait: what a client is told when no reviewer decides in it (test_mcp_gateway_waits.py
    # has the decisions).
    with gatehouse_serve(data_dir, servers, "--wait", "1") as url:
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
    told = send.content[0].text
    assert "email__send_email has not been decided after 1 s" in told
    assert f"Waiting for a reviewer on Gatehouse's Reviews page (review {review.id}" in told
    assert "Call the tool again with the same arguments to keep waiting" in told
