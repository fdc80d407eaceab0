"""The host's stdio transport: messages read once each, and one over the cap refused by name."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import StdioServerParameters

from mcp_host.sdk_client import SdkMcpClient
from mcp_host.stdio_transport import MessageSplitter, Oversized
from tests.mcp_host.helpers import REPO_ROOT, stdio_greeter

CAP = 100_000


def test_messages_are_cut_at_newlines_across_chunks() -> None:
    splitter = MessageSplitter(CAP)

    assert splitter.feed(b'{"a":') == []
    assert splitter.feed(b'1}\n{"b":2}\n{"c"') == [b'{"a":1}', b'{"b":2}']
    assert splitter.feed(b":3}\n") == [b'{"c":3}']


def test_a_message_exactly_at_the_cap_is_read() -> None:
    splitter = MessageSplitter(10)

    assert splitter.feed(b"0123456789\n") == [b"0123456789"]


def test_a_message_is_refused_as_soon_as_it_passes_the_cap_and_again_when_it_ends() -> None:
    splitter = MessageSplitter(40)
    head = b'{"jsonrpc":"2.0","id":7,"result":{"text":"'
    splitter.feed(head[:20])

    # No newline yet: a server that never ends its line is refused all the same.
    (passed,) = splitter.feed(head[20:] + b"x" * 100)
    (ended, after) = splitter.feed(b'x"}}\n{"jsonrpc":"2.0","id":8,"result":{}}\n')

    assert isinstance(passed, Oversized) and passed.tail is None and passed.head.startswith(head)
    assert isinstance(ended, Oversized) and ended.tail is not None and ended.tail.endswith(b'x"}}')
    assert after == b'{"jsonrpc":"2.0","id":8,"result":{}}'


@pytest.mark.parametrize(
    ("head", "tail", "expected"),
    [
        (b'{"jsonrpc":"2.0","id":7,"result":{"content":[', None, 7),
        (b'{"jsonrpc": "2.0", "id": "call-1", "error": {"code"', None, "call-1"),
        # The TypeScript SDK's servers put the id last.
        (b'{"result":{"content":[{"type":"text","text":"', b'"}]},"jsonrpc":"2.0","id":3}', 3),
        # A request from the server is never taken for the response to one of the host's.
        (b'{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":', None, None),
        (b'{"method":"sampling/createMessage","params":{"a":"', b'"}},"jsonrpc":"2.0","id":0}', None),
        (b'{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"', b'"}}', None),
    ],
)
def test_a_refused_message_answers_a_request_only_when_its_ends_say_which(
    head: bytes, tail: bytes | None, expected: int | str | None
) -> None:
    assert Oversized(head, tail).answers() == expected


def test_a_cap_that_is_not_positive_is_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        MessageSplitter(0)


def _big_server(megabytes: float) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "bench.big_output_server", "--megabytes", str(megabytes)],
        cwd=str(REPO_ROOT),
    )


@pytest.mark.processes
def test_a_huge_message_is_refused_with_its_server_and_limit_and_other_servers_go_on(data_dir: Path) -> None:
    targets = {"big": _big_server(0.5), "greeter": stdio_greeter(data_dir)}
    with SdkMcpClient(targets, connect_timeout=60, message_cap_bytes=CAP, restart_backoff=0.05) as pool:
        before = pool.call_tool("greeter", "greet", {"name": "Ada"})
        big = pool.call_tool("big", "read_log", {})
        after = pool.call_tool("greeter", "greet", {"name": "Ada"})
        health = {h.name: h for h in pool.health()}

    assert before.success and after.success
    assert after.content[0].text == "Hello, Ada!"
    assert not big.success and big.error is not None
    assert big.error.kind == "protocol"
    assert "'big'" in big.error.message and f"{CAP} bytes" in big.error.message
    assert big.error.may_have_run
    # Only the call was refused: neither session was closed or restarted.
    assert health["greeter"].connected and health["greeter"].restarts == 0
    assert health["big"].connected and health["big"].restarts == 0


@pytest.mark.processes
def test_a_server_whose_answers_fit_the_cap_is_served_whole(data_dir: Path) -> None:
    with SdkMcpClient({"big": _big_server(0.05)}, connect_timeout=60, message_cap_bytes=CAP) as pool:
        result = pool.call_tool("big", "read_log", {})

    assert result.success, result.error
    assert result.original_bytes == 50_000


def _shouting_server() -> StdioServerParameters:
    """tests/mcp_host/shouting_server.py: its "shout" sends a message over the cap naming no call."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "tests.mcp_host.shouting_server", str(2 * CAP)],
        cwd=str(REPO_ROOT),
    )


@pytest.mark.processes
def test_a_huge_message_that_names_no_call_ends_its_session_which_is_opened_again() -> None:
    shouting = _shouting_server()
    with SdkMcpClient(
        {"shouting": shouting}, connect_timeout=60, message_cap_bytes=CAP, restart_backoff=0.05
    ) as pool:
        shout = pool.call_tool("shouting", "shout", {})
        after = pool.call_tool("shouting", "whisper", {})

    assert not shout.success and shout.error is not None and shout.error.kind == "protocol"
    assert "'shouting'" in shout.error.message and f"{CAP} bytes" in shout.error.message
    assert "closed the session" in shout.error.message
    assert after.success and after.content[0].text == "psst"


@pytest.mark.processes
def test_a_server_that_keeps_sending_huge_messages_naming_no_call_is_given_up_on_after_its_restarts() -> None:
    # Each such message ends the session, and each end counts like a crash (mcp_host/sdk_client.py).
    shouting = _shouting_server()
    with SdkMcpClient(
        {"shouting": shouting},
        connect_timeout=60,
        message_cap_bytes=CAP,
        max_restarts=1,
        restart_backoff=0.05,
    ) as pool:
        pool.call_tool("shouting", "shout", {})  # ends the first session: it is opened again
        pool.call_tool("shouting", "shout", {})  # ends the second: no restart is left
        after = pool.call_tool("shouting", "whisper", {})
        health = pool.health()[0]

    assert not after.success
    assert not health.connected and health.restarts == 1
    assert health.error is not None and "gave up after 1 restarts" in health.error.message
