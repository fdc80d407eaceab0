"""The ledger and audit stores on a real SQLite file, below the service."""

from __future__ import annotations

import sqlite3
import threading
from datetime import timedelta
from pathlib import Path

import pytest

from graph.state import ReviewPayload
from reviews.audit import AuditLog
from reviews.errors import AlreadyDecidedError
from reviews.ledger import ReviewLedger
from tests.reviews.review_support import StillClock, email_review


def payload(review_id: str = "t1-r1", thread_id: str = "t1") -> ReviewPayload:
    return email_review(
        review_id,
        thread_id,
        {"to": "bob@example.com", "body": "hi"},
        flags=[{"code": "sends_messages", "severity": "high", "message": "m"}],
    )


def test_opening_the_same_review_twice_keeps_one_row(tmp_path: Path) -> None:
    ledger = ReviewLedger(tmp_path / "g.db")

    first, created = ledger.open_review(payload())
    again, created_again = ledger.open_review(payload())

    assert (created, created_again) == (True, False)
    assert first.created_at == again.created_at
    assert [r.id for r in ledger.queue()] == ["t1-r1"]


def test_of_many_concurrent_decisions_exactly_one_settles_the_review(tmp_path: Path) -> None:
    ledger = ReviewLedger(tmp_path / "g.db")
    ledger.open_review(payload())
    outcomes: list[str] = []
    start = threading.Barrier(12)

    def decide(n: int) -> None:
        start.wait(timeout=10)
        try:
            ledger.record_decision("t1-r1", reviewer=f"r{n}", action="approve", reason=None, arguments=None)
            outcomes.append("won")
        except AlreadyDecidedError:
            outcomes.append("late")

    threads = [threading.Thread(target=decide, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert outcomes.count("won") == 1
    assert outcomes.count("late") == 11
    assert ledger.require("t1-r1").status == "approved"


def test_a_pending_review_past_its_deadline_expires_and_only_once(tmp_path: Path) -> None:
    clock = StillClock()
    ledger = ReviewLedger(tmp_path / "g.db", clock=clock)
    ledger.open_review(payload())

    clock.now += timedelta(minutes=29)
    assert ledger.expire_due() == []
    clock.now += timedelta(minutes=2)
    expired = ledger.expire_due()

    assert [r.status for r in expired] == ["expired"]
    assert ledger.expire_due() == []


def test_a_call_can_be_started_once_per_review(tmp_path: Path) -> None:
    ledger = ReviewLedger(tmp_path / "g.db")
    ledger.open_review(payload())

    assert ledger.begin_execution("t1-r1", "hash", "t1") is True
    assert ledger.begin_execution("t1-r1", "hash", "t1") is False
    # Started by this (living) process: in progress, not lost.
    assert [r.id for r in ledger.unfinished_executions(only_lost=False)] == ["t1-r1"]
    assert ledger.unfinished_executions() == []
    ledger.finish_execution("t1-r1", "executed")
    assert ledger.unfinished_executions(only_lost=False) == []
    assert ledger.require("t1-r1").status == "executed"


def test_only_an_approved_review_whose_call_never_started_is_marked_not_run(tmp_path: Path) -> None:
    ledger = ReviewLedger(tmp_path / "g.db")
    ledger.open_review(payload("t1-r1"))
    ledger.open_review(payload("t2-r1", thread_id="t2"))
    assert ledger.mark_not_run("t1-r1") is False  # still pending
    for review_id in ("t1-r1", "t2-r1"):
        ledger.record_decision(review_id, reviewer="r", action="approve", reason=None, arguments=None)
    ledger.begin_execution("t2-r1", "hash", "t2")

    assert ledger.mark_not_run("t1-r1") is True
    assert ledger.mark_not_run("t2-r1") is False  # its call started: never "not run"
    assert [ledger.require(r).status for r in ("t1-r1", "t2-r1")] == ["not_run", "approved"]
    assert ledger.mark_not_run("t1-r1") is False


def test_the_audit_chain_names_a_row_inserted_at_the_end(tmp_path: Path) -> None:
    audit = AuditLog(tmp_path / "g.db")
    for n in range(3):
        audit.append("event", {"n": n})
    with sqlite3.connect(tmp_path / "g.db") as conn:
        last = conn.execute("SELECT hash FROM audit_log WHERE seq = 3").fetchone()[0]
        conn.execute(
            "INSERT INTO audit_log (seq, at, kind, data, prev_hash, hash) VALUES (4, 'now', 'forged', '{}', ?, 'x')",
            (last,),
        )

    report = audit.verify()

    assert not report.ok
    assert any("row 4" in problem for problem in report.problems)


def test_secret_arguments_are_redacted_before_they_are_written(tmp_path: Path) -> None:
    audit = AuditLog(tmp_path / "g.db")

    audit.append(
        "selection", {"arguments": {"api_token": "tok-123", "nested": {"password": "p"}, "to": "bob"}}
    )

    with sqlite3.connect(tmp_path / "g.db") as conn:
        stored = conn.execute("SELECT data FROM audit_log").fetchone()[0]
    assert "tok-123" not in stored and '"p"' not in stored
    assert audit.events()[0].data["arguments"] == {
        "api_token": "***",
        "nested": {"password": "***"},
        "to": "bob",
    }
    assert audit.verify().ok


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_every_event_is_exported(tmp_path: Path, fmt: str) -> None:
    audit = AuditLog(tmp_path / "g.db")
    for kind in ("request", "decision"):
        audit.append(kind, {"k": kind})

    exported = audit.export(fmt)

    assert "request" in exported and "decision" in exported
    assert len(exported.strip().splitlines()) == (2 if fmt == "jsonl" else 3)


@pytest.mark.processes
def test_a_call_whose_process_is_gone_is_reported_lost(tmp_path: Path) -> None:
    import subprocess
    import sys

    ledger = ReviewLedger(tmp_path / "g.db")
    ledger.open_review(payload())
    ledger.begin_execution("t1-r1", "hash", "t1")
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    with sqlite3.connect(tmp_path / "g.db") as conn:
        conn.execute("UPDATE review_executions SET owner_pid = ?", (int(gone.stdout),))

    assert [r.id for r in ledger.unfinished_executions()] == ["t1-r1"]
