"""A server asking the person for input during a call: the pool carries the question to its
elicitation handler and the answer back, and declares the capability only when it can ask."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from mcp import StdioServerParameters
from mcp.types import ElicitRequestFormParams, ElicitRequestParams, ElicitResult

from mcp_host.elicitation import form_defaults
from mcp_host.results import McpResult
from mcp_host.sdk_client import SdkMcpClient
from tests.mcp_host.helpers import REPO_ROOT


def text_of(result: McpResult) -> str:
    return " ".join(item.text or "" for item in result.content)


def booking_server() -> StdioServerParameters:
    """A real stdio server: an in-process one has no channel for questions back to the host."""
    return StdioServerParameters(
        command=sys.executable, args=["-m", "tests.mcp_host.asking_server"], cwd=str(REPO_ROOT)
    )


class Recorder:
    """An elicitation handler that answers with the form's defaults, and remembers."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, ElicitRequestParams]] = []

    async def __call__(self, server: str, request: ElicitRequestParams) -> ElicitResult:
        self.asked.append((server, request))
        assert isinstance(request, ElicitRequestFormParams)
        return ElicitResult(action="accept", content=form_defaults(request.requested_schema))


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def asking_pool(recorder: Recorder) -> Iterator[SdkMcpClient]:
    pool = SdkMcpClient({"hotel": booking_server()}, connect_timeout=20, elicitation=recorder)
    try:
        yield pool
    finally:
        pool.close()


@pytest.mark.processes
def test_a_servers_question_reaches_the_handler_with_the_servers_name_and_the_answer_goes_back(
    asking_pool: SdkMcpClient, recorder: Recorder
) -> None:
    result = asking_pool.call_tool("hotel", "book_room", {})

    assert result.success, result.error
    assert "booked 2 nights for John Doe" in text_of(result)
    [(server, request)] = recorder.asked
    assert server == "hotel"
    assert request.message == "Who is staying, and for how long?"


@pytest.mark.processes
def test_without_a_handler_the_host_does_not_claim_it_can_ask() -> None:
    pool = SdkMcpClient({"hotel": booking_server()}, connect_timeout=20)
    try:
        result = pool.call_tool("hotel", "book_room", {})
    finally:
        pool.close()

    # The server's request fails (no elicitation capability): nothing is booked.
    assert "booked 2 nights" not in text_of(result)


@pytest.mark.processes
def test_a_handler_that_fails_is_an_error_for_the_server_not_a_crash_of_the_host() -> None:
    async def broken(server: str, request: ElicitRequestParams) -> ElicitResult:
        raise RuntimeError("the operator's tab is closed")

    pool = SdkMcpClient({"hotel": booking_server()}, connect_timeout=20, elicitation=broken)
    try:
        result = pool.call_tool("hotel", "book_room", {})
        assert "booked" not in text_of(result) or "not booked" in text_of(result)
        assert pool.health()[0].connected, "the session survives a failed question"
    finally:
        pool.close()


def test_form_defaults_take_each_propertys_default_of_its_own_type_and_nothing_else() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "score": {"type": "number", "default": 95.5},
            "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
            "verified": {"type": "boolean", "default": True},
            "tags": {"type": "array", "items": {"type": "string"}, "default": ["a"]},
            "no_default": {"type": "string"},
            "wrong_type": {"type": "integer", "default": "thirty"},
            "bool_as_int": {"type": "integer", "default": True},
            "off_the_list": {"type": "string", "enum": ["x"], "default": "y"},
        },
    }

    assert form_defaults(schema) == {
        "name": "John Doe",
        "age": 30,
        "score": 95.5,
        "status": "active",
        "verified": True,
        "tags": ["a"],
    }
    assert form_defaults({"type": "object"}) == {}
