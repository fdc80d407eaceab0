"""final_output: one builder for finished runs and for runs paused for a person.

A paused run has not reached generate_final_response, so the runner builds its output from
the state and the pending interrupt with the same functions: the operator reads the same
kind of sentence either way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from graph.accessors import asked_about, manifest, validation_flags
from graph.capability_words import in_plain_words
from graph.choice_words import question
from graph.fallback import earlier_failures
from graph.planner.arguments import property_shape
from graph.planner.scoring import ScoredCapability
from graph.planner.unserved import change_nothing_can_make
from graph.results_view import clip, describe, summarize
from graph.server_notes import answer_errors, server_notes
from graph.state import (
    ArgumentChanges,
    Asked,
    CapabilityRef,
    Choice,
    EffectCheck,
    ErrorInfoData,
    FinalOutput,
    GrantUse,
    GraphState,
    NoCallReason,
    ReviewPayload,
    ReviewSummary,
    Status,
)
from mcp_host.manifest import Capability
from mcp_host.results import McpResult
from policies.decision import Flag, StandingRefusal


def _capability_ref(state: GraphState) -> CapabilityRef | None:
    selected = state.get("selected_capability")
    if not selected:
        return None
    return CapabilityRef(server=selected["server"], type=selected["type"], name=selected["name"])


def _capability_label(state: GraphState) -> str:
    ref = _capability_ref(state)
    return f"{ref.server}/{ref.name}" if ref else "the selected capability"


def _describe_argument(name: str, schema: dict[str, Any]) -> str:
    enum = property_shape(schema).get("enum")
    if isinstance(enum, list) and enum:
        return f"{name} (one of {', '.join(map(str, enum))})"
    description = schema.get("description")
    return f"{name} ({description})" if description else name


# At most this many of the closest capabilities are named when nothing fits.
CLOSEST_NAMED = 3
NOTHING_FITS = "Nothing configured can do that"

# What the policy refuses whatever the arguments (policies/engine.py standing_refusal).
RefusalOf = Callable[[Capability], StandingRefusal | None]


def refusal_sentence(rule: str, key: str, explanation: str) -> str:
    """A refusal by the policy in words: its rule, the capability and why. The one wording for
    a refused call (validate_capability) and a refused closest fit (select_capability)."""
    return f"policy rule {rule} refused {key}: {explanation}"


def _named(capability: Capability) -> str:
    """A capability as the operator reads it: what it does, and whose it is."""
    return f"{in_plain_words(capability).rstrip('.')} ({capability.server})"


def _never(capability: Capability) -> StandingRefusal | None:
    return None


def _closest(
    candidates: Sequence[ScoredCapability], refusal_of: RefusalOf, *, referred_only: bool = False
) -> tuple[list[ScoredCapability], list[tuple[ScoredCapability, StandingRefusal]]]:
    """The closest candidates that may be asked for (at most CLOSEST_NAMED, each description
    once), and the refused ones ranked among them: those the old list would have offered."""
    named: list[ScoredCapability] = []
    words: set[str] = set()
    refused: list[tuple[ScoredCapability, StandingRefusal]] = []
    for scored in candidates:
        if len(named) == CLOSEST_NAMED:
            break
        if referred_only and not scored.referred_to:
            continue
        said = _named(scored.capability)
        refusal = refusal_of(scored.capability)
        if refusal is not None:
            if said not in {_named(r.capability) for r, _ in refused}:
                refused.append((scored, refusal))
        elif said not in words:
            words.add(said)
            named.append(scored)
    return named, refused


def _refused_near(refused: Sequence[tuple[ScoredCapability, StandingRefusal]]) -> str:
    """The refused capabilities the closest would have named, each with the rule that refuses
    it: said, never offered as something to ask for."""
    return "".join(
        f" Not offered: {_named(scored.capability)}, which the policy refuses whatever the arguments "
        f"({refusal_sentence(refusal.rule, scored.capability.key, refusal.explanation.rstrip('.'))})."
        for scored, refusal in refused
    )


def no_match_sentence(candidates: Sequence[ScoredCapability], refusal_of: RefusalOf | None = None) -> str:
    """Why nothing was run when no capability fits, in words: nothing configured can do it, and
    what the closest capabilities do (their descriptions, never the planner's scores, which
    mean nothing to the person who asked). One the policy refuses whatever the arguments
    (``refusal_of``) is not offered among them: it is named apart, with the rule that refuses it."""
    named, refused = _closest(candidates, refusal_of or _never)
    also = _refused_near(refused)
    if not named:
        if refused:
            return f"{NOTHING_FITS}, so nothing was run.{also}"
        return (
            f"{NOTHING_FITS}: the configured servers offer no capability for it, so nothing was run. "
            "Ask for something the servers can do."
        )
    first = named[0]
    change = change_nothing_can_make(first.reasons)
    if change is not None:
        # A read was the nearest thing: say that nothing can make the change, not a score.
        return (
            f"{NOTHING_FITS}: the request asks to {change}, and the closest capability, "
            f"{_named(first.capability)}, only reads. Nothing was run.{also}"
        )
    closest = "; ".join(f"{index}) {_named(s.capability)}" for index, s in enumerate(named, start=1))
    return (
        f"{NOTHING_FITS}, so nothing was run. The closest capabilities: {closest}. If you meant one of "
        "these, say so in other words; what you can ask (in the chat, or `gatehouse capabilities`) "
        f"lists everything the servers can do.{also}"
    )


def refused_fit_sentence(
    candidates: Sequence[ScoredCapability],
    refusal: StandingRefusal,
    refusal_of: RefusalOf,
    *,
    also_refused: Sequence[tuple[ScoredCapability, StandingRefusal]] = (),
) -> str:
    """Why nothing was run when the capability closest to the request (the first of
    ``candidates``, which the request referred to) is one the policy refuses whatever the
    arguments: that capability, the rule and its reason, as a refused call says them, and the
    others the request referred to that may be asked for. ``also_refused``: the other choices
    the operator would have been asked between, refused too, named apart."""
    best = candidates[0].capability
    said = (
        f"The closest fit for this request, {_named(best)}, is refused by the policy whatever the "
        f"arguments: {refusal_sentence(refusal.rule, best.key, refusal.explanation.rstrip('.'))}. "
        "Nothing was run."
    )
    others, _ = _closest(candidates[1:], refusal_of, referred_only=True)
    if others:
        listed = "; ".join(f"{index}) {_named(s.capability)}" for index, s in enumerate(others, start=1))
        said = f"{said} Also near it: {listed}. If you meant one of these, say so in other words."
    return f"{said}{_refused_near(also_refused)}"


def clarification_question(state: GraphState) -> str:
    selected = state.get("selected_capability")
    label = _capability_label(state)
    asking = asked_about(selected)
    if asking is not None:
        # Which capability they mean comes first: its arguments are asked for once it is known.
        return question(*asking)
    properties = selected["input_schema"].get("properties", {}) if selected else {}
    missing = state.get("missing_arguments") or []
    invalid = [f for f in validation_flags(state) if f["code"] == "invalid_argument"]
    parts = []
    if missing:
        wanted = ", ".join(_describe_argument(n, properties.get(n, {})) for n in missing)
        parts.append(f"To run {label} I need: {wanted}.")
    parts.extend(f["message"] for f in invalid)
    example = f"{missing[0]}=..." if missing else "name=value"
    parts.append(
        f"Reply on this thread with the value (for example `{example}`); nothing was run or invented."
    )
    return " ".join(parts)


def _failed_result(state: GraphState) -> ErrorInfoData | None:
    """The error of the call's result, when the call failed."""
    result = state.get("mcp_result")
    return result["error"] if result and not result["success"] else None


