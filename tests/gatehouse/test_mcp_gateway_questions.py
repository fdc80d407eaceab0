"""A configured server's question during a client's call through `gatehouse serve` reaches that
client, under the chat's rules, and is never answered for it:

- an MCP 2026-07-28 client that declared elicitation is asked (an ``InputRequiredResult``, which
  the SDK's client answers through its elicitation callback and calls again): the call goes on
  with its answer, taken as the chat takes one (recorded as the caller's; an answer that does not
  fit the form is refused, and the same question stands); the retry may reach another replica,
  and only its caller's own call is answered by it;
- a form the chat would decline (it asks for a secret) is declined the same way, without asking;
- a client with the tasks extension sees its task ``input_required`` with the question, and
  answers it with ``tasks/update``;
- a 2025-11-25 client, which the stateless endpoint cannot ask, has the question declined: the
  log of `gatehouse serve` and the call's result say so;
- a server's request for a model completion stays a review, never put to the client.

The servers are real stdio servers started by each `gatehouse serve` (tests/questions_server.py,
tests/mcp_host/sampling_server.py); two endpoints serve one database."""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
import httpx2
import pytest
from mcp import Client
from mcp.client.client import ConnectMode
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.session import ClientRequestContext, ElicitationFnT
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CallToolResult,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitResult,
    GetTaskRequest,
    GetTaskRequestParams,
    InputRequiredResult,
    Request,
    RequestParams,
    Result,
    TextContent,
)
from pydantic import BaseModel, ConfigDict, Field

from reviews.audit import AuditLog
from reviews.ledger import Review, ReviewLedger
from tests.cli_support import run_cli
from tests.gatehouse.gateway_support import gatehouse_serves, serve_environment
from tests.questions_server import FORECAST_FORM, FORM_MESSAGE, entry
from tests.reviews.review_support import REPO, policy_file

pytestmark = pytest.mark.processes

FORECAST = "almanac__get_forecast"
SECRET_FORECAST = "vault__get_forecast"
DRAFT = "writer__draft_reply"
TASKS = "io.modelcontextprotocol/tasks"
LIMIT_SECONDS = 90
ANSWER = {"units": "fahrenheit", "days": 2, "alerts": True}
# The writer's call runs in the endpoint (allowed), so its request for a completion does too:
# the rules that would send it to a reviewer (a "reply" sends a message; no annotations) leave
# it out, and a rule allows it.
ALLOW_DRAFTS = (
    ('name = "outgoing messages"\n', 'name = "outgoing messages"\nexclude = ["writer__*"]\n'),
    ('name = "unannotated tools"\n', 'name = "unannotated tools"\nexclude = ["writer__*"]\n'),
    (
        '[[rules]]\nname = "low-risk reads"\n',
        '[[rules]]\nname = "drafts"\nmatch = ["writer__draft_reply"]\naction = "allow"\n'
        'accepts = ["sends messages", "destructive", "open world"]\n'
        'explanation = "A draft is text for the caller: nothing leaves."\n\n'
        '[[rules]]\nname = "low-risk reads"\n',
    ),
)

Elicit = ElicitationFnT


@dataclass
class Gateway:
    data: Path
    servers: Path
    policy: Path
    first: str
    second: str
    tokens: dict[str, str] = field(default_factory=dict)

    def cli(self, *args: str) -> str:
        """A command run on the endpoints' database and policy (a command with another policy
        would record it as the newest, which the endpoints then adopt)."""
        env = serve_environment(self.data, self.servers) | {"GATEHOUSE_POLICY": str(self.policy)}
        done = run_cli(*args, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    @property
    def database(self) -> Path:
        return self.data / "gatehouse.db"

    def log_of(self, url: str) -> str:
        """What the `gatehouse serve` at ``url`` wrote (tests/gatehouse/gateway_support.py)."""
        port = urlsplit(url).port
        return (self.data / f"serve-{port}.log").read_text(encoding="utf-8", errors="replace")

    def questions(self, server: str) -> list[dict[str, Any]]:
        with sqlite3.connect(self.database) as db:
            db.row_factory = sqlite3.Row
            rows = db.execute(
                "SELECT * FROM questions WHERE server = ? ORDER BY created_at", (server,)
            ).fetchall()
        return [dict(row) for row in rows]

    def audit(self, kind: str) -> list[dict[str, Any]]:
        log = AuditLog(self.database)
        try:
            return [{"actor": event.actor, **event.data} for event in log.events() if event.kind == kind]
        finally:
            log.close()

    def pending_reviews(self) -> list[Review]:
        ledger = ReviewLedger(self.database)
        try:
            return ledger.queue("pending")
        finally:
            ledger.close()


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    data = tmp_path_factory.mktemp("gateway") / "data"
    data.mkdir()
    writer = {"command": sys.executable, "args": ["-m", "tests.mcp_host.sampling_server"], "cwd": str(REPO)}
    servers = data / "servers.json"
    servers.write_text(
        json.dumps({"mcpServers": {"almanac": entry("form"), "vault": entry("secret"), "writer": writer}}),
        encoding="utf-8",
    )
    policy = policy_file(data, "policy.toml", *ALLOW_DRAFTS)
    options = ["--wait", "60", "--policy", str(policy)]
    with gatehouse_serves(data, servers, options, options) as [first, second]:
        gateway = Gateway(data, servers, policy, first, second)
        for user in ("operator", "reviewer"):
            gateway.tokens[user] = json.loads(gateway.cli("tokens", "issue", user, "--json"))["token"]
        yield gateway


def text_of(result: CallToolResult) -> str:
    return "\n".join(item.text for item in result.content if isinstance(item, TextContent))


def answering(answer: dict[str, Any], asked: list[ElicitRequestParams]) -> Elicit:
    """An elicitation callback that fills in every form with ``answer``, keeping what it was asked."""

    async def callback(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="accept", content=answer)

    return callback


@asynccontextmanager
async def client(
    url: str,
    token: str,
    *extensions: ClientExtension,
    elicit: Elicit | None = None,
    mode: ConnectMode = "auto",
    **callbacks: Any,
) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=LIMIT_SECONDS) as http,
        Client(
            streamable_http_client(url, http_client=http),
            extensions=list(extensions),
            elicitation_callback=elicit,
            mode=mode,
            **callbacks,
        ) as agent,
    ):
        yield agent


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    async def limited() -> None:
        with anyio.fail_after(LIMIT_SECONDS):
            await scenario()

    anyio.run(limited)


