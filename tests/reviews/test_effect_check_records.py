"""A reviewed call's effect check (what its effect read back as: graph/effect_readback.py) is
kept on the review in the ledger, durably, for the reviewer's history: the Reviews page and
`reviews list` read it from there.

A database an older release wrote (the ledger's schema before the effect check) opens, is
upgraded in place and loses nothing: its reviews, decisions and recorded results read as
before, with no effect check, and a new check is recorded on them.

Every test runs on a SQLite file and on PostgreSQL (tests/reviews/conftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

from graph.state import EffectCheck, EffectCheckData
from reviews.ledger import _MIGRATIONS, ReviewLedger
from storage import open_database
from storage.database import migrate
from tests.reviews.review_support import Clock, email_review

MISMATCH: EffectCheckData = {
    "status": "mismatch",
    "detail": "report.md on files does not hold the approved content after files__write_file wrote it",
}
# The ledger's steps as the release before the effect check ran them (version 4): the steps
# are only ever appended to, so they are the first four of today's.
BEFORE_EFFECT_CHECKS = _MIGRATIONS[:4]


def _executed(ledger: ReviewLedger, review_id: str = "t1-r1") -> None:
    """A review approved, its call started and finished (the state the read-back follows)."""
    ledger.open_review(email_review(review_id, "t1", {"to": "bob@example.com", "body": "hi"}))
    ledger.record_decision(review_id, reviewer="reviewer", action="approve", reason=None, arguments=None)
    assert ledger.begin_execution(review_id, "hash", "t1")
    ledger.finish_execution(review_id, "executed", {"content": []})


def test_an_effect_check_is_kept_on_the_review_and_read_back_with_it(ledger: ReviewLedger) -> None:
    _executed(ledger)

    ledger.record_effect_check("t1-r1", MISMATCH)

    review = ledger.require("t1-r1")
    assert review.effect_check == EffectCheck(status="mismatch", detail=MISMATCH["detail"])
    assert [r.effect_check for r in ledger.history()] == [review.effect_check]
    assert review.status == "executed"


def test_an_effect_check_survives_closing_and_opening_the_ledger_again(
    backend: str | Path, clock: Clock
) -> None:
    first = ReviewLedger(backend, clock=clock)
    _executed(first)
    first.record_effect_check("t1-r1", {"status": "verified", "detail": "report.md on files holds it"})
    first.close()

    again = ReviewLedger(backend, clock=clock)
    try:
        assert again.require("t1-r1").effect_check == EffectCheck(
            status="verified", detail="report.md on files holds it"
        )
    finally:
        again.close()


def test_a_review_whose_effect_was_never_read_back_has_no_effect_check(ledger: ReviewLedger) -> None:
    _executed(ledger)

    assert ledger.require("t1-r1").effect_check is None


def test_a_database_from_before_effect_checks_opens_keeps_its_reviews_and_takes_new_checks(
    backend: str | Path, clock: Clock
) -> None:
    old = open_database(backend)
    try:
        assert migrate(old, "ledger", BEFORE_EFFECT_CHECKS) == 4
        with old.write() as conn:
            conn.execute(
                "INSERT INTO reviews (id, thread_id, stage, capability_key, capability, arguments, call_hash,"
                " flags, category, requester, required_approvals, four_eyes, reviewer_roles, created_at,"
                " expires_at, status, decided_by, decided_at, reason, payload, carried_out_at)"
                " VALUES ('old-r1', 'old', 'before_execution', 'files__write_file', ?, ?, 'h', ?, 'files',"
                " 'operator', 1, 1, '[]', '2026-01-01T00:00:00.000+00:00', '2026-01-01T00:30:00.000+00:00',"
                " 'executed', 'reviewer', '2026-01-01T00:01:00.000+00:00', 'fine', '{}',"
                " '2026-01-01T00:01:00.000+00:00')",
                (
                    json.dumps({"server": "files", "name": "write_file", "key": "files__write_file"}),
                    json.dumps({"path": "report.md", "content": "# Report"}),
                    json.dumps([{"code": "writes_files", "severity": "high", "message": "m"}]),
                ),
            )
            conn.execute(
                "INSERT INTO review_decisions (review_id, reviewer, action, reason, arguments, decided_at)"
                " VALUES ('old-r1', 'reviewer', 'approve', 'fine', 'null', '2026-01-01T00:01:00.000+00:00')"
            )
            conn.execute(
                "INSERT INTO review_executions (review_id, call_hash, thread_id, started_at, owner_host,"
                " owner_pid, finished_at, outcome, result) VALUES ('old-r1', 'h', 'old',"
                " '2026-01-01T00:01:00.000+00:00', 'host', 1, '2026-01-01T00:01:01.000+00:00', 'executed',"
                " '{\"content\": []}')"
            )
    finally:
        old.close()

    ledger = ReviewLedger(backend, clock=clock)
    try:
        review = ledger.require("old-r1")
        assert (review.status, review.decided_by, review.reason, review.effect_check) == (
            "executed",
            "reviewer",
            "fine",
            None,
        )
        assert review.arguments == {"path": "report.md", "content": "# Report"}
        assert [(d.reviewer, d.action) for d in review.decisions] == [("reviewer", "approve")]
        assert ledger.recorded_result("old-r1") == {"content": []}

        ledger.record_effect_check("old-r1", MISMATCH)

        assert ledger.require("old-r1").effect_check == EffectCheck.model_validate(MISMATCH)
    finally:
        ledger.close()
