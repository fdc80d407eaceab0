"""Appending events: one chain, consecutive places, on both backends (PostgreSQL hashes the
chain in the statement that locks its head, SQLite in Python between statements)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from reviews.audit import GENESIS, AuditEntry, AuditHeadMissingError, AuditLog, event_hash


def test_many_events_appended_together_take_consecutive_places_in_one_chain(backend: str | Path) -> None:
    log = AuditLog(backend)
    try:
        log.append("request", {"text": "first"}, thread_id="t0")
        batch = [AuditEntry("selection", {"n": n}, thread_id=f"t{n % 3}") for n in range(250)]

        appended = log.append_all(batch)

        assert [e.seq for e in appended] == list(range(2, 252))
        assert [e.prev_hash for e in appended[1:]] == [e.hash for e in appended[:-1]]
        stored = log.events()
        assert [(e.seq, e.data) for e in stored[1:]] == [(e.seq, e.data) for e in appended]
        assert log.append("outcome", {"status": "ok"}).seq == 252
        assert log.verify().ok
        assert log.append_all([]) == []
        assert len(log.events()) == 252
    finally:
        log.close()


def test_the_chain_hashed_in_the_database_is_the_one_verify_recomputes(backend: str | Path) -> None:
    """On PostgreSQL the chain is hashed in SQL, on SQLite in Python: both must give
    event_hash's digest for any content, the text JSON escapes included."""
    log = AuditLog(backend)
    try:
        awkward = [
            AuditEntry("request", {"text": 'José wrote "hi" \\ and ☃ on\na new line\t😀'}, actor="José"),
            AuditEntry("decision", {}, thread_id=None, review_id="r-1", actor=None),
            AuditEntry("ünïcode-kind", {"nested": {"list": [1, 2.5, None, True]}}, thread_id="t/1"),
            AuditEntry("control", {"text": "\u0001\u001f\u2028"}, thread_id='t"2', actor="a\\b"),
        ]
        appended = [*log.append_all(awkward), log.append("outcome", {"status": "ok"}, thread_id="t")]

        prev = GENESIS
        for event in appended:
            body = json.dumps(event.data, sort_keys=True, ensure_ascii=False)
            assert event.prev_hash == prev
            assert event.hash == event_hash(
                prev, event.seq, event.at, event.kind, event.thread_id, event.review_id, event.actor, body
            )
            prev = event.hash
        assert [e.model_dump() for e in log.events()] == [e.model_dump() for e in appended]
        assert log.verify().ok
    finally:
        log.close()


def test_appenders_on_separate_connections_at_once_make_one_unbroken_chain(backend: str | Path) -> None:
    """Each thread its own AuditLog (on PostgreSQL its own pool, as a replica has): the head's
    lock must hand out every place once, with no fork in the chain."""
    logs = [AuditLog(backend) for _ in range(4)]
    try:

        def append_many(number: int) -> list[int]:
            places = []
            for n in range(25):
                batch = [
                    AuditEntry("step", {"by": number, "n": n, "part": part}) for part in range(1 + n % 3)
                ]
                places += [e.seq for e in logs[number].append_all(batch)]
            return places

        with ThreadPoolExecutor(len(logs)) as pool:
            places = [seq for taken in pool.map(append_many, range(len(logs))) for seq in taken]

        assert sorted(places) == list(range(1, len(places) + 1))
        assert logs[0].verify().ok
        assert len(logs[0].events()) == len(places)
    finally:
        for log in logs:
            log.close()


def test_an_append_after_the_head_row_was_deleted_is_refused_and_writes_nothing(backend: str | Path) -> None:
    log = AuditLog(backend)
    try:
        log.append("request", {"text": "first"}, thread_id="t0")
        with log.database.write() as conn:
            conn.execute("DELETE FROM audit_head")

        with pytest.raises(AuditHeadMissingError, match=r"audit_head, row 1\) is missing"):
            log.append_all([AuditEntry("selection", {"n": 1}), AuditEntry("outcome", {"n": 2})])

        assert [e.seq for e in log.events()] == [1]
        assert "the log's head record is missing" in log.verify().problems
    finally:
        log.close()
