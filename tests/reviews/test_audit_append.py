"""Appending many events at once: one chain, consecutive places, on both backends (the rows go
in a few multi-row statements, more rows than one statement takes)."""

from __future__ import annotations

from pathlib import Path

from reviews.audit import AuditEntry, AuditLog


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
