"""A stdio MCP server whose tools/list never ends: every page names a next cursor never seen
before, so a client that follows cursors stops only at its own limit (mcp_host/sdk_client.py
MAX_LIST_PAGES). Each page carries the same tool."""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server


async def list_tools(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    cursor = params.cursor if params is not None and params.cursor else "0"
    tool = types.Tool(name="lookup", input_schema={"type": "object", "properties": {}})
    return types.ListToolsResult(tools=[tool], next_cursor=str(int(cursor) + 1))


server: Server[Any] = Server("endless", on_list_tools=list_tools)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
