"""The wait for a person: a span from the review's opening to its decision, and its metric.

Nobody holds a span open while a reviewer thinks (minutes to days, and the process that asked
may be gone): the span is made when the decision is taken, by whichever process takes it,
with the start the ledger recorded, under the request's stored trace context, so it joins the
request's trace. Its events say when the review was requested and what each reviewer decided:
who, the decision, a digest of the arguments decided on and the policy version; the argument
values only when explicitly enabled (telemetry/switch.py capture_arguments), and then with
their secrets already hidden by the caller.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from opentelemetry.trace import Link, SpanKind, get_current_span

from telemetry.spans import context_of
from telemetry.switch import capture_arguments, instruments, metrics, tracer, tracing

REQUESTED = "gatehouse.review.requested"
DECIDED = "gatehouse.review.decided"


@dataclass(frozen=True)
class ReviewDecided:
    """One reviewer's decision (or the expiry's, by ``gatehouse``)."""

    reviewer: str
    decision: str
    at: datetime
    arguments_digest: str | None = None
    # The arguments decided on, secrets hidden: on the event only when capture is enabled.
    arguments: Any = None


@dataclass(frozen=True)
class ReviewWait:
    review_id: str
    thread_id: str
    stage: str
    # What waited: the capability's tool name and key (None for a review with no selection).
    tool_name: str | None
    capability_key: str | None
    opened_at: datetime
    decided_at: datetime
    decision: str
    requester: str
    arguments_digest: str | None
    # The policy version the call was checked under, and the one in force at the decision.
    policy_version_requested: int | None
    policy_version_decided: int | None
    decisions: Sequence[ReviewDecided]


def _ns(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000_000)


def _without_none(attributes: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in attributes.items() if value is not None}


def review_waited(wait: ReviewWait, *, request_trace: Mapping[str, str] | None) -> None:
    """Record a settled review's wait: the span under ``request_trace`` (the request's stored
    trace context; a trace of its own without one) and ``gatehouse.review.wait.duration``."""
    if metrics():
        seconds = max(0.0, (wait.decided_at - wait.opened_at).total_seconds())
        instruments().review_wait.record(
            seconds, {"gatehouse.review.decision": wait.decision, "gatehouse.review.stage": wait.stage}
        )
    if not tracing():
        return
    parent = context_of(request_trace)
    links = [Link(get_current_span(parent).get_span_context())] if parent is not None else []
    span = tracer().start_span(
        "wait for review",
        context=parent,
        kind=SpanKind.INTERNAL,
        links=links,
        start_time=_ns(wait.opened_at),
        attributes=_without_none(
            {
                "gatehouse.review.id": wait.review_id,
                "gatehouse.review.stage": wait.stage,
                "gatehouse.review.decision": wait.decision,
                "gen_ai.conversation.id": wait.thread_id,
                "gen_ai.tool.name": wait.tool_name,
                "gatehouse.capability.key": wait.capability_key,
                "gatehouse.policy.version": wait.policy_version_decided,
            }
        ),
    )
    span.add_event(
        REQUESTED,
        _without_none(
            {
                "gatehouse.review.requester": wait.requester,
                "gatehouse.review.arguments.digest": wait.arguments_digest,
                "gatehouse.policy.version": wait.policy_version_requested,
            }
        ),
        timestamp=_ns(wait.opened_at),
    )
    for decided in wait.decisions:
        attributes: dict[str, Any] = {
            "gatehouse.review.reviewer": decided.reviewer,
            "gatehouse.review.decision": decided.decision,
            "gatehouse.review.arguments.digest": decided.arguments_digest,
            "gatehouse.policy.version": wait.policy_version_decided,
        }
        if capture_arguments() and decided.arguments is not None:
            attributes["gatehouse.review.arguments"] = json.dumps(
                decided.arguments, sort_keys=True, default=str
            )
        span.add_event(DECIDED, _without_none(attributes), timestamp=_ns(decided.at))
    span.end(end_time=_ns(wait.decided_at))