def test_a_modern_client_is_asked_the_servers_question_and_the_call_goes_on_with_its_answer(
    gateway: Gateway,
) -> None:
    asked: list[ElicitRequestParams] = []

    async def scenario() -> None:
        async with client(
            gateway.first, gateway.tokens["operator"], elicit=answering(ANSWER, asked)
        ) as agent:
            result = await agent.call_tool(FORECAST, {"city": "Paris"})
        assert not result.is_error, text_of(result)
        assert text_of(result) == "Forecast for Paris: 2 day(s) in fahrenheit, alerts on."

    run(scenario)
    [question] = asked
    assert isinstance(question, ElicitRequestFormParams)
    assert question.message.startswith("almanac asks") and FORM_MESSAGE in question.message
    assert question.requested_schema == FORECAST_FORM
    # Answered in the database as the chat answers: by the caller, once.
    [row] = gateway.questions("almanac")
    assert (row["status"], row["action"], row["answered_by"]) == ("answered", "accept", "operator")
    [answered] = gateway.audit("question_answered")
    assert answered["actor"] == "operator" and answered["fields"] == sorted(ANSWER)


def test_the_answer_may_reach_another_replica_and_must_fit_the_form_and_be_the_callers(
    gateway: Gateway,
) -> None:
    arguments = {"city": "Lyon"}
    ignored: list[ElicitRequestParams] = []

    async def scenario() -> None:
        async with (
            client(gateway.first, gateway.tokens["operator"], elicit=answering({}, ignored)) as first,
            client(gateway.second, gateway.tokens["operator"], elicit=answering({}, ignored)) as second,
            client(gateway.second, gateway.tokens["reviewer"], elicit=answering({}, ignored)) as someone_else,
        ):
            required = await first.session.call_tool(FORECAST, arguments, allow_input_required=True)
            assert isinstance(required, InputRequiredResult) and required.input_requests is not None
            [key] = required.input_requests

            async def retry(agent: Client, content: dict[str, Any]) -> Any:
                return await agent.session.call_tool(
                    FORECAST,
                    arguments,
                    input_responses={key: ElicitResult(action="accept", content=content)},
                    request_state=required.request_state,
                    allow_input_required=True,
                )

            with pytest.raises(MCPError, match="requestState names no call of yours"):
                await retry(someone_else, ANSWER)
            with pytest.raises(MCPError, match="does not fit the form"):
                await retry(second, {"units": "kelvin"})
            result = await retry(second, ANSWER)
            assert isinstance(result, CallToolResult), result
            assert text_of(result) == "Forecast for Lyon: 2 day(s) in fahrenheit, alerts on."

    run(scenario)
    assert ignored == []  # nobody's callback was asked: the test drove the rounds itself
    assert [row["answered_by"] for row in gateway.questions("almanac") if row["status"] == "answered"]


def test_a_form_asking_for_a_secret_is_declined_without_asking_the_client_an_ordinary_one_is_asked(
    gateway: Gateway,
) -> None:
    asked: list[ElicitRequestParams] = []

    async def scenario() -> None:
        async with client(
            gateway.first, gateway.tokens["operator"], elicit=answering(ANSWER, asked)
        ) as agent:
            secret = await agent.call_tool(SECRET_FORECAST, {"city": "Paris"})
            ordinary = await agent.call_tool(FORECAST, {"city": "Rome"})
        assert text_of(secret).startswith("No forecast for Paris: the question was declined.")
        assert text_of(ordinary) == "Forecast for Rome: 2 day(s) in fahrenheit, alerts on."

    run(scenario)
    # Only the ordinary form reached the client; the secret one was declined as the chat
    # declines it (the policy's secret_forms = "decline"), before any question was opened.
    assert [FORM_MESSAGE in params.message for params in asked] == [True]
    assert gateway.questions("vault") == []
    [refused] = [event for event in gateway.audit("question_refused") if event["server"] == "vault"]
    assert "looks like a secret (api_key)" in refused["reason"]


