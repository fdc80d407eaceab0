"""The host's own output-schema check: what breaks a tool's declared schema, said where."""

from __future__ import annotations

from typing import Any

import mcp.types as types
from mcp.server import Server

from mcp_host.output_schema import output_problem
from mcp_host.sdk_client import SdkMcpClient
from tests.mcp_host.helpers import lowlevel, record_methods

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"count": {"type": "integer"}, "items": {"type": "array", "items": {"type": "string"}}},
    "required": ["count"],
}


def test_output_that_keeps_the_schema_has_no_problem() -> None:
    assert output_problem("count", SCHEMA, {"count": 2, "items": ["a"]}) is None


def test_a_tool_without_an_output_schema_is_not_checked() -> None:
    assert output_problem("count", None, None) is None


def test_a_broken_promise_names_the_tool_and_where() -> None:
    problem = output_problem("count", SCHEMA, {"count": 1, "items": ["a", 2]})

    assert problem is not None
    assert "'count'" in problem and "items/1" in problem and "string" in problem


def test_missing_structured_content_breaks_a_declared_schema() -> None:
    problem = output_problem("count", SCHEMA, None)

    assert problem is not None and "no structured content" in problem


def test_a_schema_that_is_not_json_schema_is_itself_the_problem() -> None:
    problem = output_problem("count", {"type": "no-such-type"}, {"count": 1})

    assert problem is not None and "not valid JSON Schema" in problem


def test_a_reference_outside_the_schema_is_never_fetched() -> None:
    problem = output_problem("count", {"$ref": "https://example.invalid/schema.json"}, {"count": 1})

    assert problem is not None and "does not resolve" in problem


def _counting_server(structured: dict[str, Any] | None) -> Server[Any]:
    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name="count", input_schema={"type": "object"}, output_schema=SCHEMA)]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(structured))], structured_content=structured
        )

    return Server("counting", on_list_tools=list_tools, on_call_tool=call_tool)


def test_a_call_before_any_discovery_is_checked_against_the_listed_schema() -> None:
    server = _counting_server({"count": "many"})
    methods = record_methods(server)
    with SdkMcpClient({"counting": lowlevel(server)}) as pool:
        first = pool.call_tool("counting", "count", {})
        second = pool.call_tool("counting", "count", {})

    assert first.untrusted and second.untrusted
    assert first.untrusted_reason is not None and "count" in first.untrusted_reason
    assert first.structured == {"count": "many"}
    # Listed once for the connection, not once per call.
    assert methods.count("tools/list") == 1


def test_output_that_keeps_its_schema_is_trusted_after_discovery() -> None:
    server = _counting_server({"count": 3})
    methods = record_methods(server)
    with SdkMcpClient({"counting": lowlevel(server)}) as pool:
        pool.discover()
        result = pool.call_tool("counting", "count", {})

    assert result.success and not result.untrusted
    assert result.structured == {"count": 3}
    assert methods.count("tools/list") == 1
