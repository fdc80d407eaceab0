"""A change to the ledger and the audit event recording it are written in one transaction: when
the audit log cannot take the event, the change is not on record either (a decision without its
event, a request, an opened review, a call's start, a withdrawal, an expiry). Found by reading: they were two
transactions, so an error or a crash between them left an unaudited decision."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from gatehouse.wiring import Services
from graph.runner import pending_interrupt
from reviews.audit import AuditEntry, AuditEvent, AuditLog
from tests.reviews.review_support import (
    EMAIL_REQUEST,
    StillClock,
    email_servers,
    later_reviews,
    outbox,
    services_for,
)

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")


class AuditDown(RuntimeError):
    pass


def _refuse(services: Services, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """The audit log fails (a full disk, a lost connection) when asked to append ``kind``."""
    append_all = AuditLog.append_all

    def failing(log: AuditLog, entries: Sequence[AuditEntry]) -> list[AuditEvent]:
        if any(entry.kind == kind for entry in entries):
            raise AuditDown(f"the audit log cannot take {kind}")
        return append_all(log, entries)

    monkeypatch.setattr(services.audit, "append_all", failing.__get__(services.audit))


def _paused_email(services: Services) -> tuple[str, str]:
    """An e-mail request paused for a review: the review's id and the thread."""
    paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
    assert paused.final_output.review is not None
    return paused.final_output.review.id, paused.final_output.thread_id


def _waits_for(services: Services, thread: str, review_id: str) -> bool:
    pending = pending_interrupt(services.graph, thread)
    return pending is not None and pending["review_id"] == review_id


def test_a_decision_the_audit_log_cannot_take_is_not_recorded(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        review_id, thread = _paused_email(services)
        _refuse(services, monkeypatch, "decision")

        with pytest.raises(AuditDown):
            services.reviews.decide(review_id, reviewer="reviewer", approve=True)

        stored = services.ledger.require(review_id)
        assert stored.status == "pending" and stored.decisions == []
        assert "decision" not in [e.kind for e in services.audit.events(thread_id=thread)]
        assert _waits_for(services, thread, review_id)
        monkeypatch.undo()

        # Once the audit log takes events again the same decision goes through, once.
        decided = services.reviews.decide(review_id, reviewer="reviewer", approve=True)
        assert decided.review.status == "executed"
        assert [e.kind for e in services.audit.events(thread_id=thread)].count("decision") == 1
        assert services.audit.verify().ok
    assert len(outbox(data_dir)) == 1


def test_a_request_the_audit_log_cannot_take_is_not_in_the_conversation(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        _refuse(services, monkeypatch, "request")

        with pytest.raises(AuditDown):
            services.reviews.record_request("send the report", thread_id="t-1", requester="operator")

        assert services.conversations.messages("t-1") == []
        assert services.conversations.get("t-1") is None


def test_a_review_the_audit_log_cannot_take_is_not_opened(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        _refuse(services, monkeypatch, "review_requested")

        with pytest.raises(AuditDown):
            services.requests.ask(EMAIL_REQUEST, requester="operator")

        assert services.ledger.queue("pending") == []
        assert "review_requested" not in [e.kind for e in services.audit.events()]


def test_a_call_start_the_audit_log_cannot_take_is_not_recorded_and_the_call_not_made(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        review_id, _ = _paused_email(services)
        _refuse(services, monkeypatch, "execution_started")

        with pytest.raises(AuditDown):
            services.reviews.decide(review_id, reviewer="reviewer", approve=True)

        # No start on record: nothing claims the call ran, or may have.
        assert services.ledger.unfinished_executions(only_lost=False) == []
        assert services.ledger.recorded_result(review_id) is None
    assert outbox(data_dir) == []


def test_a_withdrawal_the_audit_log_cannot_take_leaves_the_review_pending(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        review_id, thread = _paused_email(services)
        _refuse(services, monkeypatch, "review_cancelled")

        with pytest.raises(AuditDown):
            services.reviews.withdraw(thread, by="operator")

        assert services.ledger.require(review_id).status == "pending"
        assert _waits_for(services, thread, review_id)


def test_an_expiry_the_audit_log_cannot_take_leaves_the_review_pending(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        review_id, _ = _paused_email(services)
        deadline = datetime.fromisoformat(services.ledger.require(review_id).expires_at)
        with later_reviews(services, StillClock(deadline + timedelta(seconds=1))) as later:
            _refuse(services, monkeypatch, "review_expired")

            with pytest.raises(AuditDown):
                later.sweep()

            assert services.ledger.require(review_id).status == "pending"
            monkeypatch.undo()
            assert later.sweep()["expired"] == [review_id]
        assert services.ledger.require(review_id).status == "expired"
        assert [e.kind for e in services.audit.events()].count("review_expired") == 1
