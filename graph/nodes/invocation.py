"""build_mcp_request and invoke_mcp_capability: the MCP request built from the selection, sent
once, and a failure's errors, counters and review."""

from __future__ import annotations

import json
import random
import re
from typing import Any
from urllib.parse import quote

from langgraph.runtime import Runtime

from gatehouse_verify.grant import Why
from graph.accessors import (
    approval_for,
    errors_with,
    flag_data,
    proposed_arguments,
    request_data,
    result_data,
    selected_capability,
    validation,
    validation_with_flags,
)
from graph.context import CallOutcome, GraphContext
from graph.effect_readback import read_back
from graph.nodes.call_checks import changed_definition, moved_effect, outcome_unknown
from graph.state import ApprovedCall, FlagData, GraphState, McpMethod, McpRequest
from mcp_host.approvals import CallApproval, approved_for
from mcp_host.client import McpClient
from mcp_host.elicitation import CallOwner, on_behalf_of
from mcp_host.errors import TRANSPORT_KINDS, ErrorInfo, McpHostError
from mcp_host.results import McpResult
from telemetry.spans import failed, tool_execution
from telemetry.switch import capture_arguments, tracing

_TEMPLATE_VARIABLE = re.compile(r"\{([A-Za-z0-9_]+)\}")


def _expand(template: str, arguments: dict[str, Any]) -> str:
    return _TEMPLATE_VARIABLE.sub(lambda m: quote(str(arguments.get(m.group(1), "")), safe=""), template)


_METHOD_OF: dict[str, McpMethod] = {"tool": "tools/call", "prompt": "prompts/get"}


def build_mcp_request(state: GraphState) -> GraphState:
    """Turn the selection and its arguments into the MCP request for its server.

    Reads ``selected_capability``, ``proposed_arguments``. Writes ``mcp_request``. No I/O: a
    re-run computes the same request.

    Args:
        state: the request's state with an allowed (or approved) selection.

    Returns:
        The request.

    Raises:
        ValueError: nothing is selected (a routing bug).
    """
    capability = selected_capability(state)
    arguments = dict(proposed_arguments(state))
    uri = capability.uri
    if capability.type == "resource_template" and capability.uri_template:
        uri = _expand(capability.uri_template, arguments)
    if capability.type == "prompt":
        arguments = {name: str(value) for name, value in arguments.items()}
    request = McpRequest(
        server=capability.server,
        capability_key=capability.key,
        capability_type=capability.type,
        method=_METHOD_OF.get(capability.type, "resources/read"),
        name=capability.name,
        arguments=arguments if capability.type in {"tool", "prompt"} else {},
        uri=uri,
    )
    return {"mcp_request": request_data(request)}


# What each kind of capability is as a GenAI tool (gen_ai.tool.type): a tool or a prompt runs
# on the server (an extension of the agent); a resource is data read from a store.
_TOOL_TYPE = {"tools/call": "extension", "prompts/get": "extension", "resources/read": "datastore"}


def _traced_call(
    state: GraphState,
    runtime: Runtime[GraphContext],
    request: McpRequest,
    owner: CallOwner,
    approval: CallApproval | None,
) -> McpResult:
    """The call as an ``execute_tool`` span of the request's trace (telemetry/spans.py; nothing
    when tracing is off). Argument values go on it only when explicitly enabled, secrets hidden;
    so does a resource's address only when it is not built from arguments. What takes hiding
    secrets is done only for a span that records (a sampled trace)."""
    if not tracing():
        return _call(runtime.context.mcp, request, owner, approval)
    reviewed = owner.review_id
    attributes: dict[str, Any] = {
        "gatehouse.capability.key": request.capability_key,
        "gatehouse.mcp.server": request.server,
        "mcp.method.name": request.method,
        "gen_ai.conversation.id": state["thread_id"],
    }
    if reviewed is not None:
        attributes["gatehouse.review.id"] = reviewed
    policy = runtime.context.policy

    def shown() -> dict[str, Any]:
        values: dict[str, Any] = {}
        if request.uri and (request.capability_type == "resource" or capture_arguments()):
            values["mcp.resource.uri"] = policy.hide_secrets(request.uri)
        if capture_arguments():
            hidden = policy.hide_secrets(request.arguments, thread_id=state["thread_id"])
            values["gen_ai.tool.call.arguments"] = json.dumps(hidden, sort_keys=True, default=str)
        return values

    with tool_execution(
        request.name,
        call_id=_call_id(),
        tool_type=_TOOL_TYPE.get(request.method, "extension"),
        attributes=attributes,
        recorded_only=shown,
    ) as span:
        result = _call(runtime.context.mcp, request, owner, approval)
        if span is not None and span.is_recording() and result.error is not None:
            failed(span, result.error.kind, policy.hide_secrets(result.error.message))
        return result


