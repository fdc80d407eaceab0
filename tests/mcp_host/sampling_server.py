"""A stdio MCP server whose tool asks the host for a model completion mid-call
(``sampling/createMessage``) and returns the text it got, or the error it got instead.

By default it speaks the 2026-07-28 protocol, as every server on this SDK does: the call
returns an ``InputRequiredResult`` holding the sampling request, and the client calls again
with the answer. A refusal never reaches such a server (the client does not call again: the
call fails on the host's side). Run with ``--legacy`` it serves only the handshake era
(2025-11-25 and before), as older servers do: the request goes to the host as a JSON-RPC
request of its own, and a refusal comes back to the server as a JSON-RPC error, which the
tool reports as its result.
"""

from __future__ import annotations

import sys
import warnings

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    InputRequiredResult,
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    TextContent,
)

server = MCPServer("writer")

SYSTEM_PROMPT = "You write short, polite replies."
MAX_TOKENS = 120


def ask_for(message: str) -> CreateMessageRequestParams:
    return CreateMessageRequestParams(
        messages=[
            SamplingMessage(
                role="user", content=TextContent(type="text", text=f"Draft a reply to: {message}")
            )
        ],
        system_prompt=SYSTEM_PROMPT,
        max_tokens=MAX_TOKENS,
        model_preferences=ModelPreferences(hints=[ModelHint(name="claude-haiku")], speed_priority=0.8),
        include_context="none",
    )


def reply_text(answer: CreateMessageResult) -> str:
    content = answer.content
    text = content.text if isinstance(content, TextContent) else f"({content.type} content)"
    return f"draft by {answer.model}: {text}"


@server.tool()
async def draft_reply(message: str, ctx: Context) -> str | InputRequiredResult:
    """Draft a reply to a message with the host's language model."""
    params = ask_for(message)
    if ctx.protocol_version != "2026-07-28":
        try:
            with warnings.catch_warnings():  # sampling is deprecated in 2026-07-28, not before it
                warnings.simplefilter("ignore")
                answer = await ctx.request_context.session.create_message(
                    params.messages,
                    max_tokens=params.max_tokens,
                    system_prompt=params.system_prompt,
                    model_preferences=params.model_preferences,
                    include_context=params.include_context,
                )
        except MCPError as exc:
            return f"the host refused: {exc.error.message}"
        return reply_text(answer)
    response = (ctx.input_responses or {}).get("draft")
    if not isinstance(response, CreateMessageResult):
        return InputRequiredResult(input_requests={"draft": CreateMessageRequest(params=params)})
    return reply_text(response)


async def serve_handshake_era_only() -> None:
    """Serve only the initialize handshake: the client's 2026-07-28 probe is refused, so it
    falls back to the handshake, as with a server built on an older SDK."""
    # The SDK's own serving loop, in its handshake-only mode.
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read, write), lowlevel.lifespan(lowlevel) as state:
        await serve_loop(
            lowlevel, read, write, lifespan_state=state, init_options=lowlevel.create_initialization_options()
        )


if __name__ == "__main__":
    if "--legacy" in sys.argv[1:]:
        anyio.run(serve_handshake_era_only)
    else:
        server.run("stdio")
