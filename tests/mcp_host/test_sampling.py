"""A server asking the host for a model completion during a call: the pool carries the request
to its sampling handler with the server's name and the answer (or the refusal) back, declares
the capability only when it has a handler, and lets a call wait for a person past its own time
limit. Real stdio servers: the SDK's own 2026-07-28 server, and one serving only the handshake
era, as servers on older SDKs do."""

from __future__ import annotations

import sys

import anyio
import pytest
from mcp import StdioServerParameters
from mcp.types import CreateMessageRequestParams, CreateMessageResult, ErrorData, TextContent

from mcp_host.elicitation import CallOwner, callers, on_behalf_of
from mcp_host.results import McpResult
from mcp_host.sampling import SAMPLING_REFUSED
from mcp_host.sdk_client import SdkMcpClient
from tests.mcp_host.helpers import REPO_ROOT

# Starts processes of its own (servers over stdio, the CLI): not in `make quick`.
pytestmark = pytest.mark.processes


def writer(*, legacy: bool = False) -> StdioServerParameters:
    """tests/mcp_host/sampling_server.py: its tool samples and returns the text it got."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "tests.mcp_host.sampling_server", *(["--legacy"] if legacy else [])],
        cwd=str(REPO_ROOT),
    )


def text_of(result: McpResult) -> str:
    return " ".join(item.text or "" for item in result.content)


class Answering:
    """A sampling handler that answers with fixed text (after ``delay`` seconds) and remembers."""

    def __init__(self, text: str = "Thanks, see you Monday.", delay: float = 0.0) -> None:
        self.text = text
        self.delay = delay
        self.asked: list[tuple[str, CreateMessageRequestParams]] = []
        # The owners of the calls each request may have come from, as the pool told the handler.
        self.callers: list[tuple[CallOwner | None, ...]] = []

    async def __call__(self, server: str, params: CreateMessageRequestParams) -> CreateMessageResult:
        self.asked.append((server, params))
        self.callers.append(callers())
        await anyio.sleep(self.delay)
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=self.text), model="stand-in"
        )


def test_a_servers_request_reaches_the_handler_with_its_name_and_limits_and_the_answer_goes_back() -> None:
    handler = Answering()
    with SdkMcpClient({"writer": writer()}, connect_timeout=20, sampling=handler) as pool:
        result = pool.call_tool("writer", "draft_reply", {"message": "Lunch on Monday?"})

    assert result.success, result.error
    assert text_of(result) == "draft by stand-in: Thanks, see you Monday."
    [(server, params)] = handler.asked
    assert server == "writer"
    assert params.max_tokens == 120
    assert params.system_prompt == "You write short, polite replies."
    assert params.messages[0].content == TextContent(type="text", text="Draft a reply to: Lunch on Monday?")
    assert params.model_preferences is not None and params.model_preferences.speed_priority == 0.8


def test_a_handshake_era_server_gets_its_answer_too() -> None:
    handler = Answering()
    with SdkMcpClient({"writer": writer(legacy=True)}, connect_timeout=20, sampling=handler) as pool:
        assert pool.health()[0].protocol_version == "2025-11-25"
        result = pool.call_tool("writer", "draft_reply", {"message": "Lunch on Monday?"})

    assert text_of(result) == "draft by stand-in: Thanks, see you Monday."


def test_a_refusal_reaches_a_handshake_era_server_as_an_error() -> None:
    async def refuse(server: str, params: CreateMessageRequestParams) -> ErrorData:
        return ErrorData(code=SAMPLING_REFUSED, message="a reviewer declined")

    with SdkMcpClient({"writer": writer(legacy=True)}, connect_timeout=20, sampling=refuse) as pool:
        result = pool.call_tool("writer", "draft_reply", {"message": "Lunch on Monday?"})

    # The server's own words: it received the error and said so in its result.
    assert text_of(result) == "the host refused: a reviewer declined"


def test_a_refusal_fails_a_2026_call_with_the_refusals_words() -> None:
    # On 2026-07-28 a server's request travels inside the call's result; a refusal means the
    # client does not call again, so the call fails here, saying why.
    async def refuse(server: str, params: CreateMessageRequestParams) -> ErrorData:
        return ErrorData(code=SAMPLING_REFUSED, message="a reviewer declined")

    with SdkMcpClient({"writer": writer()}, connect_timeout=20, sampling=refuse) as pool:
        result = pool.call_tool("writer", "draft_reply", {"message": "Lunch on Monday?"})
        assert pool.health()[0].connected, "the session survives a refused request"

    assert not result.success
    assert result.error is not None and "a reviewer declined" in result.error.message


def test_the_host_offers_completions_only_with_a_handler_to_answer_them() -> None:
    with SdkMcpClient({"writer": writer(legacy=True)}, connect_timeout=20, sampling=Answering()) as pool:
        offered = pool.call_tool("writer", "draft_reply", {"message": "Lunch on Monday?"})
    with SdkMcpClient({"writer": writer(legacy=True)}, connect_timeout=20) as pool:
        not_offered = pool.call_tool("writer", "draft_reply", {"message": "Lunch on Monday?"})

    assert text_of(offered) == "draft by stand-in: Thanks, see you Monday."
    # Without a handler the capability is not declared: the server is refused, nothing answers.
    assert text_of(not_offered).startswith("the host refused")


def test_a_call_waits_for_the_person_answering_beyond_its_own_time_limit() -> None:
    # A reviewer takes minutes; the call's limit is for the server's own work.
    handler = Answering(delay=2.0)
    with SdkMcpClient({"writer": writer()}, connect_timeout=20, call_timeout=1.0, sampling=handler) as pool:
        result = pool.call_tool("writer", "draft_reply", {"message": "Lunch on Monday?"})

    assert result.success, result.error
    assert text_of(result) == "draft by stand-in: Thanks, see you Monday."


def test_a_handler_that_fails_is_an_error_for_the_server_not_a_crash_of_the_host() -> None:
    async def broken(server: str, params: CreateMessageRequestParams) -> CreateMessageResult:
        raise RuntimeError("the database is gone")

    with SdkMcpClient({"writer": writer(legacy=True)}, connect_timeout=20, sampling=broken) as pool:
        result = pool.call_tool("writer", "draft_reply", {"message": "Lunch on Monday?"})
        assert pool.health()[0].connected

    assert text_of(result) == "the host refused: the host could not answer: RuntimeError"


def test_the_handler_is_told_whose_call_the_request_came_from_on_either_protocol() -> None:
    owner = CallOwner(thread_id="t1", requester="grace", contributors=("admin",), review_id="t1-r1")
    for legacy in (False, True):
        handler = Answering()
        with SdkMcpClient({"writer": writer(legacy=legacy)}, connect_timeout=20, sampling=handler) as pool:
            with on_behalf_of(owner):
                pool.call_tool("writer", "draft_reply", {"message": "Lunch on Monday?"})
            pool.call_tool("writer", "draft_reply", {"message": "Lunch on Monday?"})

        # The second call was made for nobody named (a reviewer's preview, say).
        assert handler.callers == [(owner,), (None,)], f"legacy={legacy}"