def _call_id() -> str:
    """A call's ``gen_ai.tool.call.id``: 128 random bits, as the SDK makes a trace id. Not
    uuid4: os.urandom is a system call that lets go of the GIL, and here, while LangGraph's
    checkpoint writer is busy with the step before, the request waits for it to give the GIL
    back (measured in figure 14's warm request: about half a millisecond, median)."""
    return f"{random.getrandbits(128):032x}"


def _call(mcp: McpClient, request: McpRequest, owner: CallOwner, approval: CallApproval | None) -> McpResult:
    try:
        # A question the server asks during the call is put to the person who made the request;
        # a side-effecting call carries a grant saying why it may run (mcp_host/approvals.py).
        with on_behalf_of(owner), approved_for(approval):
            return _send(mcp, request)
    except McpHostError as exc:
        error = ErrorInfo(kind="unavailable", message=str(exc))
        return McpResult.failure(request.server, request.capability_type, request.name, error)


def _send(mcp: McpClient, request: McpRequest) -> McpResult:
    if request.method == "tools/call":
        return mcp.call_tool(request.server, request.name, request.arguments)
    if request.method == "prompts/get":
        return mcp.get_prompt(request.server, request.name, request.arguments)
    return mcp.read_resource(request.server, request.uri or "")


def _call_outcome(result: McpResult) -> CallOutcome:
    if result.error is None:
        return "executed"
    if not result.error.sent:
        return "not_run"
    return "outcome_unknown" if result.error.may_have_run else "failed"


def _only_reads(state: GraphState, request: McpRequest) -> bool:
    """Whether repeating the call is harmless: resources and prompts are reads by protocol; a
    tool only when the policy's engine positively rated it a low-risk read."""
    if request.method != "tools/call":
        return True
    return validation(state).get("risk") == "low"


def _call_approval(
    state: GraphState, request: McpRequest, reviewed: ApprovedCall | None
) -> CallApproval | None:
    """Why a side-effecting tool call may run, for the signed grant it carries to its server
    (a server that verifies refuses such a call without one): the review that approved it and
    who did, the remembered approval (grant) it runs under, or the policy rule that allowed it.
    None for a read (nothing to approve)."""
    if _only_reads(state, request):
        return None
    checked = validation(state)
    granted = checked.get("grant")
    if reviewed is not None:
        why = Why.review(reviewed["review_id"], reviewed["by"])
    elif granted:
        # A call the rules sent to review, run under a reviewer's remembered approval.
        why = Why.remembered(granted["id"])
    else:
        # A call no review held was allowed by the policy: by its rule, or by its defaults.
        why = Why.policy(checked.get("matched_rule") or "defaults")
    return CallApproval(why=why, policy_version=checked.get("policy_version"))


def _failure_update(
    state: GraphState,
    runtime: Runtime[GraphContext],
    request: McpRequest,
    result: McpResult,
    update: GraphState,
) -> GraphState:
    """A failed call's errors and counters, and a person's turn when retrying is unsafe
    (it may have run), futile (authentication) or over its limit (transport failures)."""
    assert result.error is not None
    error = result.error
    # An error message is the server's words: one that reads like instructions is not quoted
    # anywhere (errors, reasons); integrate_result holds such a message for a reviewer.
    suspicious = runtime.context.policy.scan_output(error.message)
    quoted = "(its message is withheld: it reads like instructions)" if suspicious else error.message
    update = update | {"errors": errors_with(state, f"{request.capability_key}: {error.kind}: {quoted}")}
    failures = state.get("transport_failures", 0)
    if error.kind in TRANSPORT_KINDS:
        failures += 1
        update["transport_failures"] = failures
    limit = runtime.context.limits.max_transport_failures
    flags: list[FlagData] = []
    if error.may_have_run and not _only_reads(state, request):
        # The request reached the server and its answer was lost: it may have acted. Trying
        # again (or another candidate) could do it twice, so a person decides, knowing that.
        reason = (
            f"{request.capability_key} was sent and then {error.kind} ({quoted}): it may have run. "
            "It is not retried automatically; check its effect before approving it again"
        )
        flags.append(flag_data("outcome_unknown", "critical", reason))
    elif error.kind == "auth":
        reason = f"authentication failed at {request.server}; it is never retried automatically"
        flags.append(flag_data("auth_failure", "high", reason))
    elif failures >= limit:
        reason = f"{failures} transport failures in this request (limit {limit}); the last: {quoted}"
        flags.append(flag_data("repeated_transport_failure", "high", reason))
    else:
        return update
    if suspicious:
        flags.append(
            flag_data(
                "suspicious_text", "high", f"{request.capability_key} error message: {'; '.join(suspicious)}"
            )
        )
    return update | {
        "review_stage": "after_failure",
        "needs_human_review": True,
        "fallback_reason": reason,
        "capability_validation": validation_with_flags(state, *flags),
    }


