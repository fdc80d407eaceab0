"""How a review ended, as a person reads it: who, when (local, readable: tests/gatehouse/display/test_reader_time.py),
why, what changed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from gatehouse.display.outcome import ArgumentChange, outcome_of

BERLIN_WINTER = timezone(timedelta(hours=1), "CET")
NOW = datetime(2025, 3, 12, 16, 0, tzinfo=UTC)


def review(**fields: Any) -> dict[str, Any]:
    return {"id": "r1", "stage": "before_execution", "decided_at": "2025-03-12T13:33:00+00:00"} | fields


def test_an_edited_approval_names_the_approver_the_time_and_each_change() -> None:
    edited = review(
        decision="approve",
        decided_by="reviewer2",
        changes={"proposed": {"body": "draft", "cc": "x@example.com"}, "approved": {"body": "final"}},
    )

    outcome = outcome_of(edited, zone=UTC, now=NOW)

    assert outcome is not None
    assert outcome.headline == "Approved by reviewer2 at 13:33 UTC"
    assert outcome.changes == [
        ArgumentChange(name="body", proposed="draft", approved="final"),
        ArgumentChange(name="cc", proposed="x@example.com", approved="(not set)"),
    ]
    assert outcome.changes[0].diff == "- draft\n+ final"


def test_a_multi_line_change_is_a_line_diff_and_other_values_are_json() -> None:
    change = ArgumentChange(name="body", proposed="hi\nsee you\nbob", approved="hi\nsee you soon\nbob")
    assert change.diff.splitlines()[1:] == [" hi", "-see you", "+see you soon", " bob"]

    [count] = outcome_of(  # type: ignore[union-attr]
        review(decision="approve", decided_by="r", changes={"proposed": {"n": 1}, "approved": {"n": [1, 2]}}),
        zone=UTC,
        now=NOW,
    ).changes
    assert count.diff == "- 1\n+ [1, 2]"


def test_rejection_expiry_withdrawal_and_release_each_say_what_happened() -> None:
    rejected = outcome_of(
        review(decision="reject", decided_by="rev", reason="**not** today"), zone=UTC, now=NOW
    )
    assert rejected is not None
    assert (rejected.headline, rejected.reason) == ("Rejected by rev at 13:33 UTC", "**not** today")
    expired = outcome_of(review(decision="expire", decided_by="gatehouse"), zone=UTC, now=NOW)
    assert expired is not None and expired.headline == "Expired at 13:33 UTC: nobody decided in time"
    withdrawn = outcome_of(review(decision="cancel", decided_by="operator"), zone=UTC, now=NOW)
    assert withdrawn is not None and withdrawn.headline == "Withdrawn by operator at 13:33 UTC"
    released = outcome_of(
        review(stage="untrusted_output", decision="approve", decided_by="rev"), zone=UTC, now=NOW
    )
    assert released is not None and released.headline == "Output released by rev at 13:33 UTC"


def test_a_waiting_review_or_an_answered_question_has_no_outcome() -> None:
    assert outcome_of(None) is None
    assert outcome_of({"id": "r1", "stage": "before_execution", "flags": []}) is None
    assert outcome_of(review(stage="clarification", decision="answer", decided_by="operator")) is None
