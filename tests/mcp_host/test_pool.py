"""The session pool over real transports: isolation, restarts, caching, untrusted output."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp.server import Server
from pydantic import SecretStr

from mcp_host.config import HttpServer, StdioServer
from mcp_host.sdk_client import SdkMcpClient
from tests.http_servers import serving
from tests.mcp_host.helpers import REPO_ROOT, child_processes, lowlevel, record_methods


def _python_server(name: str, module: str, *args: str, env: dict[str, str] | None = None) -> StdioServer:
    secrets = {key: SecretStr(value) for key, value in (env or {}).items()}
    return StdioServer(
        name=name, command=sys.executable, args=["-m", module, *args], env=secrets, cwd=str(REPO_ROOT)
    )


@pytest.mark.processes
def test_a_stdio_server_sees_only_its_entry_env_and_a_minimal_base(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GATEHOUSE_HOST_SECRET", "do-not-leak")
    entry = _python_server("env", "tests.mcp_host.env_server", env={"SERVER_TOKEN": "given"})

    with SdkMcpClient({"env": entry}, connect_timeout=20) as pool:
        result = pool.call_tool("env", "environment", {})

    assert result.success, result.error
    seen: dict[str, Any] = result.structured or {}
    assert seen.get("SERVER_TOKEN") == "given"
    assert "GATEHOUSE_HOST_SECRET" not in seen
    assert "PATH" in seen
    assert set(seen) <= {
        "SERVER_TOKEN",
        "PATH",
        "HOME",
        "LANG",
        "LOGNAME",
        "SHELL",
        "TERM",
        "USER",
        "LC_CTYPE",
    }


@pytest.mark.processes
def test_a_stdio_server_that_dies_is_restarted_and_serves_the_next_call(data_dir: Path) -> None:
    entry = _python_server("greeter", "servers.greeter", "--data-dir", str(data_dir))
    # Children an earlier test on this worker left still exiting are not this pool's.
    earlier = set(child_processes())
    with SdkMcpClient({"greeter": entry}, connect_timeout=20, restart_backoff=0.05) as pool:
        assert pool.call_tool("greeter", "greet", {"name": "Ada"}).success
        (pid,) = set(child_processes()) - earlier
        os.kill(pid, signal.SIGKILL)
        _wait_gone(pid)

        # The transport saw the process end: the call waits for the restarted server.
        after = pool.call_tool("greeter", "greet", {"name": "Ada"})
        health = {h.name: h for h in pool.health()}

    assert after.success and after.content[0].text == "Hello, Ada!"
    assert health["greeter"].restarts == 1
    assert health["greeter"].connected


@pytest.mark.processes
def test_restarts_are_bounded_and_the_failure_is_reported(data_dir: Path) -> None:
    entry = _python_server("greeter", "servers.greeter", "--data-dir", str(data_dir))
    with SdkMcpClient({"greeter": entry}, connect_timeout=20, max_restarts=1, restart_backoff=0.05) as pool:
        for _ in range(2):
            pool.call_tool("greeter", "greet", {"name": "x"})
            for pid in child_processes():
                os.kill(pid, signal.SIGKILL)
                _wait_gone(pid)
            pool.call_tool("greeter", "greet", {"name": "x"})
        final = pool.call_tool("greeter", "greet", {"name": "x"})
        health = pool.health()[0]

    assert not final.success
    assert health.connected is False
    assert health.error is not None and "gave up after 1 restarts" in health.error.message
    assert child_processes() == {}


def test_the_manifest_is_cached_until_a_fresh_one_is_asked_for() -> None:
    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="t", input_schema={"type": "object"})])

    server = Server("cached", on_list_tools=list_tools)
    methods = record_methods(server)
    with SdkMcpClient({"cached": lowlevel(server)}) as pool:
        pool.discover()
        pool.discover()
        cached = methods.count("tools/list")
        pool.discover(fresh=True)

    assert cached == 1
    assert methods.count("tools/list") == 2


def test_structured_output_that_fails_its_schema_is_kept_but_untrusted() -> None:
    schema = {"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        tool = types.Tool(name="count", input_schema={"type": "object"}, output_schema=schema)
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text='{"count": "many"}')],
            structured_content={"count": "many"},
        )

    server = Server("liar", on_list_tools=list_tools, on_call_tool=call_tool)
    with SdkMcpClient({"liar": lowlevel(server)}) as pool:
        pool.discover()
        result = pool.call_tool("liar", "count", {})

    assert result.untrusted is True
    assert result.untrusted_reason is not None and "count" in result.untrusted_reason
    assert result.structured == {"count": "many"}


@pytest.fixture
def http_greeter() -> Iterator[str]:
    with serving("tests.mcp_host.http_server", "letmein") as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.mark.processes
def test_streamable_http_sends_the_configured_headers(http_greeter: str) -> None:
    entry = HttpServer(
        name="remote", url=http_greeter, headers={"Authorization": SecretStr("Bearer letmein")}
    )
    with SdkMcpClient({"remote": entry}, connect_timeout=20) as pool:
        result = pool.call_tool("remote", "greet", {"name": "Ada"})
        manifest = pool.discover()

    assert result.success and result.content[0].text == "Hello, Ada!"
    assert manifest.servers[0].ok


@pytest.mark.processes
def test_a_rejected_credential_is_an_auth_failure_of_that_server_only(
    http_greeter: str, data_dir: Path
) -> None:
    wrong = HttpServer(name="remote", url=http_greeter, headers={"Authorization": SecretStr("Bearer nope")})
    local = _python_server("local", "servers.greeter", "--data-dir", str(data_dir))
    with SdkMcpClient({"remote": wrong, "local": local}, connect_timeout=20) as pool:
        manifest = pool.discover()
        local_result = pool.call_tool("local", "greet", {"name": "Ada"})

    remote = next(s for s in manifest.servers if s.name == "remote")
    assert not remote.ok
    assert remote.error is not None and remote.error.kind == "auth"
    assert "nope" not in remote.error.message
    assert local_result.success


def _wait_gone(pid: int) -> None:
    deadline = time.monotonic() + 10
    while pid in child_processes():
        if time.monotonic() > deadline:
            pytest.fail(f"process {pid} did not exit")
        time.sleep(0.02)


@pytest.mark.processes
def test_a_per_server_timeout_overrides_the_pool_default() -> None:
    quick = _python_server("quick", "tests.mcp_host.env_server").model_copy(update={"timeout": 0.3})
    patient = _python_server("patient", "tests.mcp_host.env_server")
    with SdkMcpClient({"quick": quick, "patient": patient}, call_timeout=30, connect_timeout=20) as pool:
        started = time.monotonic()
        cut_short = pool.call_tool("quick", "nap", {"seconds": 5})
        waited = time.monotonic() - started
        waited_for = pool.call_tool("patient", "nap", {"seconds": 0.5})

    assert cut_short.error is not None and cut_short.error.kind == "timeout"
    assert waited < 3
    assert waited_for.success
