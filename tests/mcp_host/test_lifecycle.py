"""SdkMcpClient misuse and shutdown: unknown servers, closed clients, child processes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcp_host.errors import ClientClosedError, McpHostError, UnknownServerError
from mcp_host.sdk_client import SdkMcpClient
from tests.mcp_host.helpers import child_processes, echo_server, silent_server, stdio_greeter

Use = Callable[[SdkMcpClient], Any]

USES: dict[str, Use] = {
    "discover": lambda client: client.discover(),
    "call_tool": lambda client: client.call_tool("echo", "echo", {"text": "hi"}),
    "read_resource": lambda client: client.read_resource("echo", "docs://anything"),
    "get_prompt": lambda client: client.get_prompt("echo", "anything", {}),
}
UNKNOWN_SERVER_USES: dict[str, Use] = {
    "call_tool": lambda client: client.call_tool("nowhere", "echo", {}),
    "read_resource": lambda client: client.read_resource("nowhere", "docs://anything"),
    "get_prompt": lambda client: client.get_prompt("nowhere", "anything", {}),
}


@pytest.mark.parametrize("use", UNKNOWN_SERVER_USES.values(), ids=UNKNOWN_SERVER_USES.keys())
def test_an_unknown_server_raises_unknown_server_error_naming_the_configured_servers(use: Use) -> None:
    targets = {"alpha": echo_server("alpha"), "beta": echo_server("beta")}
    with SdkMcpClient(targets) as client, pytest.raises(UnknownServerError) as raised:
        use(client)

    assert raised.value.server == "nowhere"
    assert "'nowhere'" in str(raised.value)
    assert "alpha, beta" in str(raised.value)
    assert isinstance(raised.value, McpHostError)


@pytest.mark.parametrize("use", USES.values(), ids=USES.keys())
def test_a_closed_client_raises_client_closed_error(use: Use) -> None:
    client = SdkMcpClient({"echo": echo_server("echo")})
    client.close()

    with pytest.raises(ClientClosedError):
        use(client)


def test_closing_a_client_twice_is_harmless() -> None:
    client = SdkMcpClient({"echo": echo_server("echo")})
    assert client.call_tool("echo", "echo", {"text": "hi"}).success

    client.close()
    client.close()

    assert client.server_names() == ["echo"]


def test_leaving_the_with_block_closes_the_client() -> None:
    with SdkMcpClient({"echo": echo_server("echo")}) as client:
        assert client.call_tool("echo", "echo", {"text": "hi"}).success

    with pytest.raises(ClientClosedError):
        client.discover()


@pytest.mark.processes
def test_closing_a_client_leaves_no_stdio_child_process_behind(data_dir: Path) -> None:
    before = set(child_processes())

    with SdkMcpClient({"greeter": stdio_greeter(data_dir)}) as client:
        assert client.call_tool("greeter", "greet", {"name": "Ada"}).success
        started = set(child_processes()) - before

    assert started, "the stdio server should have run as a child of this process"
    assert started.isdisjoint(child_processes())


@pytest.mark.processes
def test_closing_a_client_ends_a_child_that_never_finished_its_handshake() -> None:
    before = set(child_processes())

    with SdkMcpClient({"silent": silent_server()}, connect_timeout=0.5) as client:
        error = client.discover().servers[0].error

    assert error is not None and error.kind == "timeout"
    assert set(child_processes()) <= before
