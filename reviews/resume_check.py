"""Whether a resume value is the decision the review ledger recorded: the graph's check on
every resume (graph/nodes/review.py through ReviewHooks.decision_problem).

Only the review service decides (roles, four-eyes, decide-once, the call hash, the audit log);
reviews/resume.py carries its decision into the thread. A resume from anywhere else (the
LangGraph API of `langgraph dev`, say) is accepted only when it carries that same recorded
decision for the review the thread waits on, before its decision was carried out. Pure: it
reads the review the caller fetched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graph.calls import call_hash

if TYPE_CHECKING:
    from graph.state import ReviewDecision, ReviewPayload
    from reviews.ledger import Review

# The ledger's status once a review is settled, per the action that resumes its thread.
_SETTLED_AS = {"approve": "approved", "reject": "rejected", "expire": "expired", "cancel": "cancelled"}

_HOW = "decide it through Gatehouse (the Reviews page or `gatehouse reviews decide`)"


def resume_problem(review: Review | None, payload: ReviewPayload, decision: ReviewDecision) -> str | None:
    """Why ``decision`` may not resume the thread waiting on ``payload``; None when it is the
    decision the ledger recorded for that review and has not been carried out yet."""
    review_id = payload["review_id"]
    if review is None:
        return f"review {review_id} is not in Gatehouse's ledger: {_HOW}"
    capability = payload["capability"]
    shown = call_hash(
        capability.get("server") or "", capability.get("fingerprint") or "", payload["arguments"]
    )
    if shown != review.call_hash:
        return (
            f"review {review_id} in the ledger is for another call (its call hash differs from the thread's)"
        )
    if review.status == "pending":
        return f"review {review_id} is not decided yet: {_HOW}"
    if review.carried_out_at is not None:
        return f"review {review_id}'s decision was carried out already at {review.carried_out_at}"
    if decision.at != review.decided_at:
        # A value sent before the decision was recorded cannot carry its time: LangGraph replays
        # a refused resume on every re-run of the node, and it must stay refused.
        return f"review {review_id} was settled at {review.decided_at}; the resume says {decision.at}"
    settled = _SETTLED_AS.get(decision.action)
    if settled != review.status:
        return f"review {review_id} was {review.status} in the ledger, not resumed with {decision.action}"
    if decision.action in ("approve", "reject", "cancel") and decision.by != review.decided_by:
        return f"review {review_id} was decided by {review.decided_by}, not {decision.by}"
    if decision.action == "reject" and (decision.reason or None) != (review.reason or None):
        return f"review {review_id} was rejected for another reason than the resume says"
    if decision.action == "approve":
        return _approval_problem(review, payload, decision)
    return None


def _approval_problem(review: Review, payload: ReviewPayload, decision: ReviewDecision) -> str | None:
    """An approval runs exactly the arguments approved, bound to what its approvers were shown."""
    approved = review.approved_arguments()
    resumed = decision.arguments if decision.arguments is not None else payload["arguments"]
    if approved is None or resumed != approved:
        return f"review {review.id} was approved for other arguments than the resume carries"
    if (decision.effects or None) != review.approved_effects(approved):
        return f"review {review.id} was approved on another view of the file the call writes"
    return None
