"""The live views' shared reads (gatehouse/web/live_view.py): every tab of a process that looks
within a second gets one read, a page's own run reads afresh, and a failed read is not kept."""

from __future__ import annotations

import pytest

from gatehouse.web.live_view import SharedLooks


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Reads:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> int:
        self.count += 1
        return self.count


def test_looks_within_the_fresh_time_share_one_read_and_a_later_look_reads_again() -> None:
    clock, read = Clock(), Reads()
    looks = SharedLooks(fresh_for=1.0, clock=clock)
    assert [looks.look("pending", read) for _ in range(12)] == [1] * 12
    clock.now += 0.99
    assert looks.look("pending", read) == 1
    clock.now += 0.02
    assert looks.look("pending", read) == 2
    assert read.count == 2


def test_a_fresh_look_reads_now_and_the_next_looks_share_what_it_read() -> None:
    clock, read = Clock(), Reads()
    looks = SharedLooks(fresh_for=1.0, clock=clock)
    assert looks.look("pending", read) == 1
    assert looks.look("pending", read, fresh=True) == 2  # a page's own run: its action shows at once
    assert looks.look("pending", read) == 2


def test_each_name_is_its_own_read() -> None:
    looks = SharedLooks(fresh_for=1.0, clock=Clock())
    assert looks.look(("queue", 1), lambda: "first page") == "first page"
    assert looks.look(("queue", 2), lambda: "second page") == "second page"
    assert looks.look(("queue", 1), lambda: "not read") == "first page"


def test_a_read_that_fails_is_not_kept_and_the_next_look_reads_again() -> None:
    looks = SharedLooks(fresh_for=1.0, clock=Clock())

    def broken() -> int:
        raise OSError("database is locked")

    with pytest.raises(OSError, match="locked"):
        looks.look("pending", broken)
    assert looks.look("pending", lambda: 7) == 7
