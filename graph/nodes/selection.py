"""select_capability: the planner's choice among the offered capabilities, with its
arguments and where each came from."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from graph.accessors import capability_data, errors_with, manifest
from graph.context import GraphContext
from graph.fallback import excluded_capabilities
from graph.output import RefusalOf, no_match_sentence, refusal_sentence, refused_fit_sentence
from graph.planner.arguments import Extraction
from graph.planner.protocol import PlanningRequest, Selection
from graph.planner.provenance import Provenance
from graph.planner.scoring import ScoredCapability
from graph.state import AskedData, Candidate, GraphState, ProvenanceData, SelectedCapability
from mcp_host.manifest import Capability, Manifest
from policies.decision import StandingRefusal


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
        # What was tried, and after a tool error all but the same tool elsewhere (graph/fallback.py).
        exclude=excluded_capabilities(state),
        folders={server.name: tuple(server.folders) for server in offered.servers if server.folders},
    )


def select_capability(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Score the offered capabilities against the request and pick one, with its arguments.

    Reads ``capability_manifest``, ``request_text``, ``clarifications`` (the latest one is the
    operator's answer), ``answered_arguments`` (values typed into the clarification form, taken
    as typed), ``operation_type``, ``missing_arguments`` (what was asked),
    ``server_preferences``, ``tried_capabilities`` (never picked again), ``mcp_result`` (after a
    tool error only the same tool on another server may be picked: graph/fallback.py). Writes
    ``candidate_capabilities``, ``selected_capability`` and resets ``review_stage``,
    ``needs_human_review`` and ``mcp_request``; with a choice also the proposed arguments,
    their sources, evidence, invalid and missing ones, and clears ``fallback_reason`` and
    ``fallback_text``; without one, sets them, and ``status`` and ``errors`` when the closest
    capability is one the policy refuses whatever the arguments. When the planner asks the
    operator which one they mean, a choice the policy refuses whatever the arguments is not
    offered (_offered_choices); when it refuses every choice, that refusal is the answer. A
    re-run asks the planner again (nothing is written outside the state).

    Args:
        state: the request's state after discovery (or after a failed call or an answer).
        runtime: the run's context (its planner, policy and limits).

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
        return update | _nothing_chosen(state, selection_, runtime)
    best, runner_up = selection_.chosen, selection_.ambiguous_with
    named = _named_in_reply(selection_.candidates, latest) if latest else None
    asked: AskedData | None = None
    explained = selection_.explanation
    if named is not None:
        # The operator answered "which one?" by naming it: that settles the choice.
        best, runner_up = named, None
        explained = f"Chose {best.capability.key}, as you said."
    elif runner_up is not None:
        refusal_of = runtime.context.policy.standing_refusal
        left, refused = _offered_choices([best, runner_up], refusal_of)
        if not left:
            # Nothing the operator could pick would run: the refusal is the answer.
            return update | _refused(state, selection_, refused, refusal_of)
        asked = {
            "reason": selection_.ask_reason or "tie",
            "language": selection_.language,
            "not_offered": [refusal_sentence(r.rule, s.capability.key, r.explanation) for s, r in refused],
        }
        if left[0] is not best:
            explained = (
                f"Asked about {left[0].capability.key}: the planner's first choice, {best.capability.key}, "
                "is refused by the policy whatever the arguments."
            )
        # One choice left is still asked about, never run unasked: the operator may have meant
        # the refused one, and running the other would run what they did not ask for.
        best, runner_up = left[0], (left[1] if len(left) > 1 else None)
    extraction = selection_.arguments
    if extraction is None or named is not None or best is not selection_.chosen:
        extraction = planner.extract(best.capability, request)
    extraction = _with_answers(extraction, best.capability, state.get("answered_arguments") or {})
    selected: SelectedCapability = {
        **capability_data(best.capability),
        "score": best.score,
        "reason": "; ".join(best.reasons),
        "explanation": explained,
        "planner": planner.label,
        "planner_fallback": selection_.fallback,
        "ambiguous_with": runner_up.capability.key if runner_up else None,
        "asked": asked,
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


def _nothing_chosen(state: GraphState, selection_: Selection, runtime: Runtime[GraphContext]) -> GraphState:
    """Why nothing was chosen. Capabilities the policy refuses whatever the arguments stay
    among the candidates (a request the planner is sure of is refused by validate_capability,
    naming the rule); when the closest one, which the request pointed at, is refused, that is
    the answer: a refusal by the policy (status ``error``, as validate_capability's), not
    "nothing configured can do that". Otherwise the refused ones are named apart from the
    closest capabilities, never offered as something to ask for."""
    refusal_of = runtime.context.policy.standing_refusal
    min_score = runtime.context.limits.min_score
    closest = selection_.candidates[0] if selection_.candidates else None
    best_of = f" (best: {closest.capability.key}, score {closest.score:g})" if closest else ""
    refusal = refusal_of(closest.capability) if closest is not None and closest.referred_to else None
    if closest is not None and refusal is not None:
        return _refused(state, selection_, [(closest, refusal)], refusal_of)
    text = selection_.no_match or no_match_sentence(selection_.candidates, refusal_of)
    return {
        "selected_capability": None,
        "fallback_reason": f"no capability matches the request well enough{best_of}; "
        f"the threshold is {min_score:g}",
        "fallback_text": _prefaced(selection_, text),
    }


def _offered_choices(
    choices: Sequence[ScoredCapability], refusal_of: RefusalOf
) -> tuple[list[ScoredCapability], list[tuple[ScoredCapability, StandingRefusal]]]:
    """The choices the operator may be asked to pick from, in the planner's order, and those
    the policy refuses whatever the arguments: offering one of those is a dead end."""
    offered: list[ScoredCapability] = []
    refused: list[tuple[ScoredCapability, StandingRefusal]] = []
    for choice in choices:
        refusal = refusal_of(choice.capability)
        if refusal is None:
            offered.append(choice)
        else:
            refused.append((choice, refusal))
    return offered, refused


def _refused(
    state: GraphState,
    selection_: Selection,
    refused: Sequence[tuple[ScoredCapability, StandingRefusal]],
    refusal_of: RefusalOf,
) -> GraphState:
    """The answer when the capability closest to the request (the first of ``refused``) is one
    the policy refuses whatever the arguments: a refusal by the policy (status ``error``, as
    validate_capability's), naming the rule; the other refused choices are named apart."""
    (closest, refusal), *others = refused
    key = closest.capability.key
    ordered = [closest, *(s for s in selection_.candidates if s.capability.key != key)]
    return {
        "selected_capability": None,
        "status": "error",
        # As validate_capability's refusal says it (the scores stay in the candidates).
        "fallback_reason": f"refused by policy: {refusal.explanation}",
        "fallback_text": _prefaced(
            selection_, refused_fit_sentence(ordered, refusal, refusal_of, also_refused=others)
        ),
        "errors": errors_with(state, refusal_sentence(refusal.rule, key, refusal.explanation)),
    }


def _prefaced(selection_: Selection, text: str) -> str:
    return f"{selection_.no_match_preface} {text}" if selection_.no_match_preface else text


def _with_answers(extraction: Extraction, capability: Capability, answered: dict[str, Any]) -> Extraction:
    """The planner's arguments with the values the operator typed into the clarification form
    in place of what it read from the answer's words: a typed value is the operator's own,
    exactly as typed (the words lose a file's line breaks). Only the capability's own
    arguments: a value typed for another capability's question does not carry over."""
    typed = {name: value for name, value in answered.items() if name in capability.properties}
    if not typed:
        return extraction
    how = "typed into the clarification form"
    return Extraction(
        arguments={**extraction.arguments, **typed},
        missing=[name for name in extraction.missing if name not in typed],
        sources={**extraction.sources, **dict.fromkeys(typed, "the operator's answer")},
        evidence={**extraction.evidence, **{name: str(value) for name, value in typed.items()}},
        invalid={name: why for name, why in extraction.invalid.items() if name not in typed},
        distinctive=extraction.distinctive,
        provenance={
            **extraction.provenance,
            **{name: Provenance("stated", str(value), how) for name, value in typed.items()},
        },
    )


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
