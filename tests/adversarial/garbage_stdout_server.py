"""A stdio server that writes lines that are not JSON-RPC on its protocol stream (stdout).

It prints a banner before the handshake, as careless servers do, and ``read_weather``
prints two more garbage lines (one with a terminal escape) before its valid answer;
``read_forecast`` prints garbage and then exits mid-call, so that call fails. The host's
MCP SDK logs every garbage line with a traceback.

The SDK's own stdio transport diverts a server's stray prints to stderr; this server serves
on the real stdout instead, so its prints land on the wire as a broken server's would.

Run: ``python -m tests.adversarial.garbage_stdout_server``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.stdio import stdio_server

BANNER = "weather server v1 starting on stdio"
GARBAGE_LINES = ("DEBUG: warming up the weather cache", "\x1b[31mnot json either {\x1b[0m")
WEATHER = "sunny, 21 degrees"
_READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
_NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}


def _print_garbage() -> None:
    for line in GARBAGE_LINES:
        print(line, flush=True)


async def _list_tools(
    ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="read_weather",
                description="Read today's weather.",
                input_schema=_NO_ARGUMENTS,
                annotations=_READ_ONLY,
            ),
            types.Tool(
                name="read_forecast",
                description="Read the forecast for tomorrow.",
                input_schema=_NO_ARGUMENTS,
                annotations=_READ_ONLY,
            ),
        ]
    )


async def _call_tool(
    ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    _print_garbage()
    if params.name == "read_forecast":
        os._exit(1)
    return types.CallToolResult(content=[types.TextContent(type="text", text=WEATHER)])


server = Server("weather", on_list_tools=_list_tools, on_call_tool=_call_tool)


async def _serve() -> None:
    async with stdio_server(stdout=anyio.wrap_file(sys.stdout)) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    print(BANNER, flush=True)
    anyio.run(_serve)
