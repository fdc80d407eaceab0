"""validate_capability: the selected capability, as its server offers it now, judged with its
arguments (allow, review, deny, clarify or unusable)."""

from __future__ import annotations

import uuid
from typing import Any

from langgraph.runtime import Runtime

from graph.accessors import (
    approval_for,
    asked_about,
    capability_data,
    errors_with,
    flag_data,
    flags_data,
    previous_definition_data,
    proposed_arguments,
    review_terms_data,
    selected_capability,
    selection,
)
from graph.choice_words import flag_message
from graph.context import CallToCover, GraphContext
from graph.nodes.shared import current_listing, server_down
from graph.output import refusal_sentence
from graph.planner.scoring import is_unbounded_listing
from graph.state import (
    CapabilityValidation,
    FlagData,
    GrantUseData,
    GraphState,
    ReviewStage,
    SelectedCapability,
    ValidationDecision,
)
from mcp_host.errors import ErrorInfo
from mcp_host.manifest import Capability
from policies.decision import PolicyDecision
from policies.injection import request_reasons


def _approved_by(state: GraphState, capability: Capability, arguments: dict[str, Any]) -> str | None:
    """Who approved exactly this call (capability, definition and arguments), if anyone did."""
    approved = approval_for(state, capability.key)
    if (
        approved is not None
        and approved["fingerprint"] == capability.fingerprint
        and approved["arguments"] == arguments
    ):
        return approved["by"]
    return None


def _capability_gone(state: GraphState, down: ErrorInfo | None) -> GraphState:
    """The update when the selected capability is no longer offered, or its server cannot be
    reached (``down``: why) to say whether it is: nothing can run."""
    capability = selected_capability(state)
    message = (
        f"{capability.key} is no longer offered by its server"
        if down is None
        else f"{capability.server} is not available, so {capability.key} cannot be used now: {down.message}"
    )
    return {
        "capability_validation": {
            "decision": "unusable",
            "flags": [flag_data("capability_gone", "medium", message)],
        },
        "fallback_reason": message,
        "errors": errors_with(state, message),
        "status": "error",
    }


def _unusable(capability: Capability, policy: PolicyDecision) -> tuple[str | None, list[FlagData]]:
    """Why no arguments could make this capability usable (None when they could), and the
    flag that says so (none for a broken schema: the policy flagged it already)."""
    broken_schema = [flag.message for flag in policy.flags if flag.code == "invalid_schema"]
    if broken_schema:
        # No argument can be right for a schema that is itself invalid: nothing to ask for.
        return (
            f"{capability.key} has an input schema that is not valid JSON Schema ({broken_schema[0]})",
            [],
        )
    if policy.output_expectation == "opaque":
        reason = (
            f"{capability.key} returns {capability.mime_type}, which is opaque to the agent "
            "and no text-extraction capability is available"
        )
        return reason, [flag_data("opaque_output", "medium", reason)]
    if is_unbounded_listing(capability) and policy.risk == "low":
        # Only a read can be a listing: a parameterless tool that acts ("wipes every file")
        # is judged as the action it is.
        reason = (
            f"{capability.key} returns every record with no filters or paging; "
            "ask with filters a bounded capability supports"
        )
        return reason, [flag_data("unbounded_listing", "medium", reason)]
    return None, []


def _derived(state: GraphState, arguments: dict[str, Any]) -> dict[str, str]:
    """The arguments no one stated, each with the words it was derived from. One the state
    holds no provenance for (a thread an older release checkpointed) counts as derived."""
    provenance = state.get("argument_provenance") or {}
    derived: dict[str, str] = {}
    for name in arguments:
        found = provenance.get(name)
        if found is None:
            derived[name] = ""
        elif found["kind"] == "derived":
            derived[name] = found["words"]
    return derived


