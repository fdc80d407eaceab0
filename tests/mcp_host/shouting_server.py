"""A stdio MCP server whose ``shout`` tool prints one line far longer than the host reads, then
answers; ``whisper`` answers briefly.

`python -m tests.mcp_host.shouting_server BYTES`. The long line is not JSON-RPC and names no
request, so the host cannot refuse it by failing one call (see mcp_host/stdio_transport.py). It
serves on the real stdout (as tests/adversarial/garbage_stdout_server.py does) so the line lands
on the wire."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

_NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}


def build_server(size: int) -> Server[Any]:
    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name=name, input_schema=_NO_ARGUMENTS) for name in ("shout", "whisper")]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name == "shout":
            print("a" * size, flush=True)
            return types.CallToolResult(content=[types.TextContent(type="text", text="done")])
        return types.CallToolResult(content=[types.TextContent(type="text", text="psst")])

    return Server("shouting", on_list_tools=list_tools, on_call_tool=call_tool)


async def _serve(size: int) -> None:
    server = build_server(size)
    async with stdio_server(stdout=anyio.wrap_file(sys.stdout)) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve, int(sys.argv[1]))
