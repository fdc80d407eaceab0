"""An MCP client's ``tools/call`` on `gatehouse serve`, from the request to what it answers.

The call is claimed (gatehouse/gateway/calls.py): the same call while an earlier one is open
joins it. A call this request opened runs in the background (gatehouse/gateway/background.py)
while the request watches it: a server may ask a question during the call, and the run then
waits for the answer, which only the client's next request can bring. So the request answers
with whichever comes first:

- the run's answer (allowed and run, refused, failed): the result, with a line for each
  question Gatehouse declined during the call (gatehouse/gateway/client_reach.py);
- a question put to the caller (a client that can be asked): an ``InputRequiredResult``
  (gatehouse/gateway/client_questions.py), or, with the tasks extension, a task handle whose
  status is ``input_required``. The run goes on; the client's retry with the answers (same
  tool and arguments, ``inputResponses``, ``requestState``), on any replica, answers the
  questions in the database and waits on the call as a joined call does;
- a review: a task handle, or the wait in the call (gatehouse/gateway/waits.py), which a
  question also ends for a client that can be asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.shared.exceptions import MCPError

from gatehouse.gateway import tasks
from gatehouse.gateway.call_status import status_of
from gatehouse.gateway.calls import claim_call, run_claimed
from gatehouse.gateway.client_questions import answer_inputs, asked, call_in_state, pending_questions
from gatehouse.gateway.client_reach import declined_note, reach_of
from gatehouse.gateway.waits import RUNNING_POLL_SECONDS, answer_when_done

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from gatehouse.gateway.background import BackgroundRuns, Run
    from gatehouse.gateway.client_calls import ClientCall, ClientCalls
    from gatehouse.gateway.client_reach import ClientReaches, Reach
    from gatehouse.gateway.review_watch import ReviewWatch
    from gatehouse.wiring import Services
    from reviews.questions import Question

Answer = types.CallToolResult | types.InputRequiredResult | dict[str, Any]


@dataclass(frozen=True)
class Ran:
    """A run's end: the call's answer (None: it waits for a reviewer), and the questions
    declined during it."""

    result: types.CallToolResult | None
    declined: tuple[str, ...]


def run_for_client(
    services: Services,
    calls: ClientCalls,
    reaches: ClientReaches,
    call: ClientCall,
    arguments: dict[str, Any],
    reach: Reach,
) -> Ran:
    """Run an opened call, its server's questions going by what its client can be asked."""
    with reaches.reaching(call.thread_id, reach) as declined:
        result = run_claimed(services, calls, call, arguments)
    return Ran(result, tuple(declined))


@dataclass(frozen=True)
class ToolCalls:
    services: Services
    calls: ClientCalls
    watch: ReviewWatch
    runs: BackgroundRuns
    reaches: ClientReaches
    wait_seconds: float

    async def answer(
        self,
        ctx: ServerRequestContext[Any],
        params: types.CallToolRequestParams,
        *,
        requester: str,
        client: str | None,
    ) -> Answer:
        arguments = dict(params.arguments or {})
        reach = reach_of(ctx)
        if params.request_state is not None:
            # A retry that brings answers: its call is open already, maybe run by another replica.
            call = await anyio.to_thread.run_sync(
                partial(
                    call_in_state,
                    self.calls,
                    params.request_state,
                    requester=requester,
                    key=params.name,
                    arguments=arguments,
                )
            )
            late = await anyio.to_thread.run_sync(
                partial(answer_inputs, self.services, call, params.input_responses or {}, by=requester)
            )
            return await self._follow(ctx, call, reach, notes=late)
        if params.input_responses:
            raise MCPError(
                types.INVALID_PARAMS,
                "inputResponses came without the requestState of the call they answer; send both back",
            )
        claimed = await anyio.to_thread.run_sync(
            partial(
                claim_call,
                self.services,
                self.calls,
                params.name,
                arguments,
                requester=requester,
                client=client,
            )
        )
        if isinstance(claimed, types.CallToolResult):
            return claimed
        run = None
        if claimed.opened:
            run = self.runs.start(
                partial(
                    run_for_client, self.services, self.calls, self.reaches, claimed.call, arguments, reach
                )
            )
        return await self._follow(ctx, claimed.call, reach, run=run)

    async def _follow(
        self,
        ctx: ServerRequestContext[Any],
        call: ClientCall,
        reach: Reach,
        *,
        run: Run[Ran] | None = None,
        notes: list[str] | None = None,
    ) -> Answer:
        """What the request answers for ``call``: its result, its caller's questions, or a
        task handle; ``run`` is its run when this request started it."""
        said = list(notes or [])
        with_tasks = tasks.declared(ctx)
        if run is not None:
            questions = await self._until_run_ends_or_asks(call, run, reach)
            if questions:
                return await self._ask(call, questions, with_tasks)
            ran = run.outcome()
            said += ran.declined
            if ran.result is not None:
                await anyio.to_thread.run_sync(self.calls.close, call.id, "delivered")
                return declined_note(ran.result, said)
        if with_tasks:
            questions = await self._questions(call, reach)
            status = await anyio.to_thread.run_sync(status_of, self.services, call)
            return tasks.created(call, status, questions)

        async def report(progress: float, message: str) -> None:
            await ctx.session.report_progress(progress, None, message)

        answered = await answer_when_done(
            self.services,
            self.calls,
            self.watch,
            call,
            wait_seconds=self.wait_seconds,
            report=report,
            asking=reach.can_be_asked,
        )
        if isinstance(answered, list):
            return await self._ask(call, answered, with_tasks)
        return declined_note(answered, said)

    async def _until_run_ends_or_asks(self, call: ClientCall, run: Run[Ran], reach: Reach) -> list[Question]:
        """Wait for the run to end; for a client that can be asked, the questions a server asks
        meanwhile end the wait (the run goes on, waiting for the answers)."""
        while not run.finished.is_set():
            with anyio.move_on_after(RUNNING_POLL_SECONDS):
                await run.finished.wait()
            if not run.finished.is_set():
                questions = await self._questions(call, reach)
                if questions:
                    return questions
        return []

    async def _questions(self, call: ClientCall, reach: Reach) -> list[Question]:
        if not reach.can_be_asked:
            return []
        return await anyio.to_thread.run_sync(pending_questions, self.services, call)

    async def _ask(self, call: ClientCall, questions: list[Question], with_tasks: bool) -> Answer:
        if with_tasks:
            status = await anyio.to_thread.run_sync(status_of, self.services, call)
            return tasks.created(call, status, questions)
        return asked(call, questions)
