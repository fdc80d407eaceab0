"""Where a client's call stands, read from the ledger and the thread's checkpoints: what a
waiting client is told as progress, what `tasks/get` answers, and, once the thread is done,
the call's result. Synchronous: the endpoint runs it on a worker thread.

The ledger says whether a reviewer has decided and whether the decision was carried out (by
whichever process took it: the app, the command line, another replica); the checkpoints say
what the thread ended with. The result is read from the thread, never run again: a call
approved once runs once, and every client that asks for it reads the same answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gatehouse.gateway.outcomes import result_of
from graph.runner import outcome, thread_config

if TYPE_CHECKING:
    import mcp_types as types

    from gatehouse.gateway.client_calls import ClientCall
    from gatehouse.wiring import Services
    from reviews.ledger import Review

# waiting: a reviewer has not decided; running: the graph is on it (the call itself, or the
# decision being carried out); completed: the thread is done and ``result`` is its answer;
# cancelled: the client withdrew the call before a decision.
CallState = Literal["waiting", "running", "completed", "cancelled"]


@dataclass(frozen=True)
class CallStatus:
    state: CallState
    # One line for the client (progress notifications, a task's status message).
    message: str
    review_id: str | None = None
    result: types.CallToolResult | None = None
    # When it last changed, as the ledger or the checkpoints recorded it (ISO 8601).
    changed_at: str | None = None

    @property
    def done(self) -> bool:
        return self.state in ("completed", "cancelled")


def _waiting_message(review: Review) -> str:
    if review.stage == "untrusted_output":
        return f"The call ran; its result is held until a reviewer releases it (review {review.id})."
    return (
        f"Waiting for a reviewer on Gatehouse's Reviews page (review {review.id}, "
        f"expires {review.expires_at})."
    )


def status_of(services: Services, call: ClientCall) -> CallStatus:
    """The call's status now."""
    review = services.ledger.latest_for_thread(call.thread_id)
    if review is not None and review.status == "pending":
        return CallStatus("waiting", _waiting_message(review), review.id, changed_at=review.created_at)
    if review is not None and review.carried_out_at is None:
        by = f" by {review.decided_by}" if review.decided_by else ""
        return CallStatus(
            "running",
            f"Review {review.id} was {review.status}{by}; carrying it out.",
            review.id,
            changed_at=review.decided_at,
        )
    snapshot = services.graph.get_state(thread_config(call.thread_id))
    review_id = review.id if review is not None else None
    if snapshot.created_at is None or snapshot.next:
        return CallStatus(
            "running", "The call is being checked and run.", review_id, changed_at=snapshot.created_at
        )
    if call.closed_how == "cancelled" and review is not None and review.status == "cancelled":
        return CallStatus(
            "cancelled",
            f"Withdrawn by the client (review {review.id}).",
            review_id,
            changed_at=review.decided_at,
        )
    run = outcome(services.graph, services.context, call.thread_id, [])
    return CallStatus(
        "completed", "Done.", review_id, result_of(run, call.requester), changed_at=snapshot.created_at
    )
