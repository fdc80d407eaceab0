"""The calls waiting in one endpoint share one read of the ledger per interval, wake when the
review their thread opened last changes, and a review past its deadline is expired by the
watch (nobody else may be sweeping the queue)."""

from __future__ import annotations

from datetime import UTC, datetime

import anyio
import pytest

from gatehouse.gateway.review_watch import ReviewWatch
from reviews.ledger import ReviewState

pytestmark = pytest.mark.anyio

LATER = "2999-01-01T00:00:00.000+00:00"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Ledger:
    """The ledger's latest_states, its answers set by the test; every read is counted."""

    def __init__(self) -> None:
        self.states: dict[str, ReviewState] = {}
        self.reads: list[list[str]] = []
        self.expired = 0

    def read(self, thread_ids: list[str]) -> dict[str, ReviewState]:
        self.reads.append(sorted(thread_ids))
        return {t: self.states[t] for t in thread_ids if t in self.states}

    def expire(self) -> None:
        self.expired += 1


def pending(review_id: str, expires_at: str = LATER) -> ReviewState:
    return ReviewState(review_id, "pending", expires_at, None)


async def test_many_waits_share_one_read_per_interval_and_wake_on_their_threads_change() -> None:
    ledger = Ledger()
    for n in range(50):
        ledger.states[f"t{n}"] = pending(f"r{n}")
    watch = ReviewWatch(ledger.read, interval=0.05)
    woke: dict[str, ReviewState | None] = {}

    async def wait(thread_id: str) -> None:
        seen = await watch.changed(thread_id, None, 5)
        woke[thread_id] = await watch.changed(thread_id, seen, 5)

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch.run)
        for n in range(50):
            tg.start_soon(wait, f"t{n}")
        while watch.waiting < 50 or not ledger.reads:
            await anyio.sleep(0.01)
        await anyio.sleep(0.2)
        ledger.states["t7"] = ReviewState("r7", "approved", LATER, "2026-01-01T00:00:00.000+00:00")
        while "t7" not in woke:
            await anyio.sleep(0.01)
        assert len(woke) == 1 and woke["t7"] is not None and woke["t7"].settled
        reads_with_everyone = [read for read in ledger.reads if len(read) == 50]
        assert reads_with_everyone and len(reads_with_everyone) == len(ledger.reads)
        tg.cancel_scope.cancel()


async def test_a_wait_ends_at_its_timeout_with_the_state_as_last_read() -> None:
    ledger = Ledger()
    ledger.states["t"] = pending("r")
    watch = ReviewWatch(ledger.read, interval=0.05)
    async with anyio.create_task_group() as tg:
        tg.start_soon(watch.run)
        first = await watch.changed("t", None, 5)
        with anyio.fail_after(2):
            again = await watch.changed("t", first, 0.2)
        tg.cancel_scope.cancel()
    assert first == again == pending("r")


async def test_an_idle_watch_reads_nothing_and_a_review_past_its_deadline_is_expired() -> None:
    ledger = Ledger()
    watch = ReviewWatch(ledger.read, expire=ledger.expire, interval=0.05)
    async with anyio.create_task_group() as tg:
        tg.start_soon(watch.run)
        await anyio.sleep(0.3)
        assert ledger.reads == []
        ledger.states["t"] = pending("r", expires_at=datetime(2000, 1, 1, tzinfo=UTC).isoformat())
        await watch.changed("t", None, 5)
        while not ledger.expired:
            await anyio.sleep(0.01)
        tg.cancel_scope.cancel()
    assert ledger.expired >= 1