def _response(state: GraphState, status: Status, limit: int, stage: str | None = None) -> str:
    label = _capability_label(state)
    reason = state.get("fallback_reason")
    review = state.get("review")
    # Who decided, and how, when a person did.
    decided = review["decision"] if review else None
    by = decided["by"] if decided else None
    context = state.get("context_update")
    failed = _failed_result(state)
    if status == "error" and failed is not None and context and context.get("untrusted"):
        # A held error message a reviewer released: quoted, and said to be untrusted.
        return clip(
            f"{label} failed ({failed['kind']}); its error message, released by {by} "
            f"and marked untrusted: {failed['message']}",
            limit,
        )
    if status == "ok":
        text = describe(context, limit) if context and context["source"] else "Done."
        if context and context.get("untrusted"):
            text = f"[untrusted output, released by {by}] {text}"
        elif (
            review is not None
            and review["stage"] in {"before_execution", "after_failure"}
            and decided is not None
            and decided["action"] == "approve"
        ):
            # Who let it run, and what they changed, come first: the operator asked for something
            # else if a reviewer edited it.
            changed = review.get("changed_arguments") or []
            edits = f", who changed {', '.join(changed)}" if changed else ""
            text = clip(f"Approved by {by}{edits}. {text}", limit)
        # A result from a stand-in never reads as the first call's: what failed comes first.
        first = earlier_failures(state)
        return clip(f"{first} {text}", limit) if first else text
    if status == "answered_without_mcp":
        return str(
            (context.get("text") if context else None) or reason or "No external capability was needed."
        )
    if status == "needs_clarification":
        return clarification_question(state)
    if status == "needs_review":
        why = (reason or "the policy asks for a reviewer").rstrip(".")
        if stage == "untrusted_output" and failed is not None:
            return f"{label} failed, and its error message is held for a reviewer: {why}. Nothing of it is used yet."
        if stage == "untrusted_output":
            return f"{label} ran, but its output is held for a reviewer: {why}. Nothing of it is used yet."
        if stage == "after_failure":
            return f"{label} failed and waits for a reviewer before any retry: {why}."
        return f"{label} waits for a reviewer before it runs: {why}. Nothing has run yet."
    if status == "rejected":
        why = (decided["reason"] if decided else None) or "no reason given"
        reviewer = by if decided else "A reviewer"
        if review is not None and review["stage"] == "untrusted_output":
            return f"{reviewer} rejected what {label} returned: {why}. None of it is used."
        return f"{reviewer} rejected {label}: {why}. Nothing was run."
    if status == "expired":
        return f"The review of {label} expired before anyone decided. Nothing was run."
    if status == "cancelled":
        return f"{by if decided else 'The requester'} withdrew the request for {label}. Nothing was run."
    return _error_response(state, reason)


