"""A stand-in for a `gatehouse serve` endpoint, for what the real one does not do yet: resources
and prompts, a JSON-RPC error of its own, and a call that waits (with progress) until its client
gives up. Stateless Streamable HTTP at /mcp, as `gatehouse serve` serves.

``python -m tests.gatehouse.gateway.stand_in_endpoint PORT FOLDER`` (tests/http_servers.py
``serving``). The tool ``wait_for_reviewer`` reports progress, then waits (at most a minute);
when the call is cancelled it writes ``FOLDER/cancelled``, and the ``Authorization`` header each
request came with is appended to ``FOLDER/authorization``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from starlette.types import ASGIApp, Receive, Scope, Send

INSTRUCTIONS = "The stand-in endpoint's instructions."
MEMO = types.Resource(uri="memo://first", name="first", mime_type="text/plain")
MEMO_TEXT = "The first memo."
TEMPLATE = types.ResourceTemplate(uri_template="memo://{name}", name="memo")
PROMPT = types.Prompt(name="greeting", arguments=[types.PromptArgument(name="who", required=True)])
WAIT_TOOL = types.Tool(name="wait_for_reviewer", input_schema={"type": "object"})
RESOURCE_NOT_FOUND = -32002
WAIT_SECONDS = 60.0


def stand_in(folder: Path) -> Server[Any]:
    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[WAIT_TOOL])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        await ctx.session.report_progress(1, 2, "waiting for a reviewer")
        try:
            await anyio.sleep(WAIT_SECONDS)
        except anyio.get_cancelled_exc_class():
            (folder / "cancelled").write_text("cancelled", encoding="utf-8")
            raise
        return types.CallToolResult(content=[types.TextContent(type="text", text="nobody cancelled")])

    async def list_resources(ctx: ServerRequestContext[Any], params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[MEMO])

    async def list_templates(
        ctx: ServerRequestContext[Any], params: Any
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[TEMPLATE])

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        if str(params.uri) != MEMO.uri:
            raise MCPError(RESOURCE_NOT_FOUND, f"No memo at {params.uri}", {"uri": str(params.uri)})
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=MEMO.uri, mime_type="text/plain", text=MEMO_TEXT)]
        )

    async def list_prompts(ctx: ServerRequestContext[Any], params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[PROMPT])

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        who = (params.arguments or {}).get("who", "nobody")
        text = types.TextContent(type="text", text=f"Greet {who}.")
        return types.GetPromptResult(messages=[types.PromptMessage(role="user", content=text)])

    return Server(
        "stand-in",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def recording_authorization(app: ASGIApp, folder: Path) -> ASGIApp:
    async def recorded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            with (folder / "authorization").open("a", encoding="utf-8") as out:
                out.write(headers.get(b"authorization", b"").decode() + "\n")
        await app(scope, receive, send)

    return recorded


def main() -> None:
    port, folder = int(sys.argv[1]), Path(sys.argv[2])
    app = stand_in(folder).streamable_http_app(stateless_http=True)
    uvicorn.run(recording_authorization(app, folder), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
