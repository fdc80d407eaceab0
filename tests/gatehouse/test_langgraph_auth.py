"""The LangGraph API's callers (gatehouse/langgraph_auth.py): a token names a person of the
roster, a request runs as that person, and nobody writes a thread's state from outside.
tests/gatehouse/test_langgraph_dev.py checks the same through a real `langgraph dev`."""

from __future__ import annotations

from typing import Any

import pytest

from gatehouse.errors import ConfigurationError
from gatehouse.langgraph_auth import (
    CallerRefusedError,
    caller_of,
    parse_tokens,
    run_as_caller,
    state_write_problem,
)

ROSTER = {"operator": "operator", "reviewer": "reviewer"}
TOKENS = parse_tokens("operator=op-token, reviewer=rev-token,ghost=ghost-token")


def test_tokens_map_to_roster_names_and_a_bad_list_names_the_variable() -> None:
    assert TOKENS == {"op-token": "operator", "rev-token": "reviewer", "ghost-token": "ghost"}
    assert parse_tokens(None) == {}
    for bad in ("operator", "=tok", "a=same,b=same"):
        with pytest.raises(ConfigurationError, match="GATEHOUSE_API_TOKENS"):
            parse_tokens(bad)


def test_a_bearer_token_or_an_api_key_names_the_caller() -> None:
    assert caller_of({b"authorization": b"Bearer op-token"}, TOKENS, ROSTER.get) == "operator"
    assert caller_of({b"x-api-key": b"rev-token"}, TOKENS, ROSTER.get) == "reviewer"


def test_an_unknown_token_is_refused_and_so_is_a_name_outside_the_roster() -> None:
    for headers in ({}, {b"authorization": b"Bearer nope"}, {b"authorization": b"Basic op-token"}):
        with pytest.raises(CallerRefusedError) as refused:
            caller_of(headers, TOKENS, ROSTER.get)
        assert refused.value.status == 401
    with pytest.raises(CallerRefusedError, match="ghost is not in the policy's roster") as outside:
        caller_of({b"x-api-key": b"ghost-token"}, TOKENS, ROSTER.get)
    assert outside.value.status == 403
    # Without GATEHOUSE_API_TOKENS nobody gets in.
    with pytest.raises(CallerRefusedError):
        caller_of({b"x-api-key": b"op-token"}, {}, ROSTER.get)


def test_a_request_runs_as_its_caller_on_its_own_thread_whatever_its_input_said() -> None:
    kwargs = {"input": {"input": "Send an email", "requester": "admin", "thread_id": "another"}}
    run_as_caller(kwargs, "t-1", "operator", lambda name: name == "operator")
    assert kwargs["input"] == {"input": "Send an email", "requester": "operator", "thread_id": "t-1"}


@pytest.mark.parametrize(
    ("kwargs", "thread", "why"),
    [
        ({"input": {"input": "hi"}}, None, "runs on a thread"),
        ({"command": {"resume": {}, "update": {"approved_call": {}}}}, "t-1", "may only resume"),
        ({"command": {"goto": "build_mcp_request"}}, "t-1", "may only resume"),
        ({"input": "hi"}, "t-1", "is an object"),
        ({"input": {"input": "hi"}}, "t-1", "reviewer's role may not ask"),
    ],
)
def test_what_a_run_may_not_ask_is_refused(kwargs: dict[str, Any], thread: str | None, why: str) -> None:
    with pytest.raises(CallerRefusedError, match=why) as refused:
        run_as_caller(kwargs, thread, "reviewer", lambda name: name == "operator")
    assert refused.value.status == 403


def test_a_resume_carries_only_a_decision_and_anyone_in_the_roster_may_deliver_it() -> None:
    kwargs = {"command": {"resume": {"action": "approve"}}}
    run_as_caller(kwargs, "t-1", "reviewer", lambda name: False)
    assert kwargs == {"command": {"resume": {"action": "approve"}}}


def test_a_thread_state_is_never_written_from_outside() -> None:
    assert "written by its runs only" in (state_write_problem({"thread_id": "t-1"}) or "")
    assert state_write_problem({"thread_id": "t-1", "metadata": {"title": "demo"}}) is None
    assert state_write_problem({"thread_id": "t-1", "action": "interrupt"}) is None
