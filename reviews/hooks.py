"""The graph's review hooks, on the ledger and the audit log.

Each hook writes its ledger change and the audit event recording it in one transaction
(storage/transactions.py), the audit event last: the audit chain's head row is the one lock every
writer takes, so it is taken last and held shortest, and always after any review row (one lock
order, no deadlock between replicas)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from graph.context import CallOutcome
from graph.results_view import summarize
from mcp_host.results import McpResult
from reviews.audit import AuditLog
from reviews.ledger import ReviewLedger
from reviews.notifications import NoNotifications, Notifier
from reviews.resume_check import resume_problem
from storage.database import Connection
from storage.transactions import one_transaction

if TYPE_CHECKING:
    from graph.state import EffectCheckData, ReviewDecision, ReviewPayload


class LedgerHooks:
    def __init__(
        self,
        ledger: ReviewLedger,
        audit: AuditLog,
        notifier: Notifier | None = None,
        time_limit: Callable[[str], float] | None = None,
        served_by: str | None = None,
    ) -> None:
        """``time_limit(server)``: a call's time limit on that server, in seconds (recorded with
        each start, so a sweep elsewhere knows how long the call may take; None: none known).

        ``served_by``: the graph runs on a server with checkpoints of its own ('langgraph-api',
        gatehouse/langgraph_server.py). Its reviews are opened so marked, and the review
        service records decisions on them without resuming anything; the decision is carried
        out when the server's caller resumes the thread with it and the graph accepts it."""
        self._ledger = ledger
        self._audit = audit
        self._notifier = notifier or NoNotifications()
        self._time_limit = time_limit
        self._served_by = served_by

    def _transaction(self) -> AbstractContextManager[Connection]:
        return one_transaction(self._ledger.database, self._audit.database)

    def review_opened(self, payload: ReviewPayload) -> None:
        if self._ledger.get(payload["review_id"]) is not None:
            return  # the node re-runs on every resume: a read, no write transaction
        with self._transaction():
            review, created = self._ledger.open_review(payload, served_by=self._served_by)
            if not created:
                return
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
        # After the commit: nobody is told of a review that was rolled back.
        self._notifier.review_event("review_opened", review)

    def call_started(self, review_id: str) -> bool:
        return self._ledger.started(review_id)

    def call_starting(self, review_id: str, call_hash: str, thread_id: str) -> bool:
        # Committed before the call is made: the start is on record whatever happens next.
        with self._transaction():
            started = self._ledger.begin_execution(
                review_id, call_hash, thread_id, time_limit=self._call_time_limit(review_id)
            )
            self._audit.append(
                "execution_started" if started else "execution_refused",
                {"call_hash": call_hash}
                | (
                    {}
                    if started
                    else {"why": "its start was recorded before; it is never run twice by itself"}
                ),
                thread_id=thread_id,
                review_id=review_id,
            )
        return started

    def _call_time_limit(self, review_id: str) -> float | None:
        if self._time_limit is None:
            return None
        review = self._ledger.get(review_id)
        server = review.capability.get("server") if review is not None else None
        return self._time_limit(server) if isinstance(server, str) else None

    def call_finished(self, review_id: str, outcome: CallOutcome, result: dict[str, Any]) -> None:
        summary = summarize(McpResult.model_validate(result))
        with self._transaction():
            self._ledger.finish_execution(review_id, outcome, result)
            thread_id = self._ledger.thread_of(review_id)
            self._audit.append(
                "execution_result",
                {"outcome": outcome, "succeeded": outcome == "executed", "summary": summary},
                thread_id=thread_id,
                review_id=review_id,
            )

    def recorded_result(self, review_id: str) -> dict[str, Any] | None:
        return self._ledger.recorded_result(review_id)

    def effect_checked(self, review_id: str, check: EffectCheckData) -> None:
        # A mismatch is what an auditor looks for, under its own kind; what was verified, or
        # could not be, is the call's record too.
        kind = "effect_mismatch" if check["status"] == "mismatch" else "effect_check"
        # On the review too, for the reviewer's history (the Reviews page, `reviews list`); the
        # audit event last, as every hook writes it (the module's docstring).
        with self._transaction():
            self._ledger.record_effect_check(review_id, check)
            thread_id = self._ledger.thread_of(review_id)
            self._audit.append(kind, dict(check), thread_id=thread_id, review_id=review_id)

    def decision_problem(self, payload: ReviewPayload, decision: ReviewDecision) -> str | None:
        # A read: the decision was committed before the thread was resumed with it.
        problem = resume_problem(self._ledger.get(payload["review_id"]), payload, decision)
        if problem is None and self._served_by is not None:
            # Served elsewhere, nobody here resumes the thread: it is carried out now, as the
            # graph takes it, so the same decision is refused from then on.
            self._carried_out(payload, decision)
        return problem

    def _carried_out(self, payload: ReviewPayload, decision: ReviewDecision) -> None:
        with self._transaction():
            self._ledger.mark_carried_out(payload["review_id"])
            self._audit.append(
                "decision_resumed",
                {"action": decision.action, "why": f"resumed through {self._served_by}"},
                thread_id=payload["thread_id"],
                review_id=payload["review_id"],
            )
