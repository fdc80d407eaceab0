"""mark_needs_review: the review payload a person decides on (review_payload), and the
decision applied to the state (review records, approved calls, answers)."""

from __future__ import annotations

from typing import Any, cast

from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import ValidationError

from graph.accessors import (
    asked_about,
    decision_data,
    effect_binding_data,
    manifest,
    proposed_arguments,
    selected_capability,
    selection,
    validation,
)
from graph.calls import call_hash
from graph.context import GraphContext, ReviewHooks
from graph.hitl_request import with_hitl
from graph.nodes.shared import normalize
from graph.output import clarification_question
from graph.results_view import context_from
from graph.state import (
    ApprovedCall,
    CapabilityDefinition,
    ChoiceData,
    GraphState,
    PreviousDefinition,
    ProvenanceData,
    ReviewDecision,
    ReviewedCapability,
    ReviewedDefinition,
    ReviewedResult,
    ReviewPayload,
    ReviewRecord,
    ReviewStage,
    SelectedCapability,
)
from mcp_host.results import McpResult


def review_id(state: GraphState) -> str:
    # review_round counts reviews over the whole thread (preprocess_request never resets it):
    # every request in a thread gets reviews of its own, never an earlier request's id.
    return f"{state.get('thread_id', 'thread')}-r{state.get('review_round', 0) + 1}"


# What a reviewer is shown of no selection (no route reaches a review without one).
_NOTHING_SELECTED: ReviewedCapability = {
    "key": None,
    "server": None,
    "type": None,
    "name": None,
    "description": None,
    "input_schema": None,
    "annotations": None,
    "fingerprint": None,
}


def _reviewed_capability(selected: SelectedCapability | None) -> ReviewedCapability:
    """What a reviewer is shown of the selection; .get: a selection an older release
    checkpointed may lack a field, and this is rebuilt on every resume."""
    shown: SelectedCapability | ReviewedCapability = selected or _NOTHING_SELECTED
    return {
        "key": shown.get("key"),
        "server": shown.get("server"),
        "type": shown.get("type"),
        "name": shown.get("name"),
        "description": shown.get("description"),
        "input_schema": shown.get("input_schema"),
        "annotations": shown.get("annotations"),
        "fingerprint": shown.get("fingerprint"),
    }


def _reviewed_definition(previous: PreviousDefinition | CapabilityDefinition) -> ReviewedDefinition:
    """The approved definition beside the new one; a pin keeps only the fields the policy
    names (policies/pins.py), so the others read None."""
    return {
        "description": previous.get("description"),
        "input_schema": previous.get("input_schema"),
        "output_schema": previous.get("output_schema"),
        "annotations": previous.get("annotations"),
    }


def review_payload(state: GraphState) -> ReviewPayload:
    """Everything a person needs to decide, as JSON. Pure: it is rebuilt when the node re-runs."""
    stage = state.get("review_stage") or "before_execution"
    verdict = validation(state)
    payload: ReviewPayload = {
        "review_id": review_id(state),
        "stage": stage,
        "thread_id": state.get("thread_id"),
        "request": state.get("request_text"),
        "requester": state.get("requester"),
        "contributors": state.get("contributors", []),
        "capability": _reviewed_capability(state.get("selected_capability")),
        "arguments": proposed_arguments(state),
        "argument_sources": state.get("argument_sources", {}),
        "argument_provenance": state.get("argument_provenance", {}),
        "missing_arguments": state.get("missing_arguments", []),
        "flags": verdict.get("flags", []),
        "category": verdict.get("category"),
        "matched_rule": verdict.get("matched_rule"),
        "explanation": verdict.get("explanation"),
        "risk_reasons": verdict.get("risk_reasons", []),
        "review_terms": verdict.get("review_terms"),
        "reason": state.get("fallback_reason"),
    }
    if stage == "clarification":
        payload["question"] = clarification_question(state)
        payload["choices"] = _choices(state)
        asking = asked_about(state.get("selected_capability"))
        if asking is not None:
            payload["asked"] = asking[0]
    previous = state.get("previous_definition")
    if previous:
        payload["previous_capability"] = _reviewed_definition(previous)
    result = state.get("mcp_result")
    if result:
        # McpResultData is ReviewedResult plus "content": dropping that one key leaves exactly
        # a ReviewedResult.
        payload["result"] = cast("ReviewedResult", {k: v for k, v in result.items() if k != "content"})
    return payload


