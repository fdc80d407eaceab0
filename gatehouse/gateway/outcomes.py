"""A run of the graph for an MCP client's call, as the MCP result the client receives.

Allowed and run: the server's content (text as it came, capped by the host; other kinds named,
not yet passed on) and its structured content. Anything else is a tool error in words an agent
can act on: refused (the rule and its reason), waiting for a reviewer (the review's id, where
a person decides, and what asking again does), or failed (why)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp_types as types

if TYPE_CHECKING:
    from graph.runner import RunOutcome


def error_result(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _content(item: dict[str, Any]) -> types.TextContent:
    if item.get("text") is not None:
        return types.TextContent(type="text", text=item["text"])
    what = " ".join(str(part) for part in (item.get("type"), item.get("mime_type"), item.get("uri")) if part)
    return types.TextContent(
        type="text", text=f"[{what}, {item.get('size', 0)} bytes: not passed on by Gatehouse's endpoint yet]"
    )


# What happens once a reviewer decides, by the stage the review was opened at.
_AFTER_REVIEW = {
    "before_execution": "When a reviewer approves it, Gatehouse runs this call once itself",
    "untrusted_output": "The call ran; its result is held until a reviewer releases it",
    "after_failure": "The call failed in a way a person must look at before anything is tried again",
}


def _waiting(run: RunOutcome, requester: str) -> types.CallToolResult:
    pending = run.pending
    assert pending is not None
    then = _AFTER_REVIEW.get(pending["stage"], _AFTER_REVIEW["before_execution"])
    return error_result(
        f"{run.final_output.response.strip()}\n"
        f"Review {pending['review_id']} waits on Gatehouse's Reviews page (requested by {requester}). "
        f"{then}; this endpoint does not wait for the decision yet. Calling the tool again opens a new "
        "review (unless a grant a reviewer made covers the call)."
    )


def result_of(run: RunOutcome, requester: str) -> types.CallToolResult:
    """The MCP result of a client's call, from the graph's run of it."""
    state = run.state
    if run.pending is not None and run.pending["stage"] != "clarification":
        return _waiting(run, requester)
    validation = state.get("capability_validation") or {}
    if validation.get("decision") == "deny":
        return error_result(
            f"Refused by Gatehouse's policy (rule {validation.get('matched_rule')}): {validation.get('explanation')}"
        )
    result = state.get("mcp_result")
    if run.final_output.status == "ok" and result is not None and result["success"]:
        return types.CallToolResult(
            content=[_content(dict(item)) for item in result["content"]],
            structured_content=result["structured"],
        )
    reasons = [run.final_output.response.strip(), *run.final_output.errors]
    return error_result("\n".join(dict.fromkeys(r for r in reasons if r)))
