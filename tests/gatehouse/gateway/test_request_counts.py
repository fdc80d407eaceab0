"""Each caller's requests to the MCP endpoint, counted in the database (SQLite and PostgreSQL):
the limit holds over the last minute, not per clock minute; across several stores on one
database (replicas), also when they admit at the same moment; a caller refused is told when to
come back, and gets in then; what is refused is not counted; old minutes are not kept."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gatehouse.gateway.request_counts import RequestCounts
from storage import Database, open_database

# 12:00:10 on some day: ten seconds into a clock minute.
START = 1_800_000_000.0 - (1_800_000_000.0 % 60) + 10


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def database(backend: str | Path) -> Iterator[Database]:
    db = open_database(backend)
    yield db
    db.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


def test_a_caller_gets_its_limit_and_is_told_how_long_until_the_last_minute_has_room(
    database: Database, clock: Clock
) -> None:
    counts = RequestCounts(database, clock=clock)
    assert [counts.admit("alice", 3) for _ in range(3)] == [None, None, None]
    wait = counts.admit("alice", 3)
    # The three count fully until this minute ends, then fade with the next: at 20 s into it,
    # two thirds of them still count and one more fits (50 s + 20 s).
    assert wait == pytest.approx(70)
    clock.now += 69.5
    assert counts.admit("alice", 3) is not None
    clock.now += 0.5
    assert counts.admit("alice", 3) is None


def test_a_burst_at_the_end_of_one_minute_leaves_no_second_burst_at_the_start_of_the_next(
    database: Database, clock: Clock
) -> None:
    counts = RequestCounts(database, clock=clock)
    clock.now += 45  # 55 s into the minute
    assert all(counts.admit("alice", 10) is None for _ in range(10))
    clock.now += 10  # 5 s into the next: a fixed window would let ten more in
    admitted = sum(counts.admit("alice", 10) is None for _ in range(10))
    assert admitted == 0


def test_callers_are_counted_apart_and_a_refusal_costs_nothing(database: Database, clock: Clock) -> None:
    counts = RequestCounts(database, clock=clock)
    assert counts.admit("alice", 2) is None and counts.admit("alice", 2) is None
    wait = [counts.admit("alice", 2) for _ in range(5)]
    assert all(w is not None for w in wait)
    assert counts.admit("bob", 2) is None
    # Five refusals later alice waits no longer than after the first (counted, each would
    # have pushed her place further off).
    assert len(set(wait)) == 1
    clock.now += wait[0] or 0
    assert counts.admit("alice", 2) is None


def test_replicas_on_one_database_hold_a_caller_to_one_limit_even_at_the_same_moment(
    backend: str | Path, clock: Clock
) -> None:
    databases = [open_database(backend) for _ in range(2)]
    try:
        replicas = [RequestCounts(db, clock=clock) for db in databases]
        admitted: list[bool] = []
        lock = threading.Lock()

        def hammer(counts: RequestCounts) -> None:
            for _ in range(15):
                answer = counts.admit("alice", 20) is None
                with lock:
                    admitted.append(answer)

        threads = [threading.Thread(target=hammer, args=(replica,)) for replica in replicas * 2]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert len(admitted) == 60
        assert sum(admitted) == 20
    finally:
        for db in databases:
            db.close()


def test_a_callers_older_minutes_are_deleted_when_a_new_one_starts(database: Database, clock: Clock) -> None:
    counts = RequestCounts(database, clock=clock)
    for _ in range(5):
        assert counts.admit("alice", 100) is None
        clock.now += 60
    with database.read() as conn:
        rows = conn.execute(
            "SELECT COUNT(*) AS n FROM gateway_request_counts WHERE caller = 'alice'"
        ).fetchone()
    assert rows["n"] == 2
