"""A stdio server whose process dies after it was connected (issue 32, item 5).

The pool shows it as not connected, with why and its log, as soon as its transport sees the
process end; the next call waits for the restarted server instead of failing; and a call whose
request never reached the server (no session left, or the pipe gone before the request was
written) is "not sent", so the graph records it ``not_run`` rather than "it may have run". One
written before the server died stays "may have run".
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import StdioServerParameters
from mcp.shared.message import SessionMessage

from mcp_host.config import StdioServer
from mcp_host.health import ServerHealth
from mcp_host.sdk_client import SdkMcpClient
from mcp_host.stdio_transport import capped_stdio_client, tracked_writes
from tests.held_server import Hold
from tests.held_server import entry as held_entry
from tests.mcp_host.helpers import REPO_ROOT, child_processes
from tests.mcp_host.once_server import REFUSAL

# Starts processes of its own (servers over stdio): not in `make quick`.
pytestmark = pytest.mark.processes

CAP = 1024 * 1024


def _python_server(name: str, module: str, *args: str) -> StdioServer:
    return StdioServer(name=name, command=sys.executable, args=["-m", module, *args], cwd=str(REPO_ROOT))


def _only_child(earlier: set[int]) -> int:
    (pid,) = set(child_processes()) - earlier
    return pid


def _kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while pid in child_processes():
        assert time.monotonic() < deadline, f"process {pid} did not exit"
        time.sleep(0.02)


def _health_when(pool: SdkMcpClient, name: str, seen: Callable[[ServerHealth], bool]) -> ServerHealth:
    """The server's health once ``seen`` holds (at most 10 s), else its last one."""
    deadline = time.monotonic() + 10
    while True:
        health = next(h for h in pool.health() if h.name == name)
        if seen(health) or time.monotonic() > deadline:
            return health
        time.sleep(0.02)


def test_a_killed_server_shows_as_not_connected_with_why_and_its_log(data_dir: Path, tmp_path: Path) -> None:
    entry = _python_server("greeter", "servers.greeter", "--data-dir", str(data_dir))
    earlier = set(child_processes())
    # A long pause before the restart: what the page shows meanwhile is what is checked.
    with SdkMcpClient({"greeter": entry}, connect_timeout=20, restart_backoff=30, log_dir=tmp_path) as pool:
        assert pool.discover().servers[0].ok
        _kill(_only_child(earlier))
        health = _health_when(pool, "greeter", lambda h: not h.connected)

    assert health.connection == "disconnected" and health.verdict == "failed"
    assert health.last_error == "the server's process was killed (SIGKILL)"
    assert health.log == str(tmp_path / "greeter.log")


def test_the_call_after_the_kill_runs_on_the_restarted_server(data_dir: Path) -> None:
    entry = _python_server("greeter", "servers.greeter", "--data-dir", str(data_dir))
    earlier = set(child_processes())
    with SdkMcpClient({"greeter": entry}, connect_timeout=20, restart_backoff=0.05) as pool:
        assert pool.call_tool("greeter", "greet", {"name": "Ada"}).success
        _kill(_only_child(earlier))
        _health_when(pool, "greeter", lambda h: not h.connected or h.restarts > 0)
        after = pool.call_tool("greeter", "greet", {"name": "Ada"})
        health = next(h for h in pool.health() if h.name == "greeter")

    assert after.success, after.error
    assert after.content[0].text == "Hello, Ada!"
    assert health.connected and health.restarts == 1
    # Why it was last re-opened stays visible; it is not a current error.
    assert health.error is not None and "killed (SIGKILL)" in health.error.message
    assert health.last_error is None


def test_a_server_that_cannot_start_again_says_why_and_its_calls_are_not_sent(tmp_path: Path) -> None:
    entry = _python_server("once", "tests.mcp_host.once_server", str(tmp_path / "started"))
    earlier = set(child_processes())
    with SdkMcpClient(
        {"once": entry}, connect_timeout=20, restart_backoff=0.05, log_dir=tmp_path / "logs"
    ) as pool:
        assert pool.call_tool("once", "echo", {"text": "hi"}).success
        _kill(_only_child(earlier))
        # Its keeper restarts it once, which fails: then the health says why.
        health = _health_when(pool, "once", lambda h: "status" in (h.last_error or ""))
        call = pool.call_tool("once", "echo", {"text": "hi"})

    assert not health.connected
    assert health.last_error is not None and REFUSAL in health.last_error
    assert "exited with status 1" in health.last_error
    assert not call.success and call.error is not None
    assert call.error.kind == "unavailable"
    assert call.error.sent is False and call.error.may_have_run is False