class TaskHandle(Result):
    result_type: Literal["task"] = Field(alias="resultType")
    task_id: str = Field(alias="taskId")
    status: str


class TaskState(BaseModel):
    model_config = ConfigDict(extra="allow")


class UpdateTaskParams(RequestParams):
    task_id: str
    input_responses: dict[str, Any]


class UpdateTaskRequest(Request[UpdateTaskParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateTaskParams


class AnsweringTasks(ClientExtension):
    """The tasks extension as an agent uses it: it polls its task, answers the questions an
    ``input_required`` task carries with tasks/update, and returns the task's result."""

    identifier = TASKS

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.states: list[dict[str, Any]] = []

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self._resolve)]

    async def _resolve(self, handle: TaskHandle, ctx: ClaimContext) -> CallToolResult:
        self.states.append({"status": handle.status, "taskId": handle.task_id})
        while True:
            got = await ctx.session.send_request(
                GetTaskRequest(params=GetTaskRequestParams(task_id=handle.task_id)), TaskState
            )
            state = got.model_dump(by_alias=True)
            self.states.append(state)
            if state["status"] == "completed":
                return CallToolResult.model_validate(state["result"])
            if state["status"] == "input_required":
                responses = {
                    key: {"action": "accept", "content": self.answer} for key in state["inputRequests"]
                }
                update = UpdateTaskRequest(
                    params=UpdateTaskParams(task_id=handle.task_id, input_responses=responses)
                )
                await ctx.session.send_request(update, TaskState)
            await anyio.sleep(0.2)


def test_a_client_with_tasks_sees_its_task_ask_and_answers_with_tasks_update(gateway: Gateway) -> None:
    tasks = AnsweringTasks(ANSWER)
    asked: list[ElicitRequestParams] = []

    async def scenario() -> None:
        async with client(
            gateway.second, gateway.tokens["operator"], tasks, elicit=answering({}, asked)
        ) as agent:
            result = await agent.call_tool(FORECAST, {"city": "Oslo"})
        assert text_of(result) == "Forecast for Oslo: 2 day(s) in fahrenheit, alerts on."

    run(scenario)
    assert asked == []  # asked through the task, not the elicitation callback
    statuses = [state["status"] for state in tasks.states]
    assert statuses[0] == "input_required" and statuses[-1] == "completed", statuses
    asking = next(state for state in tasks.states if "inputRequests" in state)
    [request] = asking["inputRequests"].values()
    assert request["method"] == "elicitation/create"
    assert FORM_MESSAGE in request["params"]["message"]
    assert request["params"]["requestedSchema"] == FORECAST_FORM
    assert {state["taskId"] for state in tasks.states} == {tasks.states[0]["taskId"]}


def test_a_2025_11_25_client_has_the_question_declined_and_is_told_why(gateway: Gateway) -> None:
    asked: list[ElicitRequestParams] = []

    async def scenario() -> None:
        async with client(
            gateway.first, gateway.tokens["operator"], elicit=answering(ANSWER, asked), mode="legacy"
        ) as agent:
            result = await agent.call_tool(FORECAST, {"city": "Nice"})
        said = text_of(result)
        assert said.startswith("No forecast for Nice: the question was declined."), said
        assert "almanac asked a question during the call; Gatehouse declined it" in said
        assert "MCP 2025-11-25" in said

    run(scenario)
    assert asked == []
    log = gateway.log_of(gateway.first)
    assert "gatehouse: almanac asked a question during the call ('Which units" in log
    assert "declined: the client speaks MCP 2025-11-25" in log


def test_a_servers_request_for_a_completion_stays_a_review(gateway: Gateway) -> None:
    sampled: list[CreateMessageRequestParams] = []

    async def sample(
        context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult:
        sampled.append(params)
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text="yes"), model="m")

    async def scenario() -> None:
        async with (
            client(gateway.first, gateway.tokens["operator"], sampling_callback=sample) as agent,
            anyio.create_task_group() as tg,
        ):
            answer: list[CallToolResult] = []

            async def call() -> None:
                answer.append(await agent.call_tool(DRAFT, {"message": "Lunch on Monday?"}))

            tg.start_soon(call)
            while not (waiting := await anyio.to_thread.run_sync(gateway.pending_reviews)):
                await anyio.sleep(0.2)
            [review] = waiting
            assert review.stage == "sampling"
            await anyio.to_thread.run_sync(
                lambda: gateway.cli(
                    "reviews",
                    "decide",
                    review.id,
                    "--reject",
                    "--reason",
                    "No drafts today",
                    "--reviewer",
                    "reviewer",
                )
            )
        [result] = answer
        assert result.is_error, text_of(result)

    run(scenario)
    assert sampled == []