def _choices(state: GraphState) -> list[ChoiceData]:
    """The capabilities the operator is asked to pick from (two, or one when the policy refuses
    the other whatever the arguments), with titles a person reads."""
    asking = asked_about(state.get("selected_capability"))
    if asking is None:
        return []
    offered = manifest(state)
    choices: list[ChoiceData] = []
    for key in asking[1]:
        capability = offered.find(key)
        title = key
        if capability is not None:
            title = capability.title or str(capability.annotations.get("title") or "") or capability.name
        choices.append({"key": key, "title": f"{title} ({key.split('__', 1)[0]})"})
    return choices


def _edited_provenance(
    state: GraphState, proposed: dict[str, Any], approved: dict[str, Any], by: str
) -> dict[str, ProvenanceData]:
    """The provenance after a reviewer changed arguments: theirs for each one they changed."""
    provenance = dict(state.get("argument_provenance") or {})
    for name in set(proposed) | set(approved):
        if proposed.get(name) != approved.get(name):
            provenance.pop(name, None)
            if name in approved:
                provenance[name] = {"kind": "edited", "words": "", "how": f"set by {by} when approving"}
    return provenance


def _approved_call(
    state: GraphState, arguments: dict[str, Any], decision: ReviewDecision, review_id: str
) -> ApprovedCall:
    """What an approval covers: this capability, this definition, these arguments, once, and
    the file they write as its approvers were shown it."""
    selected = selection(state)
    return {
        "key": selected["key"],
        "fingerprint": selected["fingerprint"],
        "arguments": arguments,
        "by": decision.by,
        "review_id": review_id,
        "call_hash": call_hash(selected["server"], selected["fingerprint"], arguments),
        "effects": [effect_binding_data(bound) for bound in decision.effects or []],
    }


def _review_record(
    payload: ReviewPayload, decision: ReviewDecision, proposed: dict[str, Any]
) -> ReviewRecord:
    """The decision as the state keeps it, with the arguments the reviewer changed: by name
    (the operator is told which) and from what to what (absent on a side: not set there)."""
    approved = decision.arguments if decision.arguments is not None else proposed
    changed = sorted(
        name for name in set(proposed) | set(approved) if proposed.get(name) != approved.get(name)
    )
    return {
        "id": payload["review_id"],
        "stage": payload["stage"],
        "flags": payload["flags"],
        "decision": decision_data(decision),
        "changed_arguments": changed,
        "changes": {
            "proposed": {name: proposed[name] for name in changed if name in proposed},
            "approved": {name: approved[name] for name in changed if name in approved},
        }
        if changed
        else None,
    }


def _answered(state: GraphState, decision: ReviewDecision) -> GraphState:
    """The operator's answer to a clarifying question, kept for the next selection.

    Raises:
        ValueError: the decision is not an answer with text.
    """
    if decision.action != "answer" or not (decision.text or "").strip():
        raise ValueError("a clarification is resumed with an answer, a rejection or an expiry")
    contributors = list(state.get("contributors", []))
    if decision.by != state.get("requester") and decision.by not in contributors:
        contributors.append(decision.by)
    return {
        "clarifications": [*state.get("clarifications", []), normalize(decision.text or "")],
        # Typed into the form: kept as typed (normalize() would fold a file's lines into one).
        "answered_arguments": {**state.get("answered_arguments", {}), **(decision.arguments or {})},
        "contributors": contributors,
    }


def _await_decision(payload: ReviewPayload, reviews: ReviewHooks) -> ReviewDecision:
    """Wait (interrupt()) until the thread is resumed with a decision it may take.

    A refused resume is answered by waiting again, with the reason in the new interrupt's
    value (``resume_refused``), never by raising: LangGraph keeps a resume value with the
    node's task, so a node that raised would get the refused value back on every later
    resume and the thread could never take the real decision. On each re-run the earlier
    interrupts replay their recorded answers, refused again, and the next one waits.
    """
    value: dict[str, Any] = with_hitl(payload)
    while True:
        answer = interrupt(value)
        refused = _resume_problem(payload, answer, reviews)
        if refused is None:
            return ReviewDecision.model_validate(answer)
        value = with_hitl(payload) | {"resume_refused": f"resume refused: {refused}"}


