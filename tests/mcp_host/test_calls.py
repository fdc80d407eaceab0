"""Calls through SdkMcpClient: results, error kinds, timeouts, the output cap and long-lived sessions."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from mcp_host.results import McpResult
from mcp_host.sdk_client import SdkMcpClient
from mcp_host.transports import ServerTarget
from servers.catalog import build_all
from servers.documents import SUPPORT_HANDBOOK
from tests.mcp_host.helpers import stdio_greeter

CAP = 64 * 1024
BIG_TEXT = "x" * 200_000


def _kept_bytes(result: McpResult) -> int:
    return sum(len((item.text or "").encode("utf-8")) for item in result.content)


def _tools_server() -> MCPServer:
    server = MCPServer("tools")

    @server.tool()
    async def nap() -> str:
        """Sleep far longer than any test's call timeout."""
        await anyio.sleep(10)
        return "rested"

    @server.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @server.tool()
    def big() -> str:
        """Return 200 KB of text."""
        return BIG_TEXT

    @server.tool()
    def big_accents() -> str:
        """Return about 200 KB of two-byte characters."""
        return "é" * 100_000

    @server.tool()
    def broken() -> str:
        """Fail the way a tool reports its own failure."""
        raise ToolError("the printer is on fire")

    @server.tool()
    def forbidden() -> str:
        """Fail with a permission problem."""
        raise ToolError("Permission denied: /srv/secrets")

    return server


@pytest.fixture
def client() -> Iterator[SdkMcpClient]:
    with SdkMcpClient({"tools": _tools_server()}, call_timeout=0.3, output_cap_bytes=CAP) as opened:
        yield opened


@pytest.fixture
def bundled(data_dir: Path) -> Iterator[SdkMcpClient]:
    with SdkMcpClient(build_all(data_dir)) as opened:
        yield opened


# -- transports and sessions -------------------------------------------------------------


@pytest.mark.processes
def test_a_stdio_server_and_an_in_process_server_work_side_by_side(data_dir: Path) -> None:
    targets: dict[str, ServerTarget] = {"stdio_greeter": stdio_greeter(data_dir), "tools": _tools_server()}
    with SdkMcpClient(targets, call_timeout=10.0) as client:
        manifest = client.discover()
        greeted = client.call_tool("stdio_greeter", "greet", {"name": "Ada"})
        echoed = client.call_tool("tools", "echo", {"text": "in process"})

    assert all(server.ok for server in manifest.servers), manifest.problems()
    assert manifest.find("stdio_greeter__greet") is not None
    assert manifest.find("tools__echo") is not None
    assert greeted.success and greeted.content[0].text == "Hello, Ada!"
    assert echoed.success and echoed.content[0].text == "in process"


def test_a_session_is_opened_once_and_kept_across_twenty_calls() -> None:
    entered: list[str] = []

    @asynccontextmanager
    async def counting_lifespan(server: MCPServer[Any]) -> AsyncIterator[dict[str, Any]]:
        entered.append(server.name)
        yield {}

    server = MCPServer("counted", lifespan=counting_lifespan)

    @server.tool()
    def ping() -> str:
        """Answer pong."""
        return "pong"

    with SdkMcpClient({"counted": server}) as client:
        results = [client.call_tool("counted", "ping", {}) for _ in range(20)]

    assert all(result.success for result in results)
    assert entered == ["counted"]


# -- timeouts ----------------------------------------------------------------------------


def test_a_call_longer_than_the_call_timeout_fails_promptly_with_kind_timeout(client: SdkMcpClient) -> None:
    started = time.perf_counter()
    result = client.call_tool("tools", "nap", {})
    elapsed = time.perf_counter() - started

    assert not result.success
    assert result.error is not None and result.error.kind == "timeout"
    assert result.error.recoverable
    # The tool sleeps 10 s; only the client's 0.3 s call timeout can have ended the call this early.
    assert elapsed < 5


def test_the_session_stays_usable_after_a_timed_out_call(client: SdkMcpClient) -> None:
    timed_out = client.call_tool("tools", "nap", {})
    after = client.call_tool("tools", "echo", {"text": "still here"})

    assert timed_out.error is not None and timed_out.error.kind == "timeout"
    assert after.success, after.error
    assert after.content[0].text == "still here"