def _request_flags(state: GraphState, capability: Capability) -> list[FlagData]:
    """What the request and the selection leave open or suspect: missing and invalid
    arguments, words posing as Gatehouse's own, a stand-in planner, a close runner-up."""
    flags = [
        flag_data("missing_argument", "medium", f"required argument '{name}' is not stated in the request")
        for name in state.get("missing_arguments", [])
    ]
    flags += [
        flag_data("invalid_argument", "medium", f"argument {name}: {why}")
        for name, why in state.get("invalid_arguments", {}).items()
    ]
    # The requester's words are shown to the reviewer (literally): words dressed as the app's
    # own badges or as HTML are trying to pass for Gatehouse's verdict, and the reviewer is told.
    for said in [state.get("request_text") or "", *state.get("clarifications", [])]:
        flags += [
            flag_data("suspicious_text", "high", f"request: {reason}") for reason in request_reasons(said)
        ]
    selected = selection(state)
    # .get: a selection checkpointed by an older release may lack these two fields.
    fallback, asking = selected.get("planner_fallback"), asked_about(selected)
    if fallback:
        flags.append(flag_data("planner_fallback", "medium", fallback))
    if ignored := selected.get("ignored_calls"):
        flags.append(
            flag_data(
                "planner_ignored_calls",
                "medium",
                f"the language model also asked to call {', '.join(ignored)}; "
                "one capability runs per request, and these never ran",
            )
        )
    if asking is not None:
        # Why the operator is asked which one: a tie, the planner's doubt, or the language.
        flags.append(flag_data("ambiguous_selection", "medium", flag_message(*asking)))
    return flags


def _decide(
    policy: PolicyDecision, unusable: str | None, args_valid: bool, ambiguous: bool, approved: bool
) -> ValidationDecision:
    """The verdict, strictest first: a refusal, an unusable capability, a question for the
    operator, a reviewer's turn (unless one approved exactly this call), or go."""
    if policy.action == "deny":
        return "deny"
    if unusable:
        return "unusable"
    if not args_valid or ambiguous:
        return "clarify"
    if policy.action == "review" and not approved:
        return "review"
    return "allow"


def _decision_update(
    state: GraphState,
    capability: Capability,
    policy: PolicyDecision,
    decision: ValidationDecision,
    unusable: str | None,
) -> GraphState:
    """The fields besides the verdict that a decision sets: why, and what was refused."""
    if decision == "deny":
        return {
            "status": "error",
            "fallback_reason": f"refused by policy: {policy.explanation}",
            "errors": errors_with(state, refusal_sentence(policy.rule, capability.key, policy.explanation)),
        }
    if decision == "unusable":
        # Nothing will be asked of the operator: an unusable capability needs no arguments.
        return {"fallback_reason": unusable, "missing_arguments": []}
    if decision == "review":
        return {"fallback_reason": policy.explanation}
    if decision == "clarify":
        return {"fallback_reason": "the request does not state everything the capability needs"}
    return {}


def _refreshed_selection(selected: SelectedCapability, current: Capability) -> SelectedCapability | None:
    """The selection with the definition its server offers now, or None when that is the one
    it holds already (the usual case): the state keeps its value, and the checkpointer is not
    handed a copy of the whole definition again."""
    definition = capability_data(current)
    if all(name in selected and selected.get(name) == value for name, value in definition.items()):
        return None
    return {**selected, **definition}


def _use_key(state: GraphState, runtime: Runtime[GraphContext]) -> str:
    """This step's own key, the same when it re-runs after a crash (LangGraph derives a task's
    id from its checkpoint and step): a grant's use is consumed once per key."""
    info = runtime.execution_info
    task = info.task_id if info is not None else uuid.uuid4().hex
    return f"{state.get('thread_id', 'thread')}:{task}"


def _granted(
    state: GraphState,
    runtime: Runtime[GraphContext],
    capability: Capability,
    arguments: dict[str, Any],
    policy: PolicyDecision,
) -> GrantUseData | None:
    """The remembered approval a call the rules send to review runs under instead, its use
    consumed; None when none covers it (policy.action is review, the arguments are valid)."""
    return runtime.context.grants.cover(
        CallToCover(
            capability=capability,
            arguments=arguments,
            decision=policy,
            thread_id=state.get("thread_id", ""),
            requester=state.get("requester") or "operator",
            contributors=list(state.get("contributors", [])),
            use_key=_use_key(state, runtime),
        )
    )


