"""`gatehouse bridge URL` is an MCP server over stdio for clients that only start local servers:
the MCP Python SDK's stdio client starts it with the token in its environment and, through it,
lists the tools of a real `gatehouse serve`, runs an allowed call and gets its result, and gets a
refused call as a tool error. A token the endpoint refuses makes every request fail saying so
and how to get a new one; a missing token is refused before anything starts (exit 2); an
endpoint that cannot be reached is named; standard output carries nothing but the protocol.

Against a stand-in endpoint (tests/gatehouse/gateway/stand_in_endpoint.py), for what
`gatehouse serve` does not do yet: resources, templates and prompts forwarded, the endpoint's
JSON-RPC error passed on as it was, for clients of both protocol eras; a waiting call's progress
reaches the client, and the client's cancellation reaches the endpoint."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TextIO

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, Implementation, TextContent, TextResourceContents

from gatehouse.settings import BRIDGE_TOKEN_ENV
from reviews.ledger import ReviewLedger
from tests.gatehouse.gateway import stand_in_endpoint as stand_in
from tests.gatehouse.gateway_support import gatehouse_serve, issue_token, servers_file
from tests.http_servers import free_port, serving
from tests.support import wait_until

pytestmark = pytest.mark.processes

REPO = Path(__file__).resolve().parents[2]
SECONDS = 60


def bridge_parameters(url: str, token: str | None) -> StdioServerParameters:
    """How a client's `mcpServers` entry starts the bridge: the token in its env, not its args."""
    env = {BRIDGE_TOKEN_ENV: token} if token is not None else {}
    return StdioServerParameters(
        command=sys.executable, args=["-m", "gatehouse.cli", "bridge", url], env=env, cwd=str(REPO)
    )


# The client that starts the bridge, as it names itself.
DESKTOP = Implementation(name="desktop-client", version="9.9")


@asynccontextmanager
async def bridged(url: str, token: str, errlog: TextIO, mode: str = "auto") -> AsyncIterator[Client]:
    transport = stdio_client(bridge_parameters(url, token), errlog=errlog)
    async with Client(transport, mode=mode, client_info=DESKTOP) as client:
        yield client


def text_of(result: CallToolResult) -> str:
    return "\n".join(item.text for item in result.content if isinstance(item, TextContent))


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path]]:
    """A real `gatehouse serve` with the bundled filesystem and e-mail servers, a token, and its
    data folder."""
    data = tmp_path_factory.mktemp("data")
    servers = servers_file(data)
    token = issue_token(data, servers, "operator")
    # A send is told at once that it waits (test_mcp_gateway_waits.py has the waiting).
    with gatehouse_serve(data, servers, "--wait", "1") as url:
        yield url, token, data


def test_a_stdio_client_lists_and_calls_gatehouses_tools_through_the_bridge(
    gateway: tuple[str, str, Path], tmp_path: Path
) -> None:
    url, token, data = gateway
    log = tmp_path / "bridge.log"

    async def as_client() -> tuple[str | None, list[str], CallToolResult, CallToolResult, CallToolResult]:
        with anyio.fail_after(SECONDS), log.open("w") as errlog:
            async with bridged(url, token, errlog) as client:
                tools = await client.list_tools()
                read = await client.call_tool("filesystem__list_directory", {})
                # A path outside the policy's roots: refused by the rule "file writes".
                refused = await client.call_tool(
                    "filesystem__write_file", {"path": "/etc/passwd", "content": "x"}
                )
                send = await client.call_tool("email__send_email", {"to": "bob@example.com", "body": "hi"})
                return client.instructions, [tool.name for tool in tools.tools], read, refused, send

    instructions, names, read, refused, send = anyio.run(as_client)

    assert instructions is not None and instructions.startswith(
        "Gatehouse offers its configured MCP servers' tools"
    )
    assert {"filesystem__list_directory", "filesystem__write_file", "email__send_email"} <= set(names)
    assert not read.is_error and "notes.md" in text_of(read)
    assert refused.is_error is True
    assert text_of(refused).startswith("Refused by Gatehouse's policy (rule file writes)")
    # A send waits for a reviewer: the review it opened names the client that started the bridge.
    ledger = ReviewLedger(data / "gatehouse.db")
    try:
        [review] = ledger.queue("pending")
    finally:
        ledger.close()
    assert (
        send.is_error
        and f"Waiting for a reviewer on Gatehouse's Reviews page (review {review.id}" in text_of(send)
    )
    assert review.requester == "operator"
    assert "An MCP client (desktop-client 9.9) called email__send_email" in review.payload["request"]
    assert f"bridging MCP over stdio to {url}" in log.read_text()


def test_a_refused_token_fails_every_request_saying_how_to_get_another(
    gateway: tuple[str, str, Path], tmp_path: Path
) -> None:
    url, _, _ = gateway
    log = tmp_path / "bridge.log"

    async def as_client() -> list[MCPError]:
        failures: list[MCPError] = []
        with anyio.fail_after(SECONDS), log.open("w") as errlog:
            async with bridged(url, "gth_made-up", errlog) as client:
                for request in (client.list_tools(), client.call_tool("filesystem__list_directory", {})):
                    with pytest.raises(MCPError) as raised:
                        await request
                    failures.append(raised.value)
        return failures

    failures = anyio.run(as_client)

    for failure in failures:
        assert f"Gatehouse at {url} refused the bridge's token (HTTP 401)" in failure.message
        assert "`gatehouse tokens issue USER`" in failure.message and BRIDGE_TOKEN_ENV in failure.message
    assert "Traceback" not in log.read_text()


