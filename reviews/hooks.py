"""The graph's review hooks, on the ledger and the audit log."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graph.context import CallOutcome
from graph.results_view import summarize
from mcp_host.results import McpResult
from reviews.audit import AuditLog
from reviews.ledger import ReviewLedger
from reviews.notifications import NoNotifications, Notifier

if TYPE_CHECKING:
    from graph.state import ReviewPayload


class LedgerHooks:
    def __init__(self, ledger: ReviewLedger, audit: AuditLog, notifier: Notifier | None = None) -> None:
        self._ledger = ledger
        self._audit = audit
        self._notifier = notifier or NoNotifications()

    def review_opened(self, payload: ReviewPayload) -> None:
        review, created = self._ledger.open_review(payload)
        if created:
            self._audit.append(
                "review_requested",
                {
                    "stage": review.stage,
                    "capability": review.capability_key,
                    "arguments": review.arguments,
                    "call_hash": review.call_hash,
                    "flags": [f.get("code") for f in review.flags],
                    "expires_at": review.expires_at,
                    "required_approvals": review.required_approvals,
                },
                thread_id=review.thread_id,
                review_id=review.id,
                actor=review.requester,
            )
            self._notifier.review_event("review_opened", review)

    def call_starting(self, review_id: str, call_hash: str, thread_id: str) -> bool:
        started = self._ledger.begin_execution(review_id, call_hash, thread_id)
        self._audit.append(
            "execution_started" if started else "execution_refused",
            {"call_hash": call_hash}
            | ({} if started else {"why": "its start was recorded before; it is never run twice by itself"}),
            thread_id=thread_id,
            review_id=review_id,
        )
        return started

    def call_finished(self, review_id: str, outcome: CallOutcome, result: dict[str, Any]) -> None:
        self._ledger.finish_execution(review_id, outcome, result)
        review = self._ledger.get(review_id)
        self._audit.append(
            "execution_result",
            {
                "outcome": outcome,
                "succeeded": outcome == "executed",
                "summary": summarize(McpResult.model_validate(result)),
            },
            thread_id=review.thread_id if review else None,
            review_id=review_id,
        )

    def recorded_result(self, review_id: str) -> dict[str, Any] | None:
        return self._ledger.recorded_result(review_id)
