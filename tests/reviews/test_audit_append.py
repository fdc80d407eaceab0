"""Appending events: consecutive places in one chain per transaction, on both backends
(PostgreSQL hashes the chain in the statement that takes its head, SQLite in Python between
statements); writers at once on PostgreSQL each take a chain no other holds."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from reviews.audit import GENESIS, AuditEntry, AuditHeadMissingError, AuditLog, chained_hash


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
    chained_hash's digest for any content, the text JSON escapes included."""
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
            assert (event.chain, event.link) == (1, event.seq)
            assert event.hash == chained_hash(
                1, event.seq, event.seq, prev, event.at, event.kind, event.thread_id, event.review_id,
                event.actor, body,
            )  # fmt: skip
            prev = event.hash
        assert [e.model_dump() for e in log.events()] == [e.model_dump() for e in appended]
        assert log.verify().ok
    finally:
        log.close()


def test_appenders_on_separate_connections_at_once_make_unbroken_chains(backend: str | Path) -> None:
    """Each thread its own AuditLog (on PostgreSQL its own pool, as a replica has): every place
    is handed out once, each chain's links follow one another with no fork, and each batch
    stays together in one chain."""
    logs = [AuditLog(backend) for _ in range(4)]
    try:

        def append_many(number: int) -> list[tuple[int, int, int]]:
            places = []
            for n in range(25):
                batch = [
                    AuditEntry("step", {"by": number, "n": n, "part": part}) for part in range(1 + n % 3)
                ]
                appended = logs[number].append_all(batch)
                assert len({e.chain for e in appended}) == 1
                assert [e.link for e in appended] == list(
                    range(appended[0].link or 0, (appended[-1].link or 0) + 1)
                )
                places += [(e.seq, e.chain or 0, e.link or 0) for e in appended]
            return places

        with ThreadPoolExecutor(len(logs)) as pool:
            places = [place for taken in pool.map(append_many, range(len(logs))) for place in taken]

        assert sorted(seq for seq, _, _ in places) == list(range(1, len(places) + 1))
        for chain in {chain for _, chain, _ in places}:
            links = sorted(link for _, c, link in places if c == chain)
            assert links == list(range(1, len(links) + 1))
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
            conn.execute("DELETE FROM audit_chains")

        with pytest.raises(AuditHeadMissingError, match=r"chain 1 \(table audit_chains\) is missing"):
            log.append_all([AuditEntry("selection", {"n": 1}), AuditEntry("outcome", {"n": 2})])

        assert [e.seq for e in log.events()] == [1]
        assert "chain 1's head record is missing (table audit_chains)" in log.verify().problems
    finally:
        log.close()