def test_a_request_written_before_the_server_died_may_have_run(tmp_path: Path) -> None:
    effects = tmp_path / "effects.jsonl"
    spec = held_entry("mail", Hold(seconds=30), effects=effects, exit_after_effect=True)
    entry = StdioServer(name="mail", **spec)
    with SdkMcpClient({"mail": entry}, connect_timeout=20, max_restarts=0) as pool:
        result = pool.call_tool("mail", "send_message", {"to": "ada@example.com", "body": "hi"})

    assert len(effects.read_text().splitlines()) == 1  # it did act
    assert not result.success and result.error is not None
    assert result.error.sent is True and result.error.may_have_run is True


def _request(request_id: int) -> SessionMessage:
    return SessionMessage(types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method="ping"))


async def _drain(read_stream: object) -> None:
    with anyio.fail_after(10):
        async for _ in read_stream:  # type: ignore[attr-defined]
            pass  # until the session's stream ends: the process is gone


def _session_with(code: str, use: Callable[[object, object], Awaitable[None]]) -> tuple[int, list[str]]:
    """How many requests the transport says ``use`` wrote to a process running ``code``, and
    what the transport said of the session's end."""
    ends: list[str] = []
    parameters = StdioServerParameters(command=sys.executable, args=["-c", code])

    async def go() -> int:
        async with capped_stdio_client(
            "probe", parameters, max_message_bytes=CAP, on_oversize=lambda _: None, on_end=ends.append
        ) as (read_stream, write_stream):
            with tracked_writes() as writes:
                await use(read_stream, write_stream)
            return writes.written

    return anyio.run(go), ends


def test_a_request_after_the_process_is_gone_is_not_written() -> None:
    async def use(read_stream: object, write_stream: object) -> None:
        await _drain(read_stream)
        await write_stream.send(_request(1))  # type: ignore[attr-defined]
        # The writer takes the next message only once it is done with this one; it stops at
        # the broken pipe, so the next is refused.
        with pytest.raises((anyio.BrokenResourceError, anyio.ClosedResourceError)):
            await write_stream.send(_request(2))  # type: ignore[attr-defined]

    written, ends = _session_with("import os; os.close(0); os._exit(3)", use)

    assert written == 0
    assert ends == ["the server's process exited with status 3"]


def test_a_request_the_process_read_is_counted_as_written() -> None:
    async def use(read_stream: object, write_stream: object) -> None:
        await write_stream.send(_request(1))  # type: ignore[attr-defined]
        await _drain(read_stream)

    code = "import sys; sys.stderr.write(sys.stdin.readline()); sys.exit(0)"
    written, ends = _session_with(code, use)

    assert written == 1
    assert ends == ["the server's process exited with status 0"]


def test_a_call_whose_pipe_was_gone_before_its_request_was_written_is_not_sent(data_dir: Path) -> None:
    # A helper the server started keeps its output open after it dies, so the host learns of
    # the death only when it writes the next request: the window where the pool still lends
    # the session out, as when a call comes just before the host reads the end of the output.
    script = 'sleep 20 </dev/null & exec "$@"'
    greeter = [sys.executable, "-m", "servers.greeter", "--data-dir", str(data_dir)]
    entry = StdioServer(
        name="greeter", command="/bin/sh", args=["-c", script, "sh", *greeter], cwd=str(REPO_ROOT)
    )
    earlier = set(child_processes())
    with SdkMcpClient({"greeter": entry}, connect_timeout=20, max_restarts=0) as pool:
        assert pool.call_tool("greeter", "greet", {"name": "Ada"}).success
        _kill(_only_child(earlier))
        still_lent = pool.health()[0].connected
        call = pool.call_tool("greeter", "greet", {"name": "Ada"})
        health = pool.health()[0]

    assert still_lent
    assert not call.success and call.error is not None and call.error.kind == "unavailable"
    assert call.error.sent is False and call.error.may_have_run is False
    # Made once more on a re-opened session, it finds none: no restarts are allowed here.
    assert "killed (SIGKILL)" in call.error.message
    assert not health.connected
