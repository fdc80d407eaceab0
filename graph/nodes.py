"""The eleven nodes. Each is a plain function of (state, runtime) returning only the keys it
changes; every dependency arrives through ``runtime.context``.

Re-runs: LangGraph checkpoints after each node, so a node runs again from its top when the
process died during it (the thread is continued from the last checkpoint), and
mark_needs_review runs again from its top every time its thread resumes after interrupt().
Each node's docstring says what a re-run does. Before its interrupt(), mark_needs_review
computes only from the state, with one write: it opens the review in the ledger
(``ReviewHooks.review_opened``), which creates the review once per review id and does nothing
when called again for the same id.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any, cast
from urllib.parse import quote

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from graph.accessors import (
    approval_for,
    capability_data,
    decision_data,
    effect_binding_data,
    error_data,
    errors_with,
    final_output_data,
    flag_data,
    flags_data,
    manifest,
    manifest_data,
    previous_definition_data,
    proposed_arguments,
    request_data,
    result_data,
    review_terms_data,
    selected_capability,
    selection,
    validation,
    validation_with_flags,
)
from graph.calls import call_hash
from graph.context import CallOutcome, GraphContext
from graph.effects import observe, what_changed
from graph.output import NOTHING_FITS, build_final_output, clarification_question, no_match_sentence
from graph.planner.arguments import Extraction
from graph.planner.protocol import Composition, PlanningRequest
from graph.planner.scoring import ScoredCapability, is_unbounded_listing
from graph.results_view import context_from, readable_text
from graph.state import (
    ApprovedCall,
    Candidate,
    CapabilityDefinition,
    CapabilityValidation,
    ChoiceData,
    EffectBinding,
    FlagData,
    GraphState,
    McpMethod,
    McpRequest,
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
    ValidationDecision,
    fresh_request_state,
)
from mcp_host.client import McpClient
from mcp_host.elicitation import CallOwner, on_behalf_of
from mcp_host.errors import TRANSPORT_KINDS, ErrorInfo, McpHostError
from mcp_host.manifest import Capability, Manifest
from mcp_host.results import McpResult
from policies.decision import PolicyDecision
from policies.injection import request_reasons

_WHITESPACE = re.compile(r"\s+")
_TEMPLATE_VARIABLE = re.compile(r"\{([A-Za-z0-9_]+)\}")
# What a reviewer approves besides the name: a change to any of these voids an approval.
_DEFINITION_FIELDS = ("description", "input_schema", "output_schema", "annotations")


def _normalize(text: str) -> str:
    """Drop control and invisible format characters, then collapse whitespace."""
    kept = [
        " " if ch in "\t\r\n" else ch
        for ch in text
        if unicodedata.category(ch) not in {"Cc", "Cf"} or ch in "\t\r\n"
    ]
    return _WHITESPACE.sub(" ", "".join(kept)).strip()


# -- preprocess_request ---------------------------------------------------------------------


def preprocess_request(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Start a request: normalise its text and reset every per-request field.

    Reads ``input``, ``requester``, ``server_preferences``; the limit on input length.
    Writes every field of graph.state.fresh_request_state (all but ``input``, ``thread_id``
    and ``review_round``): the graph keeps those the thread does not already read as fresh
    (graph.state.changes); ``status``, ``fallback_reason`` and ``errors`` for a blank or too
    long request. No I/O: a re-run computes the same update.

    Args:
        state: the thread's state with the new request's input.
        runtime: the run's context (for ``limits.max_input_chars``).

    Returns:
        The fresh request's fields.
    """
    limit = runtime.context.limits.max_input_chars
    text = _normalize(state.get("input") or "")
    # A thread can carry several requests: every per-request field starts afresh here.
    update = fresh_request_state(
        text, state.get("requester") or "operator", list(state.get("server_preferences") or [])
    )
    if not text:
        update |= {
            "status": "error",
            "fallback_reason": "blank request",
            "errors": [
                "The request is empty: say what you need, e.g. 'List the files in the project folder.'"
            ],
        }
    elif len(text) > limit:
        update |= {
            "status": "error",
            "fallback_reason": "request too long",
            "errors": [
                f"The request is {len(text)} characters long; the limit is {limit}. Shorten or split it."
            ],
        }
    return update


