"""A stdio server's helpers end with it (issue 32, item 5): a server started through a wrapper
(a shell, npx, uvx) may start processes that never read its stdin, and they must not outlive
the server when the host stops it, or restarts it after it died. The host ends the server's
whole process group, even once the server's own process has exited."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mcp_host.config import StdioServer
from mcp_host.sdk_client import SdkMcpClient
from tests.mcp_host.helpers import REPO_ROOT, child_processes
from tests.processes import alive

# Starts processes of its own (servers over stdio): not in `make quick`.
pytestmark = pytest.mark.processes


def _wrapped(pids: Path) -> StdioServer:
    return StdioServer(
        name="wrapped",
        command=sys.executable,
        args=["-m", "tests.mcp_host.wrapper_server", str(pids)],
        cwd=str(REPO_ROOT),
    )


def _helpers(pids: Path) -> list[int]:
    return [int(line) for line in pids.read_text(encoding="utf-8").split()] if pids.exists() else []


def _wait(what: str, done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 15
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def _end(pids: list[int]) -> None:
    """A failed test leaves no sleeping helper behind."""
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_server_the_host_stops_takes_the_processes_it_started_with_it(tmp_path: Path) -> None:
    pids = tmp_path / "helpers"
    try:
        with SdkMcpClient({"wrapped": _wrapped(pids)}, connect_timeout=20) as pool:
            assert pool.call_tool("wrapped", "echo", {"text": "hi"}).success
            [helper] = _helpers(pids)
            assert alive(helper)
        # The server exits as soon as its stdin closes; its helper does not read it.
        assert not alive(helper), "the server's helper outlived the server"
    finally:
        _end(_helpers(pids))


def test_a_server_restarted_after_it_died_leaves_no_process_of_the_dead_one(tmp_path: Path) -> None:
    pids = tmp_path / "helpers"
    earlier = set(child_processes())
    try:
        with SdkMcpClient({"wrapped": _wrapped(pids)}, connect_timeout=20, restart_backoff=0.05) as pool:
            assert pool.call_tool("wrapped", "echo", {"text": "hi"}).success
            [first] = _helpers(pids)
            (server,) = set(child_processes()) - earlier
            os.kill(server, signal.SIGKILL)
            _wait("the restart", lambda: len(_helpers(pids)) == 2 and pool.health()[0].connected)
            assert pool.call_tool("wrapped", "echo", {"text": "again"}).success
            assert not alive(first), "the dead server's helper outlived it"
            second = _helpers(pids)[1]
            assert alive(second)
        assert not alive(second)
    finally:
        _end(_helpers(pids))
