"""A client without tasks waits for the decision on its call the way every MCP client can: the
call stays open, with a progress notification every few seconds saying what it waits for
(clients that sent a progress token show it, and some reset their own timeout on it), up to
the endpoint's configured wait. Then it ends with the call's result, or with a tool error
saying the review still waits and that calling again with the same arguments keeps waiting
on the same review (gatehouse/gateway/calls.py joins it).

A client that gives the call up (it cancels, or closes the request) withdraws its review,
unless a reviewer decided first: nobody is left to receive the answer.

A client that can be asked (gatehouse/gateway/client_reach.py) stops waiting when a server asks
it a question during the call: the question is its answer (gatehouse/gateway/tool_calls.py puts
it to the client), and its retry with the answer waits here again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from gatehouse.gateway.call_status import CallStatus, status_of
from gatehouse.gateway.calls import withdraw
from gatehouse.gateway.client_questions import pending_questions
from gatehouse.gateway.outcomes import error_result
from gatehouse.settings import DEFAULT_GATEWAY_WAIT_SECONDS

if TYPE_CHECKING:
    import mcp_types as types

    from gatehouse.gateway.client_calls import ClientCall, ClientCalls
    from gatehouse.gateway.review_watch import ReviewWatch
    from gatehouse.wiring import Services
    from reviews.ledger import ReviewState
    from reviews.questions import Question

# Why 45 s: gatehouse/settings.py. Longer with `gatehouse serve --wait`.
DEFAULT_WAIT_SECONDS = DEFAULT_GATEWAY_WAIT_SECONDS
PROGRESS_SECONDS = 5.0
# How often a call the graph is running is looked at: its end and a server's question show
# within this.
RUNNING_POLL_SECONDS = 0.5

# Told a count that only grows and the status's line (the SDK's report_progress, a no-op when
# the client sent no progress token).
Report = Callable[[float, str], Awaitable[None]]


def still_waiting(call: ClientCall, status: CallStatus, waited: float) -> types.CallToolResult:
    review = f" review {status.review_id}" if status.review_id else " its review"
    return error_result(
        f"{call.capability_key} has not been decided after {waited:g} s. {status.message}\n"
        f"Call the tool again with the same arguments to keep waiting: the call joins{review} and "
        "returns its result once a reviewer decides (an approved call runs once, however often it "
        "is asked for)."
    )


async def answer_when_done(
    services: Services,
    calls: ClientCalls,
    watch: ReviewWatch,
    call: ClientCall,
    *,
    wait_seconds: float,
    report: Report,
    asking: bool = False,
) -> types.CallToolResult | list[Question]:
    """The call's result once its thread is done, or a tool error after ``wait_seconds``. With
    ``asking`` (a client that can be asked), the questions a server asks during the call (the
    decision being carried out, say) end the wait too: they are returned, to be put to it."""
    deadline = anyio.current_time() + wait_seconds
    next_report = anyio.current_time()
    seen: ReviewState | None = None
    before: ReviewState | None = None
    status: CallStatus | None = None
    ticks = 0
    try:
        while True:
            if status is None or status.state != "waiting" or seen != before:
                if asking:
                    questions = await anyio.to_thread.run_sync(pending_questions, services, call)
                    if questions:
                        return questions
                status = await anyio.to_thread.run_sync(status_of, services, call)
            if status.state == "cancelled":
                return error_result(
                    f"{call.capability_key} was withdrawn before a reviewer decided ({status.message}) "
                    "Call it again to ask anew."
                )
            if status.done and status.result is not None:
                await anyio.to_thread.run_sync(calls.close, call.id, "delivered")
                return status.result
            if status.state == "running" and await anyio.to_thread.run_sync(_run_failed, calls, call):
                return error_result(
                    f"{call.capability_key} failed before it had an answer (the log of gatehouse serve says "
                    "why). Call it again to ask anew."
                )
            now = anyio.current_time()
            remaining = deadline - now
            if remaining <= 0:
                return still_waiting(call, status, wait_seconds)
            if now >= next_report:
                ticks += 1
                await report(ticks, status.message)
                next_report = now + PROGRESS_SECONDS
            pause = min(remaining, next_report - now)
            if status.state == "running":
                # The graph is at work: its end, or a server's question, changes no review.
                pause = min(pause, RUNNING_POLL_SECONDS)
            # A review waiting for a reviewer moves on only by a change in the ledger, which the
            # watch's one read per interval sees for every waiting call: until it does, the
            # status is the same and is not read again (a hundred waiting calls would otherwise
            # read it twenty times a second, each on a worker thread). A call with no review
            # yet, or one being carried out, can finish (or be asked a question) with no change
            # the watch sees: it looks for itself each time.
            before = seen
            seen = await watch.changed(call.thread_id, seen, pause)
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(partial(withdraw, services, calls, call))
        raise


def _run_failed(calls: ClientCalls, call: ClientCall) -> bool:
    """Whether the call's run ended without an answer (it raised: the call was let go)."""
    current = calls.get(call.id)
    return current is not None and current.closed_how == "unclaimed"