def invoke_mcp_capability(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Make the call, once: a reviewed call only under its approval, and never twice.

    Reads ``mcp_request``, ``approved_call``, ``selected_capability``,
    ``capability_validation``, ``thread_id``, ``requester``, ``invoke_attempts``,
    ``transport_failures``, ``tried_capabilities``, ``errors``. Writes ``mcp_result``,
    ``invoke_attempts``, ``tried_capabilities``, and for a failure ``errors``, possibly
    ``transport_failures``; when a person must look (a changed definition, a file that is no
    longer what the approval was given on, an outcome nobody knows, an unsafe or futile retry)
    ``review_stage``, ``needs_human_review``,
    ``fallback_reason``, ``capability_validation`` and possibly ``approved_call``,
    ``previous_definition``, ``selected_capability``.

    I/O: lists the server's offer again for a reviewed call, reads the file a reviewed write
    was bound to again (its server's read tool, graph/effects.py), calls the server, and records a
    reviewed call's start and end in the ledger (``reviews.call_starting`` and
    ``call_finished``). On a re-run after a crash the ledger refuses the second start, so a
    reviewed call is never sent twice: its recorded result is used, or a person decides. An
    unreviewed call (allowed by the policy) is sent again on a re-run.

    Args:
        state: the request's state with ``mcp_request`` built.
        runtime: the run's context (its MCP client, review hooks, policy, limits).

    Returns:
        The result and what it implies.
    """
    request = McpRequest.model_validate(state["mcp_request"])
    hooks = runtime.context.reviews
    changed = changed_definition(state, runtime.context, request.capability_key)
    if changed is not None:
        return changed
    approved = approval_for(state, request.capability_key)
    reviewed = approved if approved is not None and approved["review_id"] else None
    moved = moved_effect(state, runtime.context, request, reviewed) if reviewed is not None else None
    if moved is not None:
        return moved
    result: McpResult | None = None
    if reviewed is not None and not hooks.call_starting(
        reviewed["review_id"], reviewed["call_hash"], state["thread_id"]
    ):
        # Started before (this thread is being continued after a crash): never call again.
        # A recorded result is the call's own; without one nobody knows whether it ran.
        recorded = hooks.recorded_result(reviewed["review_id"])
        if recorded is None:
            return outcome_unknown(state, reviewed["review_id"])
        result = McpResult.model_validate(recorded)
    fresh = result is None
    if result is None:
        # Everyone behind the call, so that a server's request during it (a question, a
        # request for a model completion) is put to, or kept from, the right people.
        owner = CallOwner(
            thread_id=state["thread_id"],
            requester=state.get("requester") or "operator",
            contributors=tuple(state.get("contributors", [])),
            review_id=reviewed["review_id"] if reviewed is not None else None,
        )
        result = _traced_call(state, runtime, request, owner, _call_approval(state, request, reviewed))
        if reviewed is not None:
            hooks.call_finished(reviewed["review_id"], _call_outcome(result), result.model_dump(mode="json"))
    update: GraphState = {
        "mcp_result": result_data(result),
        "invoke_attempts": state.get("invoke_attempts", 0) + 1,
        "tried_capabilities": [*state.get("tried_capabilities", []), request.capability_key],
    }
    if result.error is None:
        if reviewed is not None and fresh:
            return update | read_back(state, runtime.context, request, result, reviewed["review_id"])
        return update
    return _failure_update(state, runtime, request, result, update)
