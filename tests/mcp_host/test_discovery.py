"""Discovery through SdkMcpClient: what the manifest says about bundled and hand-made servers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from mcp_host.manifest import KEY_SEPARATOR, Manifest, ServerManifest
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from tests.mcp_host.helpers import (
    echo_server,
    exiting_server,
    lowlevel,
    record_methods,
    silent_server,
)

Ctx = ServerRequestContext[Any, Any]
Paging = types.PaginatedRequestParams | None


def _object_tool(name: str) -> types.Tool:
    return types.Tool(name=name, input_schema={"type": "object", "properties": {}})


async def _echo_call(ctx: Ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"called {params.name}")])


def _discover_bundled(data_dir: Path) -> Manifest:
    with SdkMcpClient(build_all(data_dir)) as client:
        return client.discover()


def _server(manifest: Manifest, name: str) -> ServerManifest:
    return next(server for server in manifest.servers if server.name == name)


# -- the bundled servers -----------------------------------------------------------------


def test_every_bundled_capability_is_keyed_server_then_name(data_dir: Path) -> None:
    manifest = _discover_bundled(data_dir)

    capabilities = manifest.capabilities()
    assert capabilities
    for capability in capabilities:
        assert capability.key == f"{capability.server}{KEY_SEPARATOR}{capability.name}"
    assert len({capability.key for capability in capabilities}) == len(capabilities)


def test_every_bundled_server_is_discovered_without_problems(data_dir: Path) -> None:
    manifest = _discover_bundled(data_dir)

    assert manifest.server_names() == ["filesystem", "tickets", "email", "greeter", "prompts", "documents"]
    assert all(server.ok for server in manifest.servers)
    assert manifest.problems() == []


def test_bundled_tools_resources_templates_and_prompts_appear_with_their_types(data_dir: Path) -> None:
    manifest = _discover_bundled(data_dir)

    types_by_key = {capability.key: capability.type for capability in manifest.capabilities()}
    assert types_by_key["greeter__greet"] == "tool"
    assert types_by_key["filesystem__list_directory"] == "tool"
    assert types_by_key["filesystem__read_file"] == "tool"
    assert types_by_key["filesystem__write_file"] == "tool"
    assert types_by_key["tickets__search_tickets"] == "tool"
    assert types_by_key["documents__quarterly-report"] == "resource"
    assert types_by_key["documents__support-handbook"] == "resource"
    assert types_by_key["tickets__ticket"] == "resource_template"
    assert types_by_key["prompts__summarize_tickets"] == "prompt"


def test_bundled_resources_carry_their_uri_and_mime_type(data_dir: Path) -> None:
    manifest = _discover_bundled(data_dir)

    report = manifest.find("documents__quarterly-report")
    handbook = manifest.find("documents__support-handbook")
    assert report is not None and handbook is not None
    assert (report.uri, report.mime_type) == ("docs://quarterly-report.pdf", "application/pdf")
    assert (handbook.uri, handbook.mime_type) == ("docs://support-handbook", "text/markdown")


def test_a_resource_template_lists_its_uri_variable_as_required(data_dir: Path) -> None:
    template = _discover_bundled(data_dir).find("tickets__ticket")

    assert template is not None
    assert template.uri_template == "ticket://{id}"
    assert template.input_schema["type"] == "object"
    assert template.properties == {"id": {"type": "string"}}
    assert template.required_arguments == ["id"]


def test_a_prompt_schema_lists_its_arguments(data_dir: Path) -> None:
    prompt = _discover_bundled(data_dir).find("prompts__summarize_tickets")

    assert prompt is not None
    assert prompt.input_schema["type"] == "object"
    assert set(prompt.properties) == {"priority", "status"}
    assert all(spec["type"] == "string" for spec in prompt.properties.values())
    # Both arguments have defaults, so neither is required.
    assert prompt.required_arguments == []


# -- same names on two servers -----------------------------------------------------------


def test_two_servers_with_the_same_tool_name_both_appear_under_distinct_keys() -> None:
    with SdkMcpClient({"left": echo_server("left"), "right": echo_server("right")}) as client:
        manifest = client.discover()

    left, right = manifest.find("left__echo"), manifest.find("right__echo")
    assert left is not None and right is not None
    assert (left.server, left.name) == ("left", "echo")
    assert (right.server, right.name) == ("right", "echo")
    assert [capability.key for capability in manifest.capabilities()] == ["left__echo", "right__echo"]


# -- pagination --------------------------------------------------------------------------


def test_an_empty_next_cursor_does_not_end_a_tool_listing() -> None:
    pages: dict[str | None, tuple[list[str], str | None]] = {
        None: (["first_a", "first_b"], ""),
        "": (["second"], "page-3"),
        "page-3": (["third"], None),
    }
    cursors: list[str | None] = []

    async def list_tools(ctx: Ctx, params: Paging) -> types.ListToolsResult:
        cursor = params.cursor if params is not None else None
        cursors.append(cursor)
        names, next_cursor = pages[cursor]
        return types.ListToolsResult(tools=[_object_tool(name) for name in names], next_cursor=next_cursor)

    server = Server("paged", on_list_tools=list_tools)
    with SdkMcpClient({"paged": lowlevel(server)}) as client:
        manifest = client.discover()

    paged = _server(manifest, "paged")
    assert paged.ok, paged.error
    assert [capability.name for capability in paged.capabilities] == ["first_a", "first_b", "second", "third"]
    assert cursors == [None, "", "page-3"]


def test_a_server_that_repeats_its_cursor_gets_an_error_on_its_manifest_instead_of_hanging() -> None:
    async def list_tools(ctx: Ctx, params: Paging) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_object_tool("again")], next_cursor="same-cursor")

    server = Server("looping", on_list_tools=list_tools)
    with SdkMcpClient({"looping": lowlevel(server), "echo": echo_server("echo")}, call_timeout=5.0) as client:
        manifest = client.discover()

    looping = _server(manifest, "looping")
    assert not looping.ok
    assert looping.error is not None
    assert looping.error.kind == "protocol"
    assert "same-cursor" in looping.error.message
    assert looping.capabilities == []
    assert _server(manifest, "echo").ok


# -- declared capabilities ---------------------------------------------------------------


def test_a_tools_only_server_is_never_asked_for_resources_or_prompts() -> None:
    async def list_tools(ctx: Ctx, params: Paging) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_object_tool("only")])

    server = Server("tools-only", on_list_tools=list_tools, on_call_tool=_echo_call)
    methods = record_methods(server)
    with SdkMcpClient({"tools_only": lowlevel(server)}) as client:
        manifest = client.discover()

    tools_only = _server(manifest, "tools_only")
    assert tools_only.ok, tools_only.error
    assert [capability.key for capability in tools_only.capabilities] == ["tools_only__only"]
    assert "tools/list" in methods
    assert not {"resources/list", "resources/templates/list", "prompts/list"} & set(methods)


# -- malformed listings ------------------------------------------------------------------


def _server_with_a_duplicate_tool() -> Server[Any]:
    async def list_tools(ctx: Ctx, params: Paging) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[_object_tool(name) for name in ("good", "twice", "twice")])

    return Server("dup", on_list_tools=list_tools, on_call_tool=_echo_call)


def test_a_duplicate_tool_name_is_rejected_naming_the_tool() -> None:
    with SdkMcpClient({"dup": lowlevel(_server_with_a_duplicate_tool())}) as client:
        manifest = client.discover()

    dup = _server(manifest, "dup")
    assert dup.ok, dup.error
    assert any("twice" in reason for reason in dup.rejected), dup.rejected
    assert [capability.name for capability in dup.capabilities].count("twice") == 1


def test_valid_siblings_of_a_duplicate_tool_stay_listed_and_callable() -> None:
    with SdkMcpClient({"dup": lowlevel(_server_with_a_duplicate_tool())}) as client:
        manifest = client.discover()
        result = client.call_tool("dup", "good", {})

    assert manifest.find("dup__good") is not None
    assert result.success, result.error
    assert [item.text for item in result.content] == ["called good"]


def test_a_listing_the_sdk_cannot_serialise_fails_only_that_server() -> None:
    # A non-object input schema never reaches the host over MCP 2026-07-28: the SDK refuses
    # the whole listing (see test_collector for the host's own rejection of such entries).
    async def list_tools(ctx: Ctx, params: Paging) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[_object_tool("good"), types.Tool(name="stringy", input_schema={"type": "string"})]
        )

    broken = Server("broken", on_list_tools=list_tools, on_call_tool=_echo_call)
    with SdkMcpClient({"broken": lowlevel(broken), "echo": echo_server("echo")}) as client:
        manifest = client.discover()
        echoed = client.call_tool("echo", "echo", {"text": "still here"})

    broken_manifest = _server(manifest, "broken")
    assert not broken_manifest.ok
    assert broken_manifest.error is not None and broken_manifest.error.kind == "protocol"
    assert _server(manifest, "echo").ok
    assert echoed.success and echoed.content[0].text == "still here"


# -- failing servers ---------------------------------------------------------------------


@pytest.mark.processes
def test_a_server_that_exits_at_start_is_in_the_manifest_as_not_ok_with_an_error() -> None:
    with SdkMcpClient({"dead": exiting_server(), "echo": echo_server("echo")}) as client:
        manifest = client.discover()

    dead = _server(manifest, "dead")
    assert not dead.ok
    assert dead.error is not None and dead.error.kind == "unavailable"
    assert dead.capabilities == []
    assert any(line.startswith("server dead: unavailable") for line in manifest.problems())


@pytest.mark.processes
def test_other_servers_stay_usable_next_to_a_server_that_exits_at_start() -> None:
    with SdkMcpClient({"dead": exiting_server(), "echo": echo_server("echo")}) as client:
        manifest = client.discover()
        result = client.call_tool("echo", "echo", {"text": "hi"})
        dead_call = client.call_tool("dead", "anything", {})

    assert _server(manifest, "echo").ok
    assert [capability.key for capability in manifest.capabilities()] == ["echo__echo"]
    assert result.success and result.content[0].text == "hi"
    assert not dead_call.success
    assert dead_call.error is not None and dead_call.error.kind == "unavailable"


@pytest.mark.processes
def test_a_server_that_never_answers_the_handshake_times_out_at_connect() -> None:
    with SdkMcpClient(
        {"silent": silent_server(), "echo": echo_server("echo")}, connect_timeout=0.5
    ) as client:
        manifest = client.discover()

    silent = _server(manifest, "silent")
    assert not silent.ok
    assert silent.error is not None and silent.error.kind == "timeout"
    assert _server(manifest, "echo").ok
