"""A stdio MCP server whose tools change, and which says so: ``grow`` adds a tool (``grown_1``,
``grown_2``...) and sends ``notifications/tools/list_changed``.

It serves only the initialize handshake (2025-11-25), as most servers in use today do: that
is where a server's change notification reaches the host's pool (on 2026-07-28 it goes on a
``subscriptions/listen`` stream, which the pool does not open).
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server import Server, ServerRequestContext
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

tools = [Tool(name="grow", description="Add a tool.", input_schema={"type": "object"})]


async def list_tools(
    ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
) -> ListToolsResult:
    return ListToolsResult(tools=tools)


async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
    name = f"grown_{len(tools)}"
    tools.append(Tool(name=name, description="A tool grown on request.", input_schema={"type": "object"}))
    await ctx.session.send_tool_list_changed()
    return CallToolResult(content=[TextContent(type="text", text=name)])


async def serve() -> None:
    server: Server[Any] = Server("changing", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write), server.lifespan(server) as state:
        await serve_loop(
            server, read, write, lifespan_state=state, init_options=server.create_initialization_options()
        )


if __name__ == "__main__":
    anyio.run(serve)
