"""Writes to several stores in one transaction (storage/transactions.py), on both backends:
they commit together or not at all, a read inside sees them, other threads do not until the
commit, and a failure caught halfway commits nothing."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from reviews.audit import AuditLog
from reviews.conversations import Conversations
from storage import Database, SqliteDatabase, open_database
from storage.transactions import CaughtWriteError, one_transaction


@pytest.fixture
def database(backend: str | Path) -> Iterator[Database]:
    db = open_database(backend)
    yield db
    db.close()


@pytest.fixture
def audit(database: Database) -> AuditLog:
    return AuditLog(database)


@pytest.fixture
def conversations(database: Database) -> Conversations:
    return Conversations(database)


def _seen_from_another_thread(audit: AuditLog) -> int:
    counted: list[int] = []
    reader = threading.Thread(target=lambda: counted.append(len(audit.events())))
    reader.start()
    reader.join(timeout=30)
    assert counted, "the reader on another thread did not finish"
    return counted[0]


def test_writes_to_two_stores_commit_together(
    audit: AuditLog, conversations: Conversations, database: Database
) -> None:
    with one_transaction(audit.database, conversations.database):
        conversations.record_request("t1", "ann", "send the report")
        audit.append("request", {"text": "send the report"}, thread_id="t1", actor="ann")
        # A read on this thread goes through the open transaction: it sees both writes.
        assert [m.text for m in conversations.messages("t1")] == ["send the report"]
        assert [e.kind for e in audit.events()] == ["request"]
        if not isinstance(database, SqliteDatabase):
            # Not committed yet. (On SQLite the stores share one connection per file, so a
            # reader on another thread waits for the commit instead of reading around it.)
            assert _seen_from_another_thread(audit) == 0
    assert [m.text for m in conversations.messages("t1")] == ["send the report"]
    assert [e.kind for e in audit.events()] == ["request"]
    assert audit.verify().ok


def test_an_error_inside_rolls_back_every_store(audit: AuditLog, conversations: Conversations) -> None:
    with (
        pytest.raises(RuntimeError, match="disk full"),
        one_transaction(audit.database, conversations.database),
    ):
        conversations.record_request("t1", "ann", "send the report")
        audit.append("request", {"text": "send the report"}, thread_id="t1", actor="ann")
        raise RuntimeError("disk full")
    assert conversations.messages("t1") == []
    assert conversations.get("t1") is None
    assert audit.events() == []
    # The chain's head rolled back with its rows: the next event is its first again (its seq
    # may skip the rolled-back one's: PostgreSQL numbers rows from a sequence, which no writer waits for).
    again = audit.append("request", {"text": "again"}, thread_id="t1")
    assert (again.chain, again.link) == (1, 1)
    assert audit.verify().ok


def test_a_failed_write_that_is_caught_commits_nothing(
    audit: AuditLog, conversations: Conversations, database: Database
) -> None:
    with (
        pytest.raises(CaughtWriteError, match=r"rolled back .*ValueError: refused"),
        one_transaction(audit.database, conversations.database),
    ):
        conversations.record_request("t1", "ann", "send the report")
        try:
            with database.write():
                raise ValueError("refused")
        except ValueError:
            pass  # the caller goes on as if the rest could still commit
        audit.append("request", {"text": "send the report"}, thread_id="t1")
    assert conversations.messages("t1") == []
    assert audit.events() == []


def test_stores_on_different_databases_cannot_share_a_transaction(tmp_path: Path) -> None:
    first, second = AuditLog(tmp_path / "one.db"), Conversations(tmp_path / "two.db")
    try:
        with pytest.raises(
            ValueError,
            match=r"one transaction needs the stores on one open database; they are on 2: .*one\.db, .*two\.db",
        ):
            one_transaction(first.database, second.database)
    finally:
        first.close()
        second.close()


def test_a_write_alone_still_commits_on_its_own(audit: AuditLog) -> None:
    audit.append("request", {"text": "hello"}, thread_id="t1")
    assert _seen_from_another_thread(audit) == 1
