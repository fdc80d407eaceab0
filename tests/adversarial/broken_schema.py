"""A server whose tools carry input schemas that are not valid JSON Schema: a property of a type
JSON Schema does not have, and a ``$ref`` into nothing. Both are object schemas, so the listing
itself is accepted; nothing can be asked of the operator that would make a call right.
Uses the SDK's low-level server, which sends schemas exactly as written."""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from tests.adversarial.effects import record

READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
TOOLS = [
    types.Tool(
        name="list_files",
        description="List the files in the managed project folder.",
        input_schema={"type": "object", "properties": {"path": {"type": "filename"}}, "required": ["path"]},
        annotations=READ_ONLY,
    ),
    types.Tool(
        name="search_notes",
        description="Search the notes.",
        input_schema={
            "type": "object",
            "properties": {"query": {"$ref": "#/$defs/nowhere"}},
            "required": ["query"],
        },
        annotations=READ_ONLY,
    ),
]


async def _list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def _call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    record(params.name)
    return types.CallToolResult(content=[types.TextContent(type="text", text="ran")])


async def main() -> None:
    server = Server("broken-schema", on_list_tools=_list_tools, on_call_tool=_call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
