"""What sends a reviewed call back to a person right before it is sent: a changed definition,
a target file that is no longer what the approval was given on, or a start with no recorded
result; and what ends it unsent: a server that cannot be reached."""

from __future__ import annotations

from graph.accessors import (
    approval_for,
    capability_data,
    errors_with,
    flag_data,
    result_data,
    selected_capability,
    selection,
    validation_with_flags,
)
from graph.context import GraphContext
from graph.effects import observe, what_changed
from graph.nodes.shared import current_listing, server_down
from graph.state import ApprovedCall, EffectBinding, GraphState, McpRequest
from mcp_host.errors import ErrorInfo
from mcp_host.results import McpResult

# What a reviewer approves besides the name: a change to any of these voids an approval.
_DEFINITION_FIELDS = ("description", "input_schema", "output_schema", "annotations")


def _request_server(state: GraphState) -> str:
    request = state.get("mcp_request")
    if request and request["server"]:
        return request["server"]
    selected = state.get("selected_capability")
    return selected["server"] if selected else ""


def changed_definition(state: GraphState, context: GraphContext, key: str) -> GraphState | None:
    """For a reviewed call: the update that sends it back to review if its definition changed,
    or that ends it unsent (not_sent) when its server cannot be reached to tell.

    The approval covers the definition the reviewer saw. The definition is read again right
    before the call (see current_listing), so a server that swaps a tool's description or
    schema after approval (a "rug pull") gets a new review, not an execution.
    """
    approved = approval_for(state, key)
    if approved is None:
        return None
    server = _request_server(state)
    listing = current_listing(context, server)
    current = listing.find(key)
    if current is not None and current.fingerprint == approved["fingerprint"]:
        return None
    down = server_down(listing, server) if current is None else None
    if down is not None:
        # Not a changed definition: the server cannot be reached, so nothing can take the call.
        # Another review could not change that; the run ends, saying why.
        return not_sent(state, down)
    old = selected_capability(state)
    if current is None:
        message = f"{key} is no longer offered by its server; the approval no longer applies"
    else:
        fields = [f for f in _DEFINITION_FIELDS if getattr(old, f) != getattr(current, f)]
        changed = ", ".join(fields) or "definition"
        message = f"{key} changed since it was approved ({changed}); it needs a new review"
    update: GraphState = {
        "approved_call": None,
        "review_stage": "before_execution",
        "needs_human_review": True,
        "fallback_reason": message,
        "capability_validation": validation_with_flags(
            state, flag_data("definition_changed", "critical", message)
        ),
        "errors": errors_with(state, message),
    }
    if current is not None:
        update["previous_definition"] = capability_data(old)
        update["selected_capability"] = {**selection(state), **capability_data(current)}
    return update


def moved_effect(
    state: GraphState, context: GraphContext, request: McpRequest, approved: ApprovedCall
) -> GraphState | None:
    """For a reviewed call: the update that sends it back to review if the file it writes is
    no longer what its approvers were shown (created, deleted, edited, or its path now a
    symlink to another file since the preview). None when it is, or when nothing was bound.

    This is as close to the call as the host can get: the server is asked what the path holds
    (its read tool) and then asked to write it, two requests apart. What remains is out of the
    host's reach: a change in between those two requests, and a server that resolves the path
    otherwise when it writes than when it reads, or lies about what it read.
    """
    bound = [EffectBinding.model_validate(data) for data in approved.get("effects") or []]
    # A call whose start was recorded may have written the file itself (the thread is continued
    # after a crash): the run-once journal decides about it, not this check.
    if not bound or context.reviews.call_started(approved["review_id"]):
        return None
    called = {"type": request.capability_type, "server": request.server, "name": request.name}
    now = observe(context.mcp, context.policy, called, request.arguments)
    reasons = [why for why in (what_changed(one, now) for one in bound) if why is not None]
    if not reasons:
        return None
    message = (
        f"{request.capability_key} was not called: {'; '.join(dict.fromkeys(reasons))}. "
        "It needs a new review of what is there now"
    )
    return {
        "approved_call": None,
        "review_stage": "before_execution",
        "needs_human_review": True,
        "fallback_reason": message,
        "capability_validation": validation_with_flags(
            state, flag_data("target_changed", "critical", message)
        ),
        "errors": errors_with(state, message),
    }


def outcome_unknown(state: GraphState, review_id: str) -> GraphState:
    """The approved call was started before and its result never recorded (the process died).
    It is not run again by itself: a person decides, knowing it may have run."""
    message = (
        f"the call approved in review {review_id} was started before and its result was never recorded; "
        "it may have run, so it is not run again without a new decision"
    )
    return {
        "approved_call": None,
        "review_stage": "after_failure",
        "needs_human_review": True,
        "fallback_reason": message,
        "capability_validation": validation_with_flags(
            state, flag_data("outcome_unknown", "critical", message)
        ),
        "errors": errors_with(state, message),
    }


def not_sent(state: GraphState, why: ErrorInfo) -> GraphState:
    """For a reviewed call whose server cannot be reached right before it (its process cannot
    start, say): the call is not made, and the run ends with the server's reason. Its start is
    never recorded, so the approval ends ``not_run`` (reviews/service.py), not "it may have run";
    nothing could have reached the server."""
    request = McpRequest.model_validate(state["mcp_request"])
    message = f"{request.server} is not available, so the call was not sent: {why.message}"
    error = ErrorInfo(kind="unavailable", message=message, sent=False, may_have_run=False)
    result = McpResult.failure(request.server, request.capability_type, request.name, error)
    return {
        "mcp_result": result_data(result),
        "invoke_attempts": state.get("invoke_attempts", 0) + 1,
        "tried_capabilities": [*state.get("tried_capabilities", []), request.capability_key],
        "errors": errors_with(state, f"{request.capability_key}: {error.kind}: {message}"),
    }