def _error_response(state: GraphState, reason: str | None) -> str:
    """Why a request failed or was refused, for the person who asked."""
    if state.get("fallback_text") and not state.get("selected_capability") and not state.get("mcp_result"):
        # Stopped before anything was chosen or called, with Gatehouse's own sentence for the
        # person who asked (a closest fit the policy refuses, servers with nothing usable):
        # that sentence, not the machine's.
        return str(state["fallback_text"])
    # Another server's trouble is no part of why this request failed (graph/server_notes.py).
    errors = answer_errors(state)
    return "; ".join(errors) if errors else (reason or "The request failed.")


def build_final_output(state: GraphState, *, limit: int, pending: ReviewPayload | None = None) -> FinalOutput:
    """The operator's view of a run: finished (``pending`` None) or paused at an interrupt."""
    review: ReviewSummary | None = None
    if pending is not None:
        stage = pending["stage"]
        status: Status = "needs_clarification" if stage == "clarification" else "needs_review"
        review = ReviewSummary(
            id=pending["review_id"],
            stage=stage,
            flags=[Flag.model_validate(f) for f in pending.get("flags", [])],
            reason=pending.get("reason"),
            choices=[Choice.model_validate(c) for c in pending.get("choices", [])],
            asked=Asked.model_validate(pending["asked"]) if pending.get("asked") else None,
        )
    else:
        status = state.get("status") or "error"
        if status == "ok" and _failed_result(state) is not None:
            # A reviewer released a held error message: the call still failed.
            status = "error"
        recorded = state.get("review")
        if recorded:
            decision = recorded["decision"]
            review = ReviewSummary(
                id=recorded["id"],
                stage=recorded["stage"],
                flags=[Flag.model_validate(f) for f in recorded["flags"]],
                reason=decision.get("reason"),
                decided_by=decision.get("by"),
                decision=decision.get("action"),
                decided_at=decision.get("at"),
                changes=ArgumentChanges.model_validate(recorded["changes"])
                if recorded.get("changes")
                else None,
            )
    result = state.get("mcp_result")
    selected = state.get("selected_capability")
    parsed = McpResult.model_validate(result) if result else None
    summary = dict(summarize(parsed)) if parsed else None
    return FinalOutput(
        status=status,
        response=_response(state, status, limit, pending["stage"] if pending else None),
        selected_capability=_capability_ref(state),
        mcp_result_summary=summary,
        fallback_reason=state.get("fallback_reason"),
        review=review,
        missing_arguments=list(state.get("missing_arguments") or []),
        thread_id=state.get("thread_id", ""),
        errors=answer_errors(state),
        server_notes=server_notes(state),
        result=_readable_result(parsed) if status == "ok" and pending is None else None,
        arguments=dict(state.get("proposed_arguments") or {}) if selected else {},
        argument_evidence=dict(state.get("argument_evidence") or {}),
        # .get: a selection checkpointed by an older release may lack these two fields.
        explanation=selected.get("explanation") if selected else None,
        planner=selected.get("planner") if selected else None,
        no_call_reason=_no_call_reason(state) if status == "answered_without_mcp" else None,
        grant=_grant_ran_under(state) if pending is None else None,
        effect_check=_effect_check(state),
    )


def _effect_check(state: GraphState) -> EffectCheck | None:
    """What the reviewed call's effect read back as after it ran (graph/effect_readback.py)."""
    checked = (state.get("capability_validation") or {}).get("effect_check")
    return EffectCheck.model_validate(checked) if checked else None


def _grant_ran_under(state: GraphState) -> GrantUse | None:
    """The remembered approval the call was made under instead of a review, once it was made."""
    granted = (state.get("capability_validation") or {}).get("grant")
    return GrantUse.model_validate(granted) if granted and state.get("mcp_result") else None


def _no_call_reason(state: GraphState) -> NoCallReason:
    """Why a run answered without calling a server, read off the route it took."""
    if state.get("intent") == "answer_without_mcp":
        return "general_question"
    if state.get("selected_capability"):
        return "not_usable"  # chosen, then found unusable (validate_capability)
    # Discovery found nothing to choose from, or select_capability found nothing good enough.
    return "nothing_fits" if manifest(state).capabilities() else "nothing_offered"


def _readable_result(result: McpResult | None) -> dict[str, Any] | None:
    """What the call returned, for a person to read: its content and structured content (the
    host capped both before they entered the state)."""
    if result is None or not result.success:
        return None
    return {
        "content": [item.model_dump(exclude_defaults=True) for item in result.content],
        "structured": result.structured,
    }
