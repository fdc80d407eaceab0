"""How the calls waiting in one `gatehouse serve` process learn that a reviewer decided: one
read of the ledger per interval for all of them, not one per call.

A waiting call holds no thread: it awaits an event this watch sets when the review its thread
opened last changes (decided, carried out, or a new one opened). The watch reads only while
some call waits, so an idle endpoint reads nothing. A decision taken anywhere (the app, the
command line, another replica) is seen within one interval, since every process reads the
same ledger. A review past its deadline is expired here too, so a waiting client hears of it
even when no app is running to sweep the queue.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

import anyio
import anyio.to_thread

from reviews.clock import iso, utc_now
from reviews.ledger import ReviewState

log = logging.getLogger(__name__)

# Within the 3 s for a decision on one replica to reach a client waiting on another,
# with room for a busy machine; one small read per second whatever the number of waiters.
READ_INTERVAL_SECONDS = 1.0

ReadStates = Callable[[list[str]], dict[str, ReviewState]]


class ReviewWatch:
    """Waits on threads' latest reviews. ``read`` is the ledger's latest_states; ``expire``
    expires (and carries out) the reviews past their deadline."""

    def __init__(
        self,
        read: ReadStates,
        *,
        expire: Callable[[], object] | None = None,
        interval: float = READ_INTERVAL_SECONDS,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self._read = read
        self._expire = expire
        self._interval = interval
        self._clock = clock
        self._waiters: dict[str, set[anyio.Event]] = {}
        self._known: dict[str, ReviewState | None] = {}
        self._someone_waits = anyio.Event()

    @property
    def waiting(self) -> int:
        """How many waits are registered now (a measure for the benchmark and the tests)."""
        return sum(len(events) for events in self._waiters.values())

    async def changed(self, thread_id: str, seen: ReviewState | None, timeout: float) -> ReviewState | None:
        """The thread's latest review state once it differs from ``seen``, or after ``timeout``
        seconds, whichever comes first (then the state as last read, maybe still ``seen``)."""
        if thread_id in self._known and self._known[thread_id] != seen:
            return self._known[thread_id]
        event = anyio.Event()
        self._waiters.setdefault(thread_id, set()).add(event)
        self._someone_waits.set()
        try:
            with anyio.move_on_after(timeout):
                await event.wait()
        finally:
            waiters = self._waiters.get(thread_id)
            if waiters is not None:
                waiters.discard(event)
                if not waiters:
                    # Its state stays known until the next look: a caller that waits again at
                    # once (the usual loop) is not woken by a "change" from unknown to the same.
                    del self._waiters[thread_id]
        return self._known.get(thread_id, seen)

    async def run(self) -> None:
        """Read while anyone waits; runs until cancelled (the server's lifespan ends it)."""
        while True:
            if not self._waiters:
                self._someone_waits = anyio.Event()
                await self._someone_waits.wait()
            try:
                await self._look()
            except Exception:
                # A failed read (the database busy or gone for a moment) is tried again at the
                # next interval; the waiting calls keep waiting meanwhile, each to its own limit.
                log.exception("reading the waiting calls' reviews failed; trying again")
            await anyio.sleep(self._interval)

    async def _look(self) -> None:
        threads = list(self._waiters)
        for gone in set(self._known) - set(threads):
            del self._known[gone]
        states = await anyio.to_thread.run_sync(self._read, threads)
        for thread_id in threads:
            state = states.get(thread_id)
            if thread_id in self._known and self._known[thread_id] == state:
                continue
            self._known[thread_id] = state
            for event in self._waiters.get(thread_id, ()):
                event.set()
        now = iso(self._clock())
        if self._expire is not None and any(
            s.status == "pending" and s.expires_at <= now for s in states.values()
        ):
            await anyio.to_thread.run_sync(self._expire)