def test_without_a_token_the_bridge_does_not_start() -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "gatehouse.cli", "bridge", "http://127.0.0.1:8765/mcp"],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=SECONDS,
    )

    assert ran.returncode == 2
    assert ran.stdout == ""
    assert ran.stderr.startswith(f"gatehouse: {BRIDGE_TOKEN_ENV} is not set")
    assert "`gatehouse tokens issue USER`" in ran.stderr


def test_an_unreachable_endpoint_is_named_and_stdout_carries_only_the_protocol() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]

    async def raw_client() -> tuple[list[str], str]:
        env = bridge_parameters(url, "gth_anything").env or {}
        command = [sys.executable, "-m", "gatehouse.cli", "bridge", url]
        with anyio.fail_after(SECONDS):
            async with await anyio.open_process(
                command, cwd=REPO, env={"PATH": "/usr/bin:/bin", **env}
            ) as process:
                assert process.stdin is not None and process.stdout is not None and process.stderr is not None
                await process.stdin.send("".join(json.dumps(r) + "\n" for r in requests).encode())
                received = b""
                while b'"id":2' not in received:
                    received += await process.stdout.receive()
                await process.stdin.aclose()
                async for more in process.stdout:
                    received += more
                errors = b"".join([chunk async for chunk in process.stderr])
        return received.decode().splitlines(), errors.decode()

    lines, errors = anyio.run(raw_client)

    messages = [json.loads(line) for line in lines]
    assert all(message["jsonrpc"] == "2.0" for message in messages)
    [listed] = [message for message in messages if message.get("id") == 2]
    assert listed["error"]["message"].startswith(f"Gatehouse's MCP endpoint {url} cannot be reached")
    assert f"not reached yet, every request tries again: Gatehouse's MCP endpoint {url}" in errors
    assert "Traceback" not in errors


@pytest.fixture(scope="module")
def stand_in_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("stand-in")
    with serving("tests.gatehouse.gateway.stand_in_endpoint", str(folder)) as port:
        yield f"http://127.0.0.1:{port}/mcp", folder


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_resources_prompts_and_errors_pass_as_the_endpoint_sent_them(
    stand_in_url: tuple[str, Path], tmp_path: Path, mode: str
) -> None:
    url, folder = stand_in_url

    async def as_client() -> None:
        with anyio.fail_after(SECONDS), (tmp_path / "bridge.log").open("w") as errlog:
            async with bridged(url, "gth_stand-in", errlog, mode=mode) as client:
                assert client.instructions == stand_in.INSTRUCTIONS
                assert (await client.list_resources()).resources == [stand_in.MEMO]
                assert (await client.list_resource_templates()).resource_templates == [stand_in.TEMPLATE]
                [read] = (await client.read_resource(stand_in.MEMO.uri)).contents
                assert isinstance(read, TextResourceContents) and read.text == stand_in.MEMO_TEXT
                assert (await client.list_prompts()).prompts == [stand_in.PROMPT]
                [message] = (await client.get_prompt("greeting", {"who": "Ann"})).messages
                assert isinstance(message.content, TextContent) and message.content.text == "Greet Ann."
                with pytest.raises(MCPError) as missing:
                    await client.read_resource("memo://nowhere")
        # The endpoint's own error, code, message and data as it sent them.
        assert (missing.value.code, missing.value.message, missing.value.data) == (
            stand_in.RESOURCE_NOT_FOUND,
            "No memo at memo://nowhere",
            {"uri": "memo://nowhere"},
        )

    anyio.run(as_client)

    assert set((folder / "authorization").read_text().splitlines()) == {"Bearer gth_stand-in"}


def test_a_waiting_calls_progress_reaches_the_client_and_its_cancellation_the_endpoint(
    stand_in_url: tuple[str, Path], tmp_path: Path
) -> None:
    url, folder = stand_in_url
    reported: list[tuple[float, float | None, str | None]] = []

    async def as_client() -> None:
        with anyio.fail_after(SECONDS), (tmp_path / "bridge.log").open("w") as errlog:
            async with bridged(url, "gth_stand-in", errlog) as client:
                first = anyio.Event()

                async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                    reported.append((progress, total, message))
                    first.set()

                async def call() -> None:
                    await client.call_tool("wait_for_reviewer", {}, progress_callback=on_progress)

                async with anyio.create_task_group() as calls:
                    calls.start_soon(call)
                    await first.wait()
                    # The client gives up: its SDK sends notifications/cancelled to the bridge.
                    calls.cancel_scope.cancel()

    anyio.run(as_client)

    assert reported == [(1.0, 2.0, "waiting for a reviewer")]
    wait_until(
        lambda: (folder / "cancelled").exists(), timeout=10, what="the endpoint's call to be cancelled"
    )
