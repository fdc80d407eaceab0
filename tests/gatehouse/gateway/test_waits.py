"""A call waiting in its request for a reviewer reads where it stands only when the watch says its
review changed: between changes it is told the same progress again, and the ledger is read once
per interval for every waiting call together (the watch's read), not once per call and tick, so a
hundred waiting calls keep no worker thread busy. A call whose thread has opened no review yet
(it joined a call still running) has no review to change: it still looks for itself each tick."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest

from gatehouse.gateway import waits
from gatehouse.gateway.call_status import CallStatus
from gatehouse.gateway.review_watch import ReviewWatch
from reviews.ledger import ReviewState

pytestmark = pytest.mark.anyio

LATER = "2999-01-01T00:00:00.000+00:00"
THREAD = "thread-1"
TICK = 0.02


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Call:
    """What answer_when_done reads of the open call."""

    id = "call_1"
    thread_id = THREAD
    capability_key = "email__send_email"
    requester = "operator"


class Calls:
    def __init__(self) -> None:
        self.closed: list[tuple[str, str]] = []

    def close(self, call_id: str, how: str) -> bool:
        self.closed.append((call_id, how))
        return True

    def get(self, call_id: str) -> None:
        # The call's row as the store has it: none here, so its run never ended without an answer.
        return None


class Statuses:
    """status_of's answers, in turn (the last one repeated), each read counted."""

    def __init__(self, *answers: CallStatus) -> None:
        self._answers = list(answers)
        self.reads = 0

    def __call__(self, services: Any, call: Any) -> CallStatus:
        self.reads += 1
        return self._answers[min(self.reads, len(self._answers)) - 1]


WAITING = CallStatus("waiting", "Waiting for a reviewer (review r1).", "r1")
RUNNING = CallStatus("running", "The call is being checked and run.")
DONE = CallStatus(
    "completed", "Done.", result=types.CallToolResult(content=[types.TextContent(type="text", text="sent")])
)


async def wait_with(
    monkeypatch: pytest.MonkeyPatch, statuses: Statuses, states: dict[str, ReviewState], seconds: float
) -> tuple[types.CallToolResult, list[str], Calls]:
    monkeypatch.setattr(waits, "status_of", statuses)
    monkeypatch.setattr(waits, "PROGRESS_SECONDS", TICK)
    monkeypatch.setattr(waits, "RUNNING_POLL_SECONDS", TICK)
    watch = ReviewWatch(lambda threads: {t: states[t] for t in threads if t in states}, interval=TICK / 4)
    told: list[str] = []
    calls = Calls()

    async def report(progress: float, message: str) -> None:
        told.append(message)

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch.run)
        answer = await waits.answer_when_done(
            None,  # type: ignore[arg-type]  # status_of is the test's: nothing reads the services
            calls,  # type: ignore[arg-type]
            watch,
            Call(),  # type: ignore[arg-type]
            wait_seconds=seconds,
            report=report,
        )
        tg.cancel_scope.cancel()
    # Without ``asking`` the wait ends with a result, never with questions to put.
    assert isinstance(answer, types.CallToolResult)
    return answer, told, calls


async def test_a_call_waiting_on_an_undecided_review_reads_its_status_only_when_the_review_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    statuses = Statuses(WAITING)
    pending = ReviewState("r1", "pending", LATER, None)
    answer, told, _ = await wait_with(monkeypatch, statuses, {THREAD: pending}, seconds=30 * TICK)
    assert answer.is_error and "has not been decided" in answer.content[0].text  # type: ignore[union-attr]
    # Told every tick, as before; read at the start and once more when the watch first saw
    # the review (from unknown to pending), never again while it stayed pending.
    assert len(told) >= 10
    assert all(message == WAITING.message for message in told)
    assert statuses.reads <= 2


async def test_a_joined_call_with_no_review_yet_still_learns_that_its_thread_finished(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The thread opens no review (the joined call was allowed): the watch never sees a change.
    statuses = Statuses(RUNNING, RUNNING, RUNNING, DONE)
    answer, told, calls = await wait_with(monkeypatch, statuses, {}, seconds=10.0)
    assert answer is DONE.result
    assert statuses.reads == 4
    assert told and all(message == RUNNING.message for message in told)
    assert calls.closed == [("call_1", "delivered")]
