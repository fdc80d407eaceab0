"""A call through `gatehouse serve` that needs a reviewer waits for the decision, the protocol's
way, and an approved call runs once however the client comes back for it:

- a client without the tasks extension waits in the call, told what it waits for by progress
  notifications, and receives the approved call's result, or the reviewer's reason;
- a client that gives the call up withdraws its review;
- a client whose wait ran out calls again with the same arguments and joins the same review,
  and receives the result of the one call that ran; the same call after that is a new call;
- a client with the tasks extension gets a task handle at once, which `tasks/get` resolves once
  a reviewer decides; the handle is its caller's only, and `tasks/cancel` withdraws the review;
  a client without it is refused the task methods with the error naming the extension.

Decisions are taken by `gatehouse reviews decide` in this process, on the same database: another
process than the endpoint's, as a reviewer on the app or another replica would be. Two endpoints
serve the same database: one waits 60 s in a call, the other 1 s."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import anyio
import anyio.to_thread
import httpx2
import pytest
from mcp import Client, ClientSession
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    CallToolResult,
    CancelTaskRequest,
    CancelTaskRequestParams,
    GetTaskRequest,
    GetTaskRequestParams,
    Result,
    TextContent,
)
from pydantic import BaseModel, ConfigDict, Field

from reviews.ledger import Review
from tests.gatehouse.gateway_support import Gateway, gatehouse_serves, issue_token, servers_file

pytestmark = pytest.mark.processes

SEND = "email__send_email"
TASKS = "io.modelcontextprotocol/tasks"
LIMIT_SECONDS = 90


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    data = tmp_path_factory.mktemp("gateway") / "data"
    data.mkdir()
    servers = servers_file(data)
    with gatehouse_serves(data, servers, ["--wait", "60"], ["--wait", "1"]) as [patient, brief]:
        gateway = Gateway(data, servers, patient, brief)
        for user in ("operator", "reviewer"):
            gateway.tokens[user] = issue_token(data, servers, user)
        yield gateway


def text_of(result: CallToolResult) -> str:
    return "\n".join(item.text for item in result.content if isinstance(item, TextContent))


async def pending_review(gateway: Gateway, body: str) -> Review:
    """The review a send of ``body`` opened, once it is in the ledger."""
    while True:
        found = await anyio.to_thread.run_sync(gateway.ledger_reviews, body)
        if found and found[-1].status == "pending":
            return found[-1]
        await anyio.sleep(0.2)


@asynccontextmanager
async def client(url: str, token: str, *extensions: ClientExtension) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=LIMIT_SECONDS) as http,
        Client(streamable_http_client(url, http_client=http), extensions=list(extensions)) as agent,
    ):
        yield agent


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    async def limited() -> None:
        with anyio.fail_after(LIMIT_SECONDS):
            await scenario()

    anyio.run(limited)


def test_a_waiting_client_is_told_what_it_waits_for_and_receives_the_approved_calls_result_once(
    gateway: Gateway,
) -> None:
    body = "approved while its client waits"
    told: list[str] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        told.append(message or "")

    async def scenario() -> None:
        async with (
            client(gateway.patient, gateway.tokens["operator"]) as agent,
            anyio.create_task_group() as tg,
        ):
            answer: list[CallToolResult] = []

            async def call() -> None:
                answer.append(
                    await agent.call_tool(
                        SEND, {"to": "bob@example.com", "body": body}, progress_callback=progress
                    )
                )

            tg.start_soon(call)
            review = await pending_review(gateway, body)
            while not told:
                await anyio.sleep(0.1)
            await anyio.to_thread.run_sync(gateway.decide, review.id, "--approve")
        [result] = answer
        assert not result.is_error, text_of(result)
        assert result.structured_content is not None and result.structured_content["queued"] is True
        assert any(f"review {review.id}" in line for line in told), told

    run(scenario)
    [review] = gateway.ledger_reviews(body)
    assert review.status == "executed"
    assert gateway.sent(body) == 1


def test_a_rejection_reaches_the_waiting_client_with_the_reviewers_reason(gateway: Gateway) -> None:
    body = "rejected while its client waits"

    async def scenario() -> None:
        async with (
            client(gateway.patient, gateway.tokens["operator"]) as agent,
            anyio.create_task_group() as tg,
        ):
            answer: list[CallToolResult] = []

            async def call() -> None:
                answer.append(await agent.call_tool(SEND, {"to": "bob@example.com", "body": body}))

            tg.start_soon(call)
            review = await pending_review(gateway, body)
            await anyio.to_thread.run_sync(
                gateway.decide, review.id, "--reject", "--reason", "Bob is on leave this week"
            )
        [result] = answer
        assert result.is_error
        assert "Bob is on leave this week" in text_of(result)

    run(scenario)
    assert gateway.sent(body) == 0


def test_a_client_that_gives_the_call_up_withdraws_its_review(gateway: Gateway) -> None:
    body = "given up by its client"

    async def scenario() -> None:
        async with (
            client(gateway.patient, gateway.tokens["operator"]) as agent,
            anyio.create_task_group() as tg,
        ):

            async def call() -> None:
                await agent.call_tool(SEND, {"to": "bob@example.com", "body": body})

            tg.start_soon(call)
            await pending_review(gateway, body)
            tg.cancel_scope.cancel()
        while (await anyio.to_thread.run_sync(gateway.ledger_reviews, body))[-1].status == "pending":
            await anyio.sleep(0.2)

    run(scenario)
    [review] = gateway.ledger_reviews(body)
    assert (review.status, review.decided_by) == ("cancelled", "operator")


def test_asking_again_joins_the_open_review_and_the_approved_call_runs_once(gateway: Gateway) -> None:
    body = "asked for three times"
    arguments = {"to": "bob@example.com", "body": body}

    async def scenario() -> None:
        async with client(gateway.brief, gateway.tokens["operator"]) as agent:
            first = await agent.call_tool(SEND, arguments)
            again = await agent.call_tool(SEND, dict(reversed(arguments.items())))
            [review] = await anyio.to_thread.run_sync(gateway.ledger_reviews, body)
            for told in (first, again):
                assert told.is_error and f"review {review.id}" in text_of(told)
                assert "has not been decided after 1 s" in text_of(told)
            await anyio.to_thread.run_sync(gateway.decide, review.id, "--approve")
            # The decision was carried out in the deciding process: asking again is answered
            # with that call's result, on either endpoint, and nothing runs again.
            result = await agent.call_tool(SEND, arguments)
            assert not result.is_error, text_of(result)
            assert result.structured_content is not None and result.structured_content["queued"] is True
            assert gateway.sent(body) == 1
            # Its answer was delivered: the same call now is a new one, with a review of its own.
            anew = await agent.call_tool(SEND, arguments)
            assert anew.is_error and "has not been decided" in text_of(anew)

    run(scenario)
    first, second = gateway.ledger_reviews(body)
    assert (first.status, second.status) == ("executed", "pending")
    assert gateway.sent(body) == 1


class TaskHandle(Result):
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str
    status_message: str | None = Field(default=None, alias="statusMessage")
    poll_interval_ms: int | None = Field(default=None, alias="pollIntervalMs")


class TaskState(BaseModel):
    """What tasks/get and tasks/cancel answer, kept whole (the test reads it as JSON)."""

    model_config = ConfigDict(extra="allow")


async def task_state(session: ClientSession, task_id: str) -> dict[str, Any]:
    state = await session.send_request(
        GetTaskRequest(params=GetTaskRequestParams(task_id=task_id)), TaskState
    )
    return state.model_dump(by_alias=True)


class PollingTasks(ClientExtension):
    """The tasks extension as an agent built on the Python SDK would use it: a handle is polled
    with tasks/get until the task ends; every handle and state seen is kept for the test."""

    identifier = TASKS

    def __init__(self) -> None:
        self.handles: list[TaskHandle] = []
        self.states: list[dict[str, Any]] = []
        self.first_handle = anyio.Event()

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self._resolve)]

    async def _resolve(self, handle: TaskHandle, ctx: ClaimContext) -> CallToolResult:
        self.handles.append(handle)
        self.first_handle.set()
        while True:
            state = await task_state(ctx.session, handle.task_id)
            self.states.append(state)
            if state["status"] == "completed":
                return CallToolResult.model_validate(state["result"])
            assert state["status"] == "working", state
            await anyio.sleep((handle.poll_interval_ms or 1000) / 1000)


def test_a_client_with_tasks_gets_a_handle_that_resolves_once_a_reviewer_decides(gateway: Gateway) -> None:
    body = "followed as a task"
    tasks = PollingTasks()

    async def scenario() -> None:
        async with (
            client(gateway.brief, gateway.tokens["operator"], tasks) as agent,
            anyio.create_task_group() as tg,
        ):
            answer: list[CallToolResult] = []

            async def call() -> None:
                answer.append(await agent.call_tool(SEND, {"to": "bob@example.com", "body": body}))

            tg.start_soon(call)
            await tasks.first_handle.wait()
            review = await pending_review(gateway, body)
            # Longer than the endpoint's 1 s wait in a call: a task is not bound by it.
            await anyio.sleep(2)
            # Another replica answers for the handle (it is kept in the database), to its caller...
            async with client(gateway.patient, gateway.tokens["operator"], PollingTasks()) as elsewhere:
                state = await task_state(elsewhere.session, tasks.handles[0].task_id)
                assert (state["taskId"], state["status"]) == (tasks.handles[0].task_id, "working")
                assert f"review {review.id}" in state["statusMessage"]
            # ...and to nobody else: another person's token is told there is no such task.
            async with client(gateway.patient, gateway.tokens["reviewer"], PollingTasks()) as other:
                with pytest.raises(MCPError, match="no task"):
                    await task_state(other.session, tasks.handles[0].task_id)
            await anyio.to_thread.run_sync(gateway.decide, review.id, "--approve")
        [result] = answer
        assert not result.is_error, text_of(result)
        assert result.structured_content is not None and result.structured_content["queued"] is True

    run(scenario)
    [handle] = tasks.handles
    assert handle.status == "working" and handle.status_message and "review" in handle.status_message
    assert [state["status"] for state in tasks.states][-1] == "completed"
    assert {state["taskId"] for state in tasks.states} == {handle.task_id}
    assert gateway.sent(body) == 1


def test_cancelling_a_task_withdraws_its_review(gateway: Gateway) -> None:
    body = "task cancelled by its client"

    async def scenario() -> None:
        async with client(gateway.patient, gateway.tokens["operator"], PollingTasks()) as agent:
            handle = await agent.session.call_tool(
                SEND, {"to": "bob@example.com", "body": body}, allow_claimed=True
            )
            assert isinstance(handle, TaskHandle)
            await pending_review(gateway, body)
            cancel = CancelTaskRequest(params=CancelTaskRequestParams(task_id=handle.task_id))
            await agent.session.send_request(cancel, TaskState)
            state = await task_state(agent.session, handle.task_id)
            assert state["status"] == "cancelled", state

    run(scenario)
    [review] = gateway.ledger_reviews(body)
    assert (review.status, review.decided_by) == ("cancelled", "operator")


def test_a_client_without_the_tasks_extension_is_refused_the_task_methods_naming_it(gateway: Gateway) -> None:
    async def scenario() -> None:
        async with client(gateway.brief, gateway.tokens["operator"]) as agent:
            for request in (
                GetTaskRequest(params=GetTaskRequestParams(task_id="gate-test")),
                CancelTaskRequest(params=CancelTaskRequestParams(task_id="gate-test")),
            ):
                with pytest.raises(MCPError) as refused:
                    await agent.session.send_request(request, TaskState)
                assert refused.value.code == MISSING_REQUIRED_CLIENT_CAPABILITY, refused.value.message
                assert refused.value.data["requiredCapabilities"] == {"extensions": {TASKS: {}}}

    run(scenario)