# -- classify_intent ------------------------------------------------------------------------


def classify_intent(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Decide whether the request needs an MCP capability, and of which type.

    Reads ``request_text``. Writes ``intent``, ``operation_type`` and, for a request that
    needs no capability, ``fallback_reason``. A re-run asks the planner again (a model-backed
    planner may be called twice; nothing is written outside the state).

    Args:
        state: the request's state after preprocess_request.
        runtime: the run's context (its planner).

    Returns:
        The intent and operation type.
    """
    decision = runtime.context.planner.classify(state["request_text"])
    update: GraphState = {"intent": decision.intent, "operation_type": decision.operation_type}
    if decision.intent == "answer_without_mcp":
        update["fallback_reason"] = decision.reason
    return update


# -- discover_capabilities ------------------------------------------------------------------


def discover_capabilities(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """List what the configured servers offer.

    Reads ``server_preferences``, ``errors``. Writes ``capability_manifest``, ``errors`` (every
    server problem) and, when nothing can be used or a preferred server is unknown,
    ``fallback_reason`` (with nothing usable, ``fallback_text`` too) and possibly ``status``. A re-run lists again (reads from the servers,
    or the client's cached listing).

    Args:
        state: the request's state after classify_intent.
        runtime: the run's context (its MCP client).

    Returns:
        The manifest and what went wrong finding it.
    """
    found = runtime.context.mcp.discover()
    errors = errors_with(state, *found.problems())
    update: GraphState = {"capability_manifest": manifest_data(found), "errors": errors}
    known = found.server_names()
    unknown = [name for name in state.get("server_preferences", []) if name not in known]
    if unknown:
        listed = ", ".join(known) or "none"
        message = f"unknown preferred server {', '.join(map(repr, unknown))}; configured servers: {listed}"
        update |= {"status": "error", "fallback_reason": message, "errors": [*errors, message]}
    elif not known or not found.capabilities():
        reason = (
            "no MCP server is configured"
            if not known
            else "no configured MCP server offers a usable capability"
        )
        update |= {
            "fallback_reason": reason,
            "fallback_text": f"{NOTHING_FITS}: {reason}, so nothing was run.",
        }
        if known and found.problems():
            update["status"] = "error"
    return update


# -- select_capability ----------------------------------------------------------------------


def _named_in_reply(candidates: list[ScoredCapability], reply: str | None) -> ScoredCapability | None:
    """The candidate an operator's reply names exactly (by name or key), if any.

    Answering "which one?" with a tool's name settles it, even when that name is a prefix of
    the other candidate's ("list_directory" vs "list_directory_with_sizes").
    """
    if not reply:
        return None
    tokens = {token.lower() for token in re.findall(r"[\w.-]+", reply)}
    by_key = [s for s in candidates if s.capability.key.lower() in tokens]
    if len(by_key) == 1:
        return by_key[0]
    # A bare name settles it only when one candidate has it (two servers may share a name).
    by_name = [s for s in candidates if s.capability.name.lower() in tokens]
    return by_name[0] if len(by_name) == 1 else None


def _planning_request(state: GraphState, offered: Manifest) -> PlanningRequest:
    """What the planner is asked: the request with the operator's earlier answers, the latest
    answer apart (it may name a choice or a missing value), and what it must leave out."""
    clarifications = state.get("clarifications", [])
    return PlanningRequest(
        text=" ".join([state["request_text"], *clarifications[:-1]]),
        operation_type=state.get("operation_type") or "tool",
        answer=clarifications[-1] if clarifications else None,
        asked=tuple(state.get("missing_arguments") or ()),
        preferences=tuple(state.get("server_preferences", [])),
        exclude=frozenset(state.get("tried_capabilities", [])),
        folders={server.name: tuple(server.folders) for server in offered.servers if server.folders},
    )


def select_capability(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Score the offered capabilities against the request and pick one, with its arguments.

    Reads ``capability_manifest``, ``request_text``, ``clarifications`` (the latest one is the
    operator's answer), ``operation_type``, ``missing_arguments`` (what was asked),
    ``server_preferences``, ``tried_capabilities`` (never picked again). Writes
    ``candidate_capabilities``, ``selected_capability`` and resets ``review_stage``,
    ``needs_human_review`` and ``mcp_request``; with a choice also the proposed arguments,
    their sources, evidence, invalid and missing ones, and clears ``fallback_reason`` and
    ``fallback_text``; without one, sets them. A re-run asks the planner again (nothing is
    written outside the state).

    Args:
        state: the request's state after discovery (or after a failed call or an answer).
        runtime: the run's context (its planner and limits).

    Returns:
        The selection, or the reason there is none.
    """
    planner = runtime.context.planner
    limits = runtime.context.limits
    offered = manifest(state)
    request = _planning_request(state, offered)
    latest = request.answer
    selection_ = planner.select(request, offered.capabilities(), limits)
    candidates: list[Candidate] = [
        {"key": s.capability.key, "score": s.score, "reasons": s.reasons} for s in selection_.candidates
    ]
    update: GraphState = {
        "candidate_capabilities": candidates,
        "review_stage": None,
        "needs_human_review": False,
        "mcp_request": None,
    }
    if selection_.chosen is None:
        closest = selection_.candidates[0] if selection_.candidates else None
        best_of = f" (best: {closest.capability.key}, score {closest.score:g})" if closest else ""
        return update | {
            "selected_capability": None,
            "fallback_reason": f"no capability matches the request well enough{best_of}; "
            f"the threshold is {limits.min_score:g}",
            "fallback_text": selection_.no_match or no_match_sentence(selection_.candidates),
        }
    best, runner_up = selection_.chosen, selection_.ambiguous_with
    named = _named_in_reply(selection_.candidates, latest) if latest else None
    if named is not None:
        # The operator answered "which one?" by naming it: that settles the choice.
        best, runner_up = named, None
    extraction = selection_.arguments
    if extraction is None or named is not None:
        extraction = planner.extract(best.capability, request)
    selected: SelectedCapability = {
        **capability_data(best.capability),
        "score": best.score,
        "reason": "; ".join(best.reasons),
        "explanation": selection_.explanation
        if named is None
        else f"Chose {best.capability.key}, as you said.",
        "planner": planner.label,
        "planner_fallback": selection_.fallback,
        "ambiguous_with": runner_up.capability.key if runner_up else None,
        "ignored_calls": selection_.ignored_calls,
    }
    update |= {
        "selected_capability": selected,
        "proposed_arguments": extraction.arguments,
        "argument_sources": extraction.sources,
        "argument_evidence": extraction.evidence,
        "argument_provenance": _provenance_data(extraction),
        "invalid_arguments": extraction.invalid,
        "missing_arguments": extraction.missing,
        "fallback_reason": None,
        "fallback_text": None,
    }
    return update


def _provenance_data(extraction: Extraction) -> dict[str, ProvenanceData]:
    """Each argument's provenance as the state keeps it. A planner that did not say where a
    value came from has it derived: nothing runs unreviewed on a value nobody showed stated."""
    found: dict[str, ProvenanceData] = {}
    for name in extraction.arguments:
        provenance = extraction.provenance.get(name)
        found[name] = (
            {"kind": provenance.kind, "words": provenance.words, "how": provenance.how}
            if provenance is not None
            else {"kind": "derived", "words": "", "how": "the planner did not say which words it came from"}
        )
    return found


# -- validate_capability --------------------------------------------------------------------


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


def _current_definition(context: GraphContext, server: str, key: str) -> Capability | None:
    """The capability as its server offers it now, the definition a decision or an approved
    call must be judged on.

    Discovery may serve a cached listing; a server that quietly swapped a tool's description
    or schema (a "rug pull" without a list_changed notification) must be judged on the new
    one, so its listing is fetched fresh. The exception is a server the policy trusts that
    promised list_changed notifications: its cached listing is current by that promise (a
    notification drops it), as mature hosts treat every server; that saves a round trip.
    """
    listing = context.mcp.discover(only=[server])
    cached = listing.server(server)
    if not (cached is not None and cached.announces_changes and context.policy.trusts(server)):
        listing = context.mcp.discover(fresh=True, only=[server])
    return listing.find(key)


def _capability_gone(state: GraphState) -> GraphState:
    """The update when the selected capability is no longer offered: nothing can run."""
    message = f"{selected_capability(state).key} is no longer offered by its server"
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
    fallback, ambiguous_with = selected.get("planner_fallback"), selected.get("ambiguous_with")
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
    if ambiguous_with:
        flags.append(
            flag_data(
                "ambiguous_selection",
                "medium",
                f"{capability.key} and {ambiguous_with} fit the request about equally well",
            )
        )
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
            "errors": errors_with(
                state, f"policy rule {policy.rule} refused {capability.key}: {policy.explanation}"
            ),
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
    first time (policies/engine.py); a re-run repeats both and pins nothing new.

    Args:
        state: the request's state with a selection.
        runtime: the run's context (its MCP client and policy).

    Returns:
        The verdict and what it implies.

    Raises:
        ValueError: nothing is selected (a routing bug).
    """
    selected = selection(state)
    capability = _current_definition(runtime.context, selected["server"], selected["key"])
    if capability is None:
        return _capability_gone(state)
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
        policy, unusable, args_valid, bool(selected.get("ambiguous_with")), approved_by is not None
    )
    if approved_by is not None and policy.action == "review" and decision == "allow":
        flags.append(flag_data("approved", "info", f"approved by {approved_by} for exactly these arguments"))
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


# -- mark_needs_review ----------------------------------------------------------------------


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
    """The two capabilities an ambiguous selection is between, with titles a person reads."""
    selected = state.get("selected_capability")
    other = selected.get("ambiguous_with") if selected else None
    if not selected or not other:
        return []
    offered = manifest(state)
    choices: list[ChoiceData] = []
    for key in (selected["key"], other):
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
        "clarifications": [*state.get("clarifications", []), _normalize(decision.text or "")],
        "contributors": contributors,
    }


def mark_needs_review(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Stop for a person (interrupt()) and apply their decision.

    Reads ``review_stage`` (clarification, before_execution, after_failure, untrusted_output),
    everything review_payload shows (selection, verdict, arguments, reason, result), and
    ``review_round``, ``proposed_arguments``, ``contributors``, ``clarifications``,
    ``requester``, ``mcp_result``. Writes ``review``, ``review_round``,
    ``needs_human_review``, ``review_stage``; then by decision: ``status`` and
    ``fallback_reason`` (reject, expire, cancel); ``clarifications`` and ``contributors`` (an
    answer); ``approved_call`` and, for edited arguments, ``proposed_arguments``,
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

    Raises:
        ValueError: the resume value is not a ReviewDecision (pydantic's ValidationError), or
            its action does not fit the stage (an approval for a clarification, an answer for
            a call).
    """
    payload = review_payload(state)
    stage: ReviewStage = payload["stage"]
    if stage != "clarification":
        # Idempotent by review id: this line runs again when the node re-runs on resume.
        runtime.context.reviews.review_opened(payload)
    decision = ReviewDecision.model_validate(interrupt(payload))
    problem = decision.problem_at(stage)
    if problem is not None:
        raise ValueError(f"review {payload['review_id']}: {problem}")
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


# -- build_mcp_request / invoke_mcp_capability ----------------------------------------------


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


def _request_server(state: GraphState) -> str:
    request = state.get("mcp_request")
    if request and request["server"]:
        return request["server"]
    selected = state.get("selected_capability")
    return selected["server"] if selected else ""


def _changed_definition(state: GraphState, context: GraphContext, key: str) -> GraphState | None:
    """For a reviewed call: the update that sends it back to review if its definition changed.

    The approval covers the definition the reviewer saw. The definition is read again right
    before the call (see _current_definition), so a server that swaps a tool's description or
    schema after approval (a "rug pull") gets a new review, not an execution.
    """
    approved = approval_for(state, key)
    if approved is None:
        return None
    current = _current_definition(context, _request_server(state), key)
    if current is not None and current.fingerprint == approved["fingerprint"]:
        return None
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


def _moved_effect(
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


def _outcome_unknown(state: GraphState, review_id: str) -> GraphState:
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


def _call(mcp: McpClient, request: McpRequest, owner: CallOwner) -> McpResult:
    try:
        # A question the server asks during the call is put to the person who made the request.
        with on_behalf_of(owner):
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
    return "outcome_unknown" if result.error.may_have_run else "failed"


def _only_reads(state: GraphState, request: McpRequest) -> bool:
    """Whether repeating the call is harmless: resources and prompts are reads by protocol; a
    tool only when the policy's engine positively rated it a low-risk read."""
    if request.method != "tools/call":
        return True
    return validation(state).get("risk") == "low"


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
    changed = _changed_definition(state, runtime.context, request.capability_key)
    if changed is not None:
        return changed
    approved = approval_for(state, request.capability_key)
    reviewed = approved if approved is not None and approved["review_id"] else None
    moved = _moved_effect(state, runtime.context, request, reviewed) if reviewed is not None else None
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
            return _outcome_unknown(state, reviewed["review_id"])
        result = McpResult.model_validate(recorded)
    if result is None:
        # Everyone behind the call, so that a server's request during it (a question, a
        # request for a model completion) is put to, or kept from, the right people.
        owner = CallOwner(
            thread_id=state["thread_id"],
            requester=state.get("requester") or "operator",
            contributors=tuple(state.get("contributors", [])),
            review_id=reviewed["review_id"] if reviewed is not None else None,
        )
        result = _call(runtime.context.mcp, request, owner)
        if reviewed is not None:
            hooks.call_finished(reviewed["review_id"], _call_outcome(result), result.model_dump(mode="json"))
    update: GraphState = {
        "mcp_result": result_data(result),
        "invoke_attempts": state.get("invoke_attempts", 0) + 1,
        "tried_capabilities": [*state.get("tried_capabilities", []), request.capability_key],
    }
    if result.error is None:
        return update
    return _failure_update(state, runtime, request, result, update)


# -- integrate_result -----------------------------------------------------------------------


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


# -- answer_without_mcp / generate_final_response -------------------------------------------


def answer_without_mcp(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Answer without calling a server: a general question, or why nothing could run.

    Reads ``fallback_reason``, ``fallback_text``, ``intent``, ``request_text``, ``status``.
    Writes ``context_update`` and ``status``. A re-run asks the planner again for a general
    question (a model-backed planner may be called twice); nothing is written outside the
    state.

    Args:
        state: the request's state at a dead end or a general question.
        runtime: the run's context (its planner).

    Returns:
        Gatehouse's own answer.
    """
    reason = state.get("fallback_reason") or "no external capability is needed"
    general = state.get("intent") == "answer_without_mcp"
    answered = runtime.context.planner.answer(state.get("request_text") or "") if general else None
    if answered:
        text = answered
    elif general:
        text = (
            "This reads as a general question, so no MCP server is needed, and Gatehouse has no language "
            "model of its own to answer it. Ask for something the configured servers can do, such as "
            "reading, listing or searching their data."
        )
    else:
        text = state.get("fallback_text") or f"Nothing was run: {reason}."
    status = state.get("status") or "answered_without_mcp"
    return {"context_update": {"source": "gatehouse", "text": text}, "status": status}


def generate_final_response(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Write the operator's answer: graph.state.FinalOutput.

    Reads what graph/output.py build_final_output reads (status, selection, result, review,
    errors, arguments) and ``request_text``. Writes ``final_output``. With a result the
    planner composes the answer (a model-backed planner is called; a re-run calls it again);
    nothing is written outside the state.

    Args:
        state: the request's finished state.
        runtime: the run's context (its planner and limits).

    Returns:
        The final output.
    """
    output = build_final_output(state, limit=runtime.context.limits.response_chars)
    selected = state.get("selected_capability")
    if output.status == "ok" and output.result is not None:
        # With a result in hand the planner writes the answer (a model summarises it; the
        # deterministic planner keeps the standard text). The raw result is shown beside it.
        written = runtime.context.planner.compose(
            Composition(
                request=state.get("request_text") or "",
                status=output.status,
                draft=output.response,
                result_text=readable_text(McpResult.model_validate(state["mcp_result"])),
                capability=selected["key"] if selected else None,
            )
        )
        output.composed = written != output.response
        output.response = written
    return {"final_output": final_output_data(output)}
