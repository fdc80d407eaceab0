"""A settled review's wait for a person, for telemetry (telemetry/review_wait.py): read from
the ledger's row and the thread's checkpoint when the decision is carried out, by whichever
process carries it out. Nothing is read when telemetry is off."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import TYPE_CHECKING, Any

from gatehouse_verify.canonical import canonical_json
from graph.runner import thread_config
from telemetry.review_wait import ReviewDecided, ReviewWait, review_waited
from telemetry.switch import capture_arguments, observed, tracing

if TYPE_CHECKING:
    from graph.builder import CompiledGraph
    from graph.state import ReviewDecision
    from policies.engine import PolicyEngine
    from reviews.ledger import Review


def arguments_digest(arguments: dict[str, Any] | None) -> str | None:
    """What a span says of arguments by default: the SHA-256 of their canonical JSON, which
    tells two calls apart without showing either."""
    if arguments is None:
        return None
    return hashlib.sha256(canonical_json(arguments).encode("utf-8")).hexdigest()


def _moment(text: str | None, fallback: datetime) -> datetime:
    return datetime.fromisoformat(text) if text else fallback


def record_wait(
    graph: CompiledGraph, policy: PolicyEngine, review: Review, decision: ReviewDecision, now: datetime
) -> dict[str, str] | None:
    """Record the wait ``review`` ended with ``decision``; returns the request's stored trace
    context (None: none, or telemetry off), which the thread's continuation runs under."""
    if not observed():
        return None
    values = graph.get_state(thread_config(review.thread_id)).values if tracing() else {}
    trace = values.get("trace_context") or None
    checked = values.get("capability_validation") or {}
    decided_at = _moment(review.decided_at, now)
    decisions = [
        ReviewDecided(
            reviewer=recorded.reviewer,
            decision=recorded.action,
            at=_moment(recorded.decided_at, decided_at),
            arguments_digest=arguments_digest(recorded.arguments),
            arguments=(
                policy.hide_secrets(recorded.arguments, thread_id=review.thread_id)
                if capture_arguments() and recorded.arguments is not None
                else None
            ),
        )
        for recorded in review.decisions
    ]
    if decision.action in {"expire", "cancel"} or not decisions:
        decisions.append(ReviewDecided(reviewer=decision.by, decision=decision.action, at=decided_at))
    capability = review.capability or {}
    review_waited(
        ReviewWait(
            review_id=review.id,
            thread_id=review.thread_id,
            stage=review.stage,
            tool_name=capability.get("name"),
            capability_key=review.capability_key,
            opened_at=datetime.fromisoformat(review.created_at),
            decided_at=decided_at,
            decision=decision.action,
            requester=review.requester,
            arguments_digest=arguments_digest(review.arguments),
            policy_version_requested=checked.get("policy_version"),
            policy_version_decided=policy.version,
            decisions=decisions,
        ),
        request_trace=trace,
    )
    return dict(trace) if trace else None
