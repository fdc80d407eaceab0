"""Conditional edges. Each returns the name of the next node and raises on impossible state."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime

from graph.accessors import validation
from graph.context import GraphContext
from graph.fallback import excluded_capabilities
from graph.state import GraphState
from mcp_host.errors import RECOVERABLE_KINDS
from mcp_host.reported import InternalError


class ImpossibleStateError(InternalError, RuntimeError):
    """The state contradicts the graph's own invariants: a bug, never a user error."""


def after_preprocess(state: GraphState) -> Literal["classify_intent", "generate_final_response"]:
    return "generate_final_response" if state.get("status") == "error" else "classify_intent"


def after_classify(state: GraphState) -> Literal["answer_without_mcp", "discover_capabilities"]:
    return "answer_without_mcp" if state.get("operation_type") == "none" else "discover_capabilities"


def after_discover(state: GraphState) -> Literal["select_capability", "answer_without_mcp"]:
    if state.get("status") == "error" or state.get("fallback_reason"):
        return "answer_without_mcp"
    return "select_capability"


def after_select(state: GraphState) -> Literal["validate_capability", "answer_without_mcp"]:
    return "validate_capability" if state.get("selected_capability") else "answer_without_mcp"


def after_validate(
    state: GraphState,
) -> Literal["build_mcp_request", "mark_needs_review", "answer_without_mcp"]:
    decision = validation(state).get("decision")
    if decision == "allow":
        return "build_mcp_request"
    if decision in {"review", "clarify"}:
        return "mark_needs_review"
    if decision in {"deny", "unusable"}:
        return "answer_without_mcp"
    raise ImpossibleStateError(f"validate_capability left an unknown decision: {decision!r}")


def _has_alternative(state: GraphState, min_score: float) -> bool:
    # After a tool error only the same tool on another server counts (graph/fallback.py).
    excluded = excluded_capabilities(state)
    return any(
        c["key"] not in excluded and c["score"] >= min_score for c in state.get("candidate_capabilities", [])
    )


def after_invoke(
    state: GraphState, runtime: Runtime[GraphContext]
) -> Literal["integrate_result", "select_capability", "mark_needs_review"]:
    # A failure a person must see, or a reviewed definition that changed before the call.
    if state.get("review_stage") in {"after_failure", "before_execution"}:
        return "mark_needs_review"
    result = state.get("mcp_result")
    if result is None:
        raise ImpossibleStateError("invoke_mcp_capability ran without recording a result")
    error = result["error"]
    limits = runtime.context.limits
    if (
        error is not None
        and error["kind"] in RECOVERABLE_KINDS
        and state.get("invoke_attempts", 0) < limits.max_invoke_attempts
        and _has_alternative(state, limits.min_score)
    ):
        return "select_capability"
    return "integrate_result"


def after_integrate(state: GraphState) -> Literal["generate_final_response", "mark_needs_review"]:
    return (
        "mark_needs_review" if state.get("review_stage") == "untrusted_output" else "generate_final_response"
    )


def after_review(
    state: GraphState,
) -> Literal["build_mcp_request", "validate_capability", "select_capability", "generate_final_response"]:
    record = state.get("review")
    if not record:
        raise ImpossibleStateError("mark_needs_review finished without recording a decision")
    action = record["decision"]["action"]
    stage = record["stage"]
    if action in {"reject", "expire", "cancel"}:
        return "generate_final_response"
    if stage == "clarification":
        return "select_capability"
    if stage == "before_execution":
        # Arguments sent with an approval go back through validation: the approval covers
        # exactly those arguments, and only if the policy still accepts them.
        return (
            "validate_capability" if record["decision"].get("arguments") is not None else "build_mcp_request"
        )
    if stage == "after_failure":
        return "build_mcp_request"
    if stage == "untrusted_output":
        return "generate_final_response"
    raise ImpossibleStateError(f"unknown review stage {stage!r}")
