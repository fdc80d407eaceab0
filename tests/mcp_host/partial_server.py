"""A stdio MCP server that declares resources and prompts but serves only some of their lists,
like servers in the wild: one widely used server answers ``resources/templates/list`` with
-32601 Method not found although it declares resources.

It always serves ``tools/list`` and the tool ``lookup`` (callable, so a test sees the rest of
the server works). Each optional list method is one of:

- ``served``: answers with one entry;
- ``missing``: not served (the low-level server answers -32601 Method not found; for
  ``resources/list``, which must have a handler for resources to be declared, the handler
  answers -32601 itself, and so does prompts/list, so that prompts stay declared);
- ``error``: its handler raises an MCPError (-32603, the server's own failure);
- ``hang``: never answers (the host's call timeout ends it).

Run: ``python -m tests.mcp_host.partial_server [--templates MODE] [--resources MODE]
[--prompts MODE]``; by default resources and prompts are served and templates are missing.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import anyio
import mcp.types as types
from mcp import MCPError
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server

Ctx = ServerRequestContext[Any, Any]
Paging = types.PaginatedRequestParams | None
MODES = ("served", "missing", "error", "hang")
# What a failing handler raises: JSON-RPC's internal error, with words a test can look for.
FAILURE = MCPError(code=types.INTERNAL_ERROR, message="the prompt store is offline")
LOOKUP = types.Tool(
    name="lookup",
    description="Look up a word in the glossary.",
    input_schema={"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]},
)


async def list_tools(ctx: Ctx, params: Paging) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[LOOKUP])


async def call_tool(ctx: Ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    word = (params.arguments or {}).get("word", "")
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"{word}: a word")])


async def list_resources(ctx: Ctx, params: Paging) -> types.ListResourcesResult:
    return types.ListResourcesResult(
        resources=[types.Resource(name="glossary", uri="glossary://all", mime_type="text/plain")]
    )


async def list_templates(ctx: Ctx, params: Paging) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(
        resource_templates=[types.ResourceTemplate(name="entry", uri_template="glossary://{word}")]
    )


async def list_prompts(ctx: Ctx, params: Paging) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=[types.Prompt(name="define", description="Define a word.")])


def _as(mode: str, served: Any, *, declares: bool = False) -> Any:
    """The handler for one optional list method in ``mode`` (None: not served). ``declares``:
    the capability is declared only when this handler is set."""
    if mode == "missing" and not declares:
        return None
    if mode == "served":
        return served

    async def failing(ctx: Ctx, params: Paging) -> Any:
        if mode == "hang":
            await anyio.sleep_forever()
        if mode == "missing":
            raise MCPError(code=types.METHOD_NOT_FOUND, message="Method not found")
        raise FAILURE

    return failing


def build(*, resources: str = "served", templates: str = "missing", prompts: str = "served") -> Server[Any]:
    return Server(
        "partial",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=_as(resources, list_resources, declares=True),
        on_list_resource_templates=_as(templates, list_templates),
        on_list_prompts=_as(prompts, list_prompts, declares=True),
    )


async def _serve(server: Server[Any]) -> None:
    async with stdio_server() as (read, write), server.lifespan(server) as state:
        await serve_loop(
            server, read, write, lifespan_state=state, init_options=server.create_initialization_options()
        )


def from_argv(argv: Sequence[str] | None = None) -> Server[Any]:
    """The server a command line (``[--templates MODE] [--resources MODE] [--prompts MODE]``) asks for."""
    parser = argparse.ArgumentParser()
    for name, default in (("resources", "served"), ("templates", "missing"), ("prompts", "served")):
        parser.add_argument(f"--{name}", choices=MODES, default=default)
    args = parser.parse_args(argv)
    return build(resources=args.resources, templates=args.templates, prompts=args.prompts)


def main() -> None:
    anyio.run(_serve, from_argv())


if __name__ == "__main__":
    main()
