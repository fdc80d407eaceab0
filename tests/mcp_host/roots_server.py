"""A stdio MCP server whose tool asks the host for its roots and answers with what it got.

Run plainly it serves either protocol era; the host's pool negotiates 2026-07-28 with it, where
a tool asks for roots within its call (an ``InputRequiredResult`` holding ``roots/list``, which
the SDK's ``ListRoots`` resolver sends). With ``--handshake`` it serves only the initialize
handshake (2025-11-25), like most servers in use today (server-filesystem among them): the
tool sends ``roots/list`` to the host mid-call, and a ``notifications/roots/list_changed`` makes
it ask for the roots again and keep the answer, as server-filesystem does.

Tools: ``roots`` (ask now), ``write_file`` (inside the roots only, 2026-07-28), ``heard`` (the
roots fetched after each change notification, handshake only).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import unquote, urlsplit

import anyio
from mcp.server import Server, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import ListRoots, Resolve
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.types import (
    CallToolRequestParams,
    CallToolResult,
    ListRootsResult,
    ListToolsResult,
    NotificationParams,
    PaginatedRequestParams,
    TextContent,
    Tool,
)


def described(result: ListRootsResult) -> list[dict[str, str | None]]:
    return [{"uri": str(root.uri), "name": root.name} for root in result.roots]


# -- either era (the pool speaks 2026-07-28 with it) -----------------------------------------

server = MCPServer("roots")


def ask_for_roots() -> ListRoots:
    return ListRoots()


@server.tool()
async def roots(answer: Annotated[ListRootsResult, Resolve(ask_for_roots)]) -> str:
    """The host's roots, as the host answered roots/list."""
    return json.dumps(described(answer))


@server.tool()
async def write_file(
    path: str, content: str, answer: Annotated[ListRootsResult, Resolve(ask_for_roots)]
) -> str:
    """Write a text file (an absolute path) inside one of the host's roots."""
    target = Path(path).resolve()
    folders = [Path(unquote(urlsplit(str(root.uri)).path)).resolve() for root in answer.roots]
    if not any(target == folder or folder in target.parents for folder in folders):
        raise ToolError(f"{path} is outside the roots")
    target.write_text(content, encoding="utf-8")
    return f"wrote {len(content)} characters to {target}"


# -- the handshake era only --------------------------------------------------------------------

TOOLS = [
    Tool(name="roots", description="The host's roots, asked now.", input_schema={"type": "object"}),
    Tool(name="heard", description="The roots asked for after each change.", input_schema={"type": "object"}),
]
heard: list[list[dict[str, str | None]]] = []


async def ask_host(ctx: ServerRequestContext[Any]) -> list[dict[str, str | None]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # roots are deprecated as of 2026-07-28; this era has them
        return described(await ctx.session.list_roots())


async def list_tools(
    ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
) -> ListToolsResult:
    return ListToolsResult(tools=TOOLS)


async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
    text = json.dumps(await ask_host(ctx) if params.name == "roots" else heard)
    return CallToolResult(content=[TextContent(type="text", text=text)])


async def roots_changed(ctx: ServerRequestContext[Any], params: NotificationParams | None) -> None:
    heard.append(await ask_host(ctx))


async def serve_handshake_only() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # on_roots_list_changed is deprecated with roots
        lowlevel: Server[Any] = Server(
            "roots-handshake",
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_roots_list_changed=roots_changed,
        )
    async with stdio_server() as (read, write), lowlevel.lifespan(lowlevel) as state:
        await serve_loop(
            lowlevel, read, write, lifespan_state=state, init_options=lowlevel.create_initialization_options()
        )


if __name__ == "__main__":
    if "--handshake" in sys.argv[1:]:
        anyio.run(serve_handshake_only)
    else:
        server.run("stdio")
