"""integrate_result: a call's result made context, or held for a reviewer."""

from __future__ import annotations

import json

from langgraph.runtime import Runtime

from graph.accessors import error_data, flag_data, validation_with_flags
from graph.context import GraphContext
from graph.results_view import context_from, readable_text
from graph.state import FlagData, GraphState
from mcp_host.errors import ErrorInfo
from mcp_host.results import McpResult


def _held_error(state: GraphState, result: McpResult, error: ErrorInfo, suspicious: list[str]) -> GraphState:
    """A failed call whose message reads like instructions: held for a reviewer, and the
    errors already recorded name the failure without quoting it."""
    source = f"{result.server}/{result.name}"
    message = f"{source} error message: {'; '.join(suspicious)}"
    withheld = f"{source} failed ({error.kind}); its message is held for a reviewer"
    return {
        "review_stage": "untrusted_output",
        "needs_human_review": True,
        "fallback_reason": message,
        "capability_validation": validation_with_flags(state, flag_data("suspicious_text", "high", message)),
        "errors": [
            withheld if error.message and error.message in e else e for e in state.get("errors") or []
        ],
    }


def _output_problem(runtime: Runtime[GraphContext], result: McpResult) -> FlagData | None:
    """Why a successful result cannot become context without a person: the host could not
    trust it, it reads like instructions, or the agent cannot read it."""
    source = f"{result.server}/{result.name}"
    structured_text = json.dumps(result.structured, ensure_ascii=False) if result.structured else ""
    suspicious = runtime.context.policy.scan_output(f"{readable_text(result)}\n{structured_text}")
    if result.untrusted:
        why = result.untrusted_reason or "it failed the host's checks"
        return flag_data(
            "untrusted_output", "high", f"{source} returned output that cannot be trusted: {why}"
        )
    if suspicious:
        # Output is data: instructions inside it are shown to a person, never followed.
        return flag_data("suspicious_text", "high", f"{source} output: {'; '.join(suspicious)}")
    if runtime.context.policy.output.opaque(result):
        types = ", ".join(sorted({item.mime_type or item.type for item in result.content}))
        return flag_data(
            "opaque_output", "medium", f"{source} returned only {types}, which the agent cannot read"
        )
    return None


def integrate_result(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Turn the call's result into context, or hold it for a reviewer.

    Reads ``mcp_result``, ``capability_validation``, ``errors``. Writes ``context_update`` and
    ``status``; or, for output a person must see first (untrusted, suspicious, opaque, or a
    failure whose message reads like instructions) ``review_stage``, ``needs_human_review``,
    ``fallback_reason``, ``capability_validation`` and possibly ``errors``; for another
    failure ``status``, ``context_update`` and ``fallback_reason``. No I/O (the policy only
    scans text): a re-run computes the same update.

    Args:
        state: the request's state with ``mcp_result``.
        runtime: the run's context (its policy).

    Returns:
        The context, or the reason it is held.
    """
    result = McpResult.model_validate(state["mcp_result"])
    source = f"{result.server}/{result.name}"
    if not result.success:
        error = result.error or ErrorInfo(kind="tool_error", message="unknown failure")
        # An error message is the server's words too: scanned like output.
        suspicious = runtime.context.policy.scan_output(f"{error.message}\n{readable_text(result)}")
        if suspicious:
            return _held_error(state, result, error, suspicious)
        return {
            "status": "error",
            "context_update": {"source": source, "error": error_data(error)},
            "fallback_reason": f"{source} failed ({error.kind}): {error.message}",
        }
    problem = _output_problem(runtime, result)
    if problem is not None:
        return {
            "review_stage": "untrusted_output",
            "needs_human_review": True,
            "fallback_reason": problem["message"],
            "capability_validation": validation_with_flags(state, problem),
        }
    return {"context_update": context_from(result), "status": "ok"}
