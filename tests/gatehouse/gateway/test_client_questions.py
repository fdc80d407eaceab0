"""A server's question during a client's call through the endpoint (in this process, the
server in-process too), by what the client can be asked: a client that takes pages to open is
asked a URL question and the call goes on with its answer; a client that declared no
elicitation is not asked, and the call's result says that the question was declined and why
(the server went on without an answer, never with one given for the client)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import anyio
import pytest
from mcp.client.session import ClientRequestContext
from mcp_types import ElicitRequestParams, ElicitRequestURLParams, ElicitResult, TextContent

from gatehouse.wiring import Services
from tests.gatehouse.gateway.gateway_support import Gateway, serving_gateway
from tests.questions_server import CONNECT_URL, URL_MESSAGE, entry
from tests.reviews.review_support import services_for

_T = TypeVar("_T")


@pytest.fixture(autouse=True)
def _servers_in_process(test_servers_in_process: None) -> None:
    """The question servers' entries are served in this process (tests/in_process_servers.py)."""


@pytest.fixture
def gateway(data_dir: Path) -> Iterator[tuple[Gateway, Services]]:
    servers = data_dir / "servers.json"
    servers.write_text(
        json.dumps({"mcpServers": {"almanac": entry("form"), "weather": entry("url")}}), encoding="utf-8"
    )
    with services_for(data_dir, servers=servers) as services, serving_gateway(services) as served:
        yield served, services


def run(work: Callable[[], Awaitable[_T]]) -> _T:
    async def bounded() -> _T:
        with anyio.fail_after(60):
            return await work()

    return anyio.run(bounded)


def text_of(content: Sequence[object]) -> str:
    return "\n".join(item.text for item in content if isinstance(item, TextContent))


def test_a_url_question_is_put_to_the_client_and_the_call_goes_on_with_its_answer(
    gateway: tuple[Gateway, Services],
) -> None:
    served, services = gateway
    asked: list[ElicitRequestParams] = []

    async def opened(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="accept")

    async def call() -> str:
        async with served.client("operator", elicitation_callback=opened) as client:
            return text_of((await client.call_tool("weather__get_forecast", {"city": "Paris"})).content)

    assert run(call) == "Connected: forecast for Paris from weather.example.com."
    [params] = asked
    assert isinstance(params, ElicitRequestURLParams)
    assert params.url == CONNECT_URL and URL_MESSAGE in params.message
    [event] = [e for e in services.audit.events() if e.kind == "question_answered"]
    assert (event.actor, event.data["server"], event.data["action"]) == ("operator", "weather", "accept")


def test_a_client_that_declared_no_elicitation_is_not_asked_and_told_why(
    gateway: tuple[Gateway, Services],
) -> None:
    served, services = gateway

    async def call() -> str:
        async with served.client("operator") as client:
            return text_of((await client.call_tool("almanac__get_forecast", {"city": "Paris"})).content)

    said = run(call)
    assert said.startswith("No forecast for Paris: the question was declined.")
    assert (
        "almanac asked a question during the call; Gatehouse declined it: the client did not declare any "
        "elicitation, so it cannot be asked." in said
    )
    # Declined before any question was opened: nobody could have answered it for the client.
    assert [e.kind for e in services.audit.events() if e.kind.startswith("question_")] == ["question_refused"]
