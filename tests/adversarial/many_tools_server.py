"""A stdio server that offers 10,000 tools, 500 to a page, and counts the pages it was asked for.

Every tool is a harmless read (``gadget_N``: "Look up gadget number N"), so nothing but their
number is hostile: a host that lists, scores or stores all of them on every request does work
and writes data without bound.

Run: ``python -m tests.adversarial.many_tools_server``.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp import types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

TOOLS = 10_000
PAGE = 500


def gadget(number: int) -> types.Tool:
    return types.Tool(
        name=f"gadget_{number}",
        description=f"Look up gadget number {number} in the gadget catalogue.",
        input_schema={"type": "object", "properties": {"note": {"type": "string"}}},
        annotations=types.ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False),
    )


def build(total: int = TOOLS) -> tuple[Server[Any], list[str | None]]:
    """The server offering ``total`` tools, and the cursors it was asked for (one per page
    served), oldest first."""
    asked: list[str | None] = []

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        cursor = params.cursor if params is not None else None
        asked.append(cursor)
        start = int(cursor or 0)
        end = min(start + PAGE, total)
        return types.ListToolsResult(
            tools=[gadget(n) for n in range(start, end)], next_cursor=str(end) if end < total else None
        )

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"{params.name}: in stock")])

    return Server("many", on_list_tools=list_tools, on_call_tool=call_tool), asked


async def main() -> None:
    server, _ = build()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
