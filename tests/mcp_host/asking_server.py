"""A stdio MCP server whose tool asks the person for input mid-call.

It asks the 2026-07-28 way (SEP-2322): the call returns an ``InputRequiredResult`` holding an
``elicitation/create`` request, and the client calls again with the answer. The host's pool
passes such requests to the same elicitation handler as the older server-initiated ones.
"""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult

server = MCPServer("hotel")

BOOKING_FORM = {
    "type": "object",
    "properties": {
        "guest": {"type": "string", "description": "Who stays", "default": "John Doe"},
        "nights": {"type": "integer", "description": "How many nights", "default": 2},
    },
}


@server.tool()
async def book_room(ctx: Context) -> str | InputRequiredResult:
    """Book a room, asking the guest's details."""
    answer = (ctx.input_responses or {}).get("booking")
    if not isinstance(answer, ElicitResult):
        question = ElicitRequestFormParams(
            message="Who is staying, and for how long?", requested_schema=BOOKING_FORM
        )
        return InputRequiredResult(input_requests={"booking": ElicitRequest(params=question)})
    if answer.action != "accept" or not answer.content:
        return f"not booked: {answer.action}"
    return f"booked {answer.content.get('nights')} nights for {answer.content.get('guest')}"


if __name__ == "__main__":
    server.run("stdio")
