"""Client calls run in the background of `gatehouse serve`: a call whose server asks a question
blocks its worker thread until the answer comes (reviews/asking.py waits for it), and the
answer comes from the client's next request, so the run must outlive the request that started
it (the request answers with the question and returns).

Runs take worker threads of their own (at most ``RUNS_AT_ONCE`` at a time), not the shared
pool every handler's short reads use: calls waiting on questions must not starve those. A run
still going when the server stops is abandoned with its thread (the host's pool closing with
the services ends the call it waits on).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import anyio
import anyio.abc
import anyio.to_thread

log = logging.getLogger(__name__)

T = TypeVar("T")

# Calls running the graph at once, each on a thread (most finish in a moment; one waiting on a
# server's question holds its thread until the answer or the policy's timeout).
RUNS_AT_ONCE = 64


@dataclass
class Run(Generic[T]):
    """One run: ``finished`` is set once it returned or raised."""

    finished: anyio.Event = field(default_factory=anyio.Event)
    value: T | None = None
    error: Exception | None = None

    def outcome(self) -> T:
        """What the run returned; raises what it raised. Only once ``finished``."""
        assert self.finished.is_set(), "a run's outcome was read before it finished"
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]  # set whenever no error was


class BackgroundRuns:
    """Starts runs that go on after the request that started them; served by the app's lifespan."""

    def __init__(self, *, at_once: int = RUNS_AT_ONCE) -> None:
        self._at_once = at_once
        self._group: anyio.abc.TaskGroup | None = None
        self._limiter: anyio.CapacityLimiter | None = None

    async def serve(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Hold the runs' task group until cancelled (the app stops); started (``task_status``)
        once runs may start."""
        self._limiter = anyio.CapacityLimiter(self._at_once)
        async with anyio.create_task_group() as group:
            self._group = group
            task_status.started()
            try:
                await anyio.sleep_forever()
            finally:
                self._group = None

    def start(self, work: Callable[[], T]) -> Run[T]:
        """Run ``work`` on a worker thread; the run goes on whatever becomes of the caller."""
        if self._group is None:
            raise RuntimeError("background runs are served by the app's lifespan, which has not started")
        run: Run[T] = Run()
        self._group.start_soon(self._run, work, run)
        return run

    async def _run(self, work: Callable[[], T], run: Run[T]) -> None:
        try:
            run.value = await anyio.to_thread.run_sync(work, limiter=self._limiter, abandon_on_cancel=True)
        except Exception as exc:
            # The request that started it may be gone: the log says so whoever reads the run.
            log.exception("a client's call failed in the background")
            run.error = exc
        finally:
            run.finished.set()