_STAGE_OF: dict[ValidationDecision, ReviewStage] = {
    "review": "before_execution",
    "clarify": "clarification",
}


def validate_capability(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Judge the selected capability, as its server offers it now, with the proposed
    arguments: allow, review, deny, clarify (ask the operator) or unusable.

    Reads ``selected_capability``, ``proposed_arguments``, ``missing_arguments``,
    ``invalid_arguments``, ``request_text``, ``clarifications``, ``approved_call``, ``errors``.
    Writes ``selected_capability`` when its server's definition differs from the one selected,
    ``capability_validation``, ``needs_human_review``, ``review_stage``, possibly
    ``previous_definition`` (the policy's pin differs), and ``fallback_reason``; for a refusal
    also ``status`` and ``errors``; for an unusable capability ``missing_arguments``. It lists
    the server's offer (a read) and asks the policy, which may pin a definition seen for the
    first time (policies/engine.py); a re-run repeats both and pins nothing new. A call that
    would wait for a reviewer asks the context's grants (reviews/grant_service.py) whether a
    remembered approval covers it: if one does, its use is taken (once per step, a re-run
    takes the same one) and the verdict is allow, naming the grant (``grant``) and flagged
    ``granted``.

    Args:
        state: the request's state with a selection.
        runtime: the run's context (its MCP client and policy).

    Returns:
        The verdict and what it implies.

    Raises:
        ValueError: nothing is selected (a routing bug).
    """
    selected = selection(state)
    listing = current_listing(runtime.context, selected["server"])
    capability = listing.find(selected["key"])
    if capability is None:
        return _capability_gone(state, server_down(listing, selected["server"]))
    arguments = proposed_arguments(state)
    evaluation = runtime.context.policy.evaluate(capability, arguments, derived=_derived(state, arguments))
    # A real request is what records first sight of a definition (evaluating stores nothing).
    runtime.context.policy.record_pins(evaluation.pins_to_record)
    policy = evaluation.decision
    unusable, unusable_flags = _unusable(capability, policy)
    flags = [*flags_data(policy.flags), *unusable_flags, *_request_flags(state, capability)]
    approved_by = _approved_by(state, capability, arguments)
    missing = state.get("missing_arguments", [])
    args_valid = policy.args_valid and not (missing or state.get("invalid_arguments", {}))
    decision = _decide(
        policy, unusable, args_valid, asked_about(selected) is not None, approved_by is not None
    )
    if approved_by is not None and policy.action == "review" and decision == "allow":
        flags.append(flag_data("approved", "info", f"approved by {approved_by} for exactly these arguments"))
    # Only what would wait for a reviewer asks for a grant: never a refusal, a question for
    # the operator, or a call a reviewer already approved.
    grant = _granted(state, runtime, capability, arguments, policy) if decision == "review" else None
    if grant is not None:
        decision = "allow"
        flags.append(
            flag_data(
                "granted",
                "info",
                f"runs without review under grant {grant['id']}, approved by {grant['by']} for "
                f"{grant['scope']} ({grant['bounds']}) until {grant['expires_at']}",
            )
        )
    verdict: CapabilityValidation = {
        "decision": decision,
        "matched_rule": policy.rule,
        "category": policy.category,
        "categories": policy.categories,
        "risk": policy.risk,
        "risk_reasons": policy.reasons,
        "explanation": policy.explanation,
        "flags": flags,
        "args_valid": args_valid,
        "missing_arguments": list(missing),
        "output_expectation": policy.output_expectation,
        "review_terms": review_terms_data(policy.review),
        "policy_version": policy.policy_version,
    }
    if grant is not None:
        verdict["grant"] = grant
    update: GraphState = {
        "capability_validation": verdict,
        "needs_human_review": decision in {"review", "clarify"},
        "review_stage": _STAGE_OF.get(decision),
    }
    refreshed = _refreshed_selection(selected, capability)
    if refreshed is not None:
        update["selected_capability"] = refreshed
    if policy.previous_definition is not None:
        update["previous_definition"] = previous_definition_data(policy.previous_definition)
    return update | _decision_update(state, capability, policy, decision, unusable)
