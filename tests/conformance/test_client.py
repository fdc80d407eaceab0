"""The conformance client's calls (conformance/client.py): what each scenario asks the host to
call, made through Gatehouse's pool against a real (in-process) MCP server."""

from __future__ import annotations

from typing import Any

import mcp.types as types
from mcp.server import Server

from conformance.client import SCHEMA_ECHO_TOOL, SCHEMA_SCENARIO, SCHEMA_TOOL, SERVER, exercise
from mcp_host.sdk_client import SdkMcpClient
from tests.mcp_host.helpers import lowlevel

# A JSON Schema 2020-12 input schema with the keywords SEP-1613 and SEP-2106 name.
SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {"$anchor": "address", "type": "object", "properties": {"city": {"type": "string"}}}
    },
    "properties": {"name": {"type": "string"}, "home": {"$ref": "#address"}},
    "required": ["name"],
    "additionalProperties": False,
    "allOf": [{"anyOf": [{"required": ["name"]}, {"required": ["home"]}]}],
    "if": {"required": ["home"]},
    "then": {"properties": {"name": {"minLength": 1}}},
    "else": {"properties": {"name": {"maxLength": 80}}},
}
# Custom headers (SEP-2243): parameters marked for Mcp-Param-* headers.
HEADERS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
        "query": {"type": "string"},
    },
    "required": ["region", "query"],
}


def _recording_server(tools: list[types.Tool]) -> tuple[Server[Any], list[tuple[str, dict[str, Any]]]]:
    """A server offering `tools` that answers every call and records (name, arguments)."""
    calls: list[tuple[str, dict[str, Any]]] = []

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        calls.append((params.name, dict(params.arguments or {})))
        return types.CallToolResult(content=[types.TextContent(type="text", text="done")])

    return Server(SERVER, on_list_tools=list_tools, on_call_tool=call_tool), calls


def _exercise(server: Server[Any], scenario: str, context: dict[str, Any]) -> int:
    with SdkMcpClient({SERVER: lowlevel(server)}) as pool:
        return exercise(pool, scenario, context)


def test_the_schema_scenario_gets_back_the_schema_the_host_holds_with_every_2020_12_keyword() -> None:
    echo_schema = {"type": "object", "properties": {"schema": {"type": "object"}}, "required": ["schema"]}
    server, calls = _recording_server(
        [
            types.Tool(name=SCHEMA_TOOL, input_schema=SCHEMA_2020_12),
            types.Tool(name=SCHEMA_ECHO_TOOL, input_schema=echo_schema),
        ]
    )

    failures = _exercise(server, SCHEMA_SCENARIO, {})

    assert failures == 0
    assert calls == [(SCHEMA_ECHO_TOOL, {"schema": SCHEMA_2020_12})]


def test_a_scenario_that_scripts_its_calls_gets_them_in_order_with_its_arguments() -> None:
    server, calls = _recording_server([types.Tool(name="mirror", input_schema=HEADERS_SCHEMA)])
    scripted = [
        {"name": "mirror", "arguments": {"region": " padded ", "verbose": True, "query": "SELECT 1"}},
        {"name": "mirror", "arguments": {"region": "Hello, 世界", "verbose": None, "query": "SELECT 2"}},
    ]

    failures = _exercise(server, "http-custom-headers", {"toolCalls": scripted})

    assert failures == 0
    assert calls == [("mirror", call["arguments"]) for call in scripted]


def test_a_scripted_call_of_a_tool_the_host_does_not_list_is_a_failure_and_never_sent() -> None:
    server, calls = _recording_server([types.Tool(name="mirror", input_schema=HEADERS_SCHEMA)])

    failures = _exercise(server, "http-custom-headers", {"toolCalls": [{"name": "absent", "arguments": {}}]})

    assert failures == 1
    assert calls == []


def test_without_a_script_every_tool_is_called_once_with_sample_arguments() -> None:
    server, calls = _recording_server(
        [
            types.Tool(name="mirror", input_schema=HEADERS_SCHEMA),
            types.Tool(name="bare", input_schema={"type": "object", "properties": {}}),
        ]
    )

    failures = _exercise(server, "tools_call", {})

    assert failures == 0
    assert calls == [("mirror", {"region": "test", "query": "test"}), ("bare", {})]
