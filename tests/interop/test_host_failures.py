"""How the host's session pool copes when real servers misbehave: a command that does not
exist, a call that outlives its timeout, and a server process killed mid-session."""

from __future__ import annotations

import time
from pathlib import Path

from mcp import StdioServerParameters

from mcp_host.sdk_client import SdkMcpClient
from tests.interop.peers import EVERYTHING_JS, child_pids, everything_server, kill_and_wait, time_server


def test_a_server_whose_command_does_not_exist_is_reported_and_the_others_still_work(logs: Path) -> None:
    targets = {
        "time": time_server(),
        "ghost": StdioServerParameters(command="/nonexistent/mcp-server"),
    }
    with SdkMcpClient(targets, log_dir=logs, connect_timeout=20) as client:
        manifest = client.discover()
        call = client.call_tool("time", "get_current_time", {"timezone": "UTC"})
        ghost_call = client.call_tool("ghost", "anything", {})

    servers = {server.name: server for server in manifest.servers}
    assert servers["time"].ok, servers["time"].error
    assert not servers["ghost"].ok
    assert servers["ghost"].error is not None
    assert servers["ghost"].error.kind == "unavailable"
    assert "/nonexistent/mcp-server" in servers["ghost"].error.message
    assert servers["ghost"].capabilities == []
    assert any(line.startswith("server ghost: unavailable") for line in manifest.problems())
    assert call.success, call.error
    assert not ghost_call.success
    assert ghost_call.error is not None
    assert ghost_call.error.kind == "unavailable"


def test_a_call_longer_than_the_call_timeout_times_out_and_the_session_still_works(logs: Path) -> None:
    with SdkMcpClient({"everything": everything_server()}, log_dir=logs, call_timeout=1.0) as client:
        started = time.monotonic()
        slow = client.call_tool("everything", "trigger-long-running-operation", {"duration": 10, "steps": 10})
        waited = time.monotonic() - started
        after = client.call_tool("everything", "echo", {"message": "still here"})

    assert not slow.success
    assert slow.error is not None
    assert slow.error.kind == "timeout"
    assert 1.0 <= waited < 5.0
    assert after.success, after.error
    assert [item.text for item in after.content] == ["Echo: still here"]


def test_a_killed_stdio_server_is_restarted_and_the_next_call_runs_on_the_new_one(logs: Path) -> None:
    # The call after the kill never reached the dead process (its request was not written), so
    # it is sent to the restarted server rather than failed (issue 32, item 5).
    marker = str(EVERYTHING_JS)
    with SdkMcpClient({"everything": everything_server()}, log_dir=logs, call_timeout=10) as client:
        assert client.call_tool("everything", "echo", {"message": "before"}).success
        [first] = child_pids(marker)

        kill_and_wait(first)
        during = client.call_tool("everything", "echo", {"message": "during"})
        after = client.call_tool("everything", "echo", {"message": "after"})
        manifest = client.discover()
        [health] = client.health()
        second = child_pids(marker)

    assert during.success, during.error
    assert [item.text for item in during.content] == ["Echo: during"]
    assert after.success, after.error
    assert [item.text for item in after.content] == ["Echo: after"]
    assert len(second) == 1
    assert second[0] != first
    assert manifest.servers[0].ok
    assert health.restarts == 1
    assert health.connected
