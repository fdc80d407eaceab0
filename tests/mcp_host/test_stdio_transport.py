"""The host's stdio transport: messages read once each, and one over the cap refused by name."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import StdioServerParameters

from mcp_host.errors import MessageTooLargeError
from mcp_host.sdk_client import SdkMcpClient
from mcp_host.stdio_transport import MessageSplitter
from tests.mcp_host.helpers import REPO_ROOT, stdio_greeter

CAP = 100_000


def test_messages_are_cut_at_newlines_across_chunks() -> None:
    splitter = MessageSplitter("s", CAP)

    assert splitter.feed(b'{"a":') == []
    assert splitter.feed(b'1}\n{"b":2}\n{"c"') == [b'{"a":1}', b'{"b":2}']
    assert splitter.feed(b":3}\n") == [b'{"c":3}']


def test_a_message_exactly_at_the_cap_is_read() -> None:
    splitter = MessageSplitter("s", 10)

    assert splitter.feed(b"0123456789\n") == [b"0123456789"]


def test_a_message_is_refused_as_soon_as_it_passes_the_cap_naming_server_and_limit() -> None:
    splitter = MessageSplitter("big", 10)
    splitter.feed(b"01234")

    # No newline yet: a server that never ends its line is refused all the same.
    with pytest.raises(MessageTooLargeError) as refused:
        splitter.feed(b"567890")

    assert refused.value.server == "big"
    assert refused.value.limit == 10
    assert "'big'" in str(refused.value) and "10 bytes" in str(refused.value)


def test_a_cap_that_is_not_positive_is_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        MessageSplitter("s", 0)


def _big_server(megabytes: float) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "bench.big_output_server", "--megabytes", str(megabytes)],
        cwd=str(REPO_ROOT),
    )


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
    # The other server's session was never touched: same connection, no restart.
    assert health["greeter"].connected and health["greeter"].restarts == 0


def test_a_server_whose_answers_fit_the_cap_is_served_whole(data_dir: Path) -> None:
    with SdkMcpClient({"big": _big_server(0.05)}, connect_timeout=60, message_cap_bytes=CAP) as pool:
        result = pool.call_tool("big", "read_log", {})

    assert result.success, result.error
    assert result.original_bytes == 50_000