def _resume_problem(payload: ReviewPayload, answer: Any, reviews: ReviewHooks) -> str | None:
    """Why this resume may not continue the thread: not a decision, one the stage does not
    take, or, for a review, one that names another review (or none) or is not the decision
    the ledger recorded for it. Only the review service decides; every resume is checked
    against its decision."""
    try:
        decision = ReviewDecision.model_validate(answer)
    except ValidationError as invalid:
        return f"the resume is not a Gatehouse decision ({invalid.error_count()} problem(s))"
    problem = decision.problem_at(payload["stage"])
    if problem is not None:
        return problem
    if payload["stage"] == "clarification":
        return None  # the operator's answer in words: no review, nothing in the ledger to match
    named = answer.get("review_id") if isinstance(answer, dict) else None
    if named != payload["review_id"]:
        return (
            f"the thread waits on review {payload['review_id']}, and the resume names {named or 'no review'}"
        )
    return reviews.decision_problem(payload, decision)


def mark_needs_review(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Stop for a person (interrupt()) and apply their decision.

    Reads ``review_stage`` (clarification, before_execution, after_failure, untrusted_output),
    everything review_payload shows (selection, verdict, arguments, reason, result), and
    ``review_round``, ``proposed_arguments``, ``contributors``, ``clarifications``,
    ``requester``, ``mcp_result``. Writes ``review``, ``review_round``,
    ``needs_human_review``, ``review_stage``; then by decision: ``status`` and
    ``fallback_reason`` (reject, expire, cancel); ``clarifications``, ``answered_arguments``
    and ``contributors`` (an answer); ``approved_call`` and, for edited arguments, ``proposed_arguments``,
    ``missing_arguments``, ``invalid_arguments`` (approve before execution);
    ``approved_call`` and ``transport_failures`` (approve after a failure); ``context_update``
    and ``status`` (released output).

    Re-runs from its top every time the thread resumes. Before interrupt() it reads only the
    state and opens the review in the ledger (``reviews.review_opened``, not for a
    clarification): the ledger creates a review once per review id, so the re-run writes,
    audits and notifies nothing. After interrupt() returns it runs once per decision; an
    approval before execution pins the approved definition (``policy.accept``, idempotent).

    Args:
        state: the request's state with ``review_stage`` set.
        runtime: the run's context (its review hooks and policy).

    Returns:
        The decision and what it implies.

    A resume that is not a decision the stage takes, or for a review not the decision the
    ledger recorded (ReviewHooks.decision_problem), is refused: the node waits again, the
    reason in the interrupt's ``resume_refused`` (_await_decision); nothing runs.
    """
    payload = review_payload(state)
    stage: ReviewStage = payload["stage"]
    if stage != "clarification":
        # Idempotent by review id: this line runs again when the node re-runs on resume.
        runtime.context.reviews.review_opened(payload)
    # The HITL request schemas ride beside the payload (graph/hitl_request.py) for LangGraph's
    # tools; Gatehouse's own readers take them off (graph/runner.py pending_interrupt).
    decision = _await_decision(payload, runtime.context.reviews)
    proposed = proposed_arguments(state)
    update: GraphState = {
        "review": _review_record(payload, decision, proposed),
        "review_round": state.get("review_round", 0) + 1,
        "needs_human_review": False,
        "review_stage": None,
    }
    if decision.action == "reject":
        return update | {
            "status": "rejected",
            "fallback_reason": f"rejected by {decision.by}: {decision.reason or 'no reason given'}",
        }
    if decision.action == "expire":
        return update | {"status": "expired", "fallback_reason": "the review expired before anyone decided"}
    if decision.action == "cancel":
        return update | {"status": "cancelled", "fallback_reason": f"withdrawn by {decision.by}"}
    if stage == "clarification":
        return update | _answered(state, decision)
    if stage == "before_execution":
        # Runs once per decision (after interrupt() returned): the reviewer has now seen this
        # definition, so it becomes the pinned one.
        runtime.context.policy.accept(selected_capability(state))
        arguments = decision.arguments if decision.arguments is not None else proposed
        update["approved_call"] = _approved_call(state, arguments, decision, payload["review_id"])
        if decision.arguments is not None and decision.arguments != proposed:
            update |= {
                "proposed_arguments": arguments,
                "argument_provenance": _edited_provenance(state, proposed, arguments, decision.by),
                "missing_arguments": [],
                "invalid_arguments": {},
            }
        return update
    if stage == "after_failure":
        # One more try, approved by a person: the transport counter starts again, and the
        # retry is a reviewed call of its own (it runs once, under this review's id).
        retry = _approved_call(state, proposed, decision, payload["review_id"])
        return update | {"transport_failures": 0, "approved_call": retry}
    # untrusted_output: the reviewer releases the output, marked as untrusted.
    result = McpResult.model_validate(state["mcp_result"])
    return update | {"context_update": {**context_from(result), "untrusted": True}, "status": "ok"}
