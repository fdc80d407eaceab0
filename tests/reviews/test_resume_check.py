"""Only the review service decides; every resume is checked against its decision. A resume
that is not the decision the ledger recorded for the review the thread waits on (another
review, undecided, another decider or other arguments, another call, carried out already) is
refused before anything runs, and the thread keeps waiting for the real one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langgraph.types import Command

from graph.context import ResumeRefusedError
from graph.runner import pending_interrupt, thread_config
from graph.state import ReviewDecision
from reviews.resume import resume
from reviews.resume_check import resume_problem
from tests.reviews.review_support import EMAIL_REQUEST, email_review, email_servers, outbox, services_for

pytestmark = pytest.mark.usefixtures("bundled_in_process")


def test_a_forged_resume_is_refused_until_it_carries_the_recorded_decision_which_runs_once(
    data_dir: Path,
) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None
        review_id, thread = paused.final_output.review.id, paused.final_output.thread_id
        proposed = services.ledger.require(review_id).arguments

        def forged(value: dict[str, Any]) -> str:
            """Resume the compiled graph directly; the refusal is in the interrupt it waits on again."""
            services.graph.invoke(Command(resume=value), thread_config(thread), context=services.context)
            (waiting,) = services.graph.get_state(thread_config(thread)).interrupts
            assert waiting.value["review_id"] == review_id
            return str(waiting.value.get("resume_refused"))

        approval: dict[str, Any] = {"action": "approve", "by": "reviewer", "review_id": review_id}
        refusals = [
            (approval, "is not decided yet"),
            ({"action": "approve", "by": "reviewer"}, "the resume names no review"),
            (approval | {"review_id": f"{thread}-r9"}, f"names {thread}-r9"),
        ]
        for value, why in refusals:
            assert why in forged(value)
            assert pending_interrupt(services.graph, thread) is not None

        # Decided in the ledger (as the review service records it), not carried out yet.
        recorded = services.ledger.record_decision(
            review_id, reviewer="reviewer", action="approve", reason=None, arguments=proposed
        )
        approval["at"] = str(recorded.review.decided_at)
        for value, why in [
            (approval | {"at": None}, "was settled at"),
            (approval | {"by": "mallory"}, "decided by reviewer, not mallory"),
            (approval | {"arguments": proposed | {"to": "eve@example.com"}}, "other arguments"),
            (
                approval | {"action": "reject", "reason": "no"},
                "was approved in the ledger, not resumed with reject",
            ),
            ({"decisions": [{"type": "approve"}]}, "not a Gatehouse decision"),
        ]:
            assert why in forged(value)
        assert outbox(data_dir) == []
        assert services.ledger.require(review_id).status == "approved"

        # Gatehouse's own resume is refused the same way for a decision the ledger does not hold.
        with pytest.raises(ResumeRefusedError, match="decided by reviewer, not admin"):
            resume(
                services.graph,
                services.context,
                thread,
                ReviewDecision(action="approve", by="admin", at=approval["at"]),
            )
        assert outbox(data_dir) == []

        # The recorded decision is accepted, and the call runs once.
        done = resume(services.graph, services.context, thread, ReviewDecision.model_validate(approval))

        assert done.final_output.status == "ok"
        assert [(m["to"], m["body"]) for m in outbox(data_dir)] == [("bob@example.com", "hi")]


def test_a_decision_for_another_call_or_carried_out_already_resumes_nothing(data_dir: Path) -> None:
    payload = email_review("t-1-r1", "t-1", {"to": "bob@example.com", "body": "hi"})
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        services.ledger.open_review(payload)
        services.ledger.record_decision(
            "t-1-r1", reviewer="reviewer", action="approve", reason=None, arguments=payload["arguments"]
        )
        review = services.ledger.require("t-1-r1")
        approval = ReviewDecision(action="approve", by="reviewer", at=review.decided_at)

        assert resume_problem(review, payload, approval) is None
        other_call = payload | {"arguments": {"to": "eve@example.com", "body": "hi"}}
        assert "another call" in (resume_problem(review, other_call, approval) or "")
        assert "not in Gatehouse's ledger" in (resume_problem(None, payload, approval) or "")
        services.ledger.mark_carried_out("t-1-r1")
        carried = services.ledger.require("t-1-r1")
        assert "carried out already" in (resume_problem(carried, payload, approval) or "")