# -- error kinds -------------------------------------------------------------------------


def test_an_is_error_result_maps_to_tool_error(client: SdkMcpClient) -> None:
    result = client.call_tool("tools", "broken", {})

    assert not result.success
    assert result.error is not None
    assert result.error.kind == "tool_error"
    assert "the printer is on fire" in result.error.message


def test_a_tool_error_saying_permission_denied_maps_to_auth(client: SdkMcpClient) -> None:
    result = client.call_tool("tools", "forbidden", {})

    assert not result.success
    assert result.error is not None
    assert result.error.kind == "auth"
    assert not result.error.recoverable


def test_an_unknown_tool_maps_to_invalid_params(client: SdkMcpClient) -> None:
    result = client.call_tool("tools", "no_such_tool", {})

    assert not result.success
    assert result.error is not None and result.error.kind == "invalid_params"


def test_a_missing_argument_maps_to_invalid_params(client: SdkMcpClient) -> None:
    result = client.call_tool("tools", "echo", {})

    assert not result.success
    assert result.error is not None and result.error.kind == "invalid_params"


def test_an_argument_of_the_wrong_type_maps_to_invalid_params(client: SdkMcpClient) -> None:
    result = client.call_tool("tools", "echo", {"text": ["not", "a", "string"]})

    assert not result.success
    assert result.error is not None and result.error.kind == "invalid_params"


# -- output cap --------------------------------------------------------------------------


def test_a_200_kb_result_is_truncated_to_the_output_cap(client: SdkMcpClient) -> None:
    result = client.call_tool("tools", "big", {})

    assert result.success
    assert result.truncated
    assert 0 < _kept_bytes(result) <= CAP
    assert result.original_bytes >= 200_000
    assert all(item.text is None or BIG_TEXT.startswith(item.text) for item in result.content)


def test_truncation_keeps_whole_multibyte_characters_within_the_cap(client: SdkMcpClient) -> None:
    result = client.call_tool("tools", "big_accents", {})

    assert result.truncated
    assert 0 < _kept_bytes(result) <= CAP
    assert all(set(item.text or "") <= {"é"} for item in result.content)


def test_a_small_result_is_not_truncated(client: SdkMcpClient) -> None:
    result = client.call_tool("tools", "echo", {"text": "short"})

    assert result.success
    assert not result.truncated
    assert [item.text for item in result.content] == ["short"]
    assert result.structured == {"result": "short"}
    assert result.original_bytes < CAP


# -- resources and prompts ---------------------------------------------------------------


def test_the_pdf_report_comes_back_as_a_blob_with_its_mime_type_and_no_text(bundled: SdkMcpClient) -> None:
    result = bundled.read_resource("documents", "docs://quarterly-report.pdf")

    assert result.success, result.error
    assert result.capability_type == "resource"
    (item,) = result.content
    assert item.type == "blob"
    assert item.mime_type == "application/pdf"
    assert item.text is None
    assert item.size > 0


def test_the_handbook_comes_back_as_resource_text(bundled: SdkMcpClient) -> None:
    result = bundled.read_resource("documents", "docs://support-handbook")

    assert result.success, result.error
    (item,) = result.content
    assert item.type == "resource"
    assert item.mime_type == "text/markdown"
    assert item.uri == "docs://support-handbook"
    assert item.text == SUPPORT_HANDBOOK
    assert not result.truncated


def test_a_resource_template_is_read_through_its_expanded_uri(bundled: SdkMcpClient) -> None:
    result = bundled.read_resource("tickets", "ticket://1")

    assert result.success, result.error
    (item,) = result.content
    assert item.type == "resource"
    assert item.mime_type == "application/json"
    assert '"id": 1' in (item.text or "")


def test_a_prompt_renders_its_messages_prefixed_with_their_role(bundled: SdkMcpClient) -> None:
    result = bundled.get_prompt("prompts", "summarize_tickets", {"priority": "urgent", "status": "pending"})

    assert result.success, result.error
    assert result.capability_type == "prompt"
    (item,) = result.content
    assert item.type == "text"
    assert (item.text or "").startswith("[user] Summarize the support tickets with priority 'urgent'")
    assert "status 'pending'" in (item.text or "")
