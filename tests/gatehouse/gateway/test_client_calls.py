"""An MCP client's call is open until its answer reached it: the same call (caller, tool,
arguments as JSON) while it is open joins it, on any process; a different one, or the same
once the first was closed, is a call of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from gatehouse.gateway.client_calls import ClientCalls


@pytest.fixture
def calls(data_dir: Path) -> ClientCalls:
    return ClientCalls(data_dir / "gatehouse.db")


def test_the_same_call_while_open_joins_it_whatever_the_order_of_its_arguments(calls: ClientCalls) -> None:
    first = calls.claim(
        "ann", "email__send_email", {"to": "bob", "body": "hi"}, client="agent", thread_id="t1"
    )
    again = calls.claim(
        "ann", "email__send_email", {"body": "hi", "to": "bob"}, client="other", thread_id="t2"
    )

    assert first.opened and not again.opened
    assert again.call == first.call
    assert again.call.thread_id == "t1"


@pytest.mark.parametrize(
    ("requester", "key", "arguments"),
    [
        ("bob", "email__send_email", {"to": "bob", "body": "hi"}),
        ("ann", "email__draft", {"to": "bob", "body": "hi"}),
        ("ann", "email__send_email", {"to": "bob", "body": "hi!"}),
    ],
)
def test_another_caller_tool_or_arguments_is_another_call(
    calls: ClientCalls, requester: str, key: str, arguments: dict[str, str]
) -> None:
    first = calls.claim("ann", "email__send_email", {"to": "bob", "body": "hi"}, client=None, thread_id="t1")
    other = calls.claim(requester, key, arguments, client=None, thread_id="t2")

    assert other.opened and other.call.id != first.call.id


def test_once_closed_the_same_call_is_a_new_one_and_a_close_happens_once(calls: ClientCalls) -> None:
    first = calls.claim("ann", "email__send_email", {"body": "hi"}, client=None, thread_id="t1")

    assert calls.close(first.call.id, "delivered")
    assert not calls.close(first.call.id, "cancelled")
    closed = calls.get(first.call.id)
    assert closed is not None and closed.closed_how == "delivered" and not closed.open

    anew = calls.claim("ann", "email__send_email", {"body": "hi"}, client=None, thread_id="t2")
    assert anew.opened and anew.call.thread_id == "t2"


def test_two_stores_on_one_database_agree_on_who_opened_a_call(data_dir: Path) -> None:
    # Two processes' stores (two replicas): one insert wins under the unique index of open calls.
    one, other = ClientCalls(data_dir / "gatehouse.db"), ClientCalls(data_dir / "gatehouse.db")

    won = one.claim("ann", "email__send_email", {"body": "hi"}, client=None, thread_id="t1")
    joined = other.claim("ann", "email__send_email", {"body": "hi"}, client=None, thread_id="t2")

    assert won.opened and not joined.opened and joined.call.id == won.call.id
