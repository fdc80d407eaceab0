"""A remote server that trickles its answers a byte at a time (tests/adversarial/slowloris_server.py).

Each byte resets the HTTP client's read timeout, so what ends the wait is Gatehouse's own
deadlines: the connect timeout for opening a session (the first time, after it died, and after
a sign-in), the entry's ``timeout`` for a listing and for a call. Each ends with a timeout error
that says so, and a well-behaved server in the same pool answers meanwhile.
"""

from __future__ import annotations

import gc
import json
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx2
import pytest

from mcp_host.config import HttpServer
from mcp_host.oauth import MemoryCredentialStore, SignIn, server_auth, watched
from mcp_host.sdk_client import SdkMcpClient
from servers.greeter import build_server as build_greeter
from tests.adversarial.harness import Gatehouse, gatehouse_with
from tests.http_servers import serving
from tests.support import wait_until

# Starts processes of its own (servers over stdio, the CLI): not in `make quick`.
pytestmark = pytest.mark.processes

TIMEOUT = 1.0
CONNECT_TIMEOUT = 1.5
# Slack for a loaded two-core machine: far below the 300 s read timeout a trickle defeats.
SLACK = 3.0


@contextmanager
def slowloris(stage: str) -> Iterator[HttpServer]:
    with serving("tests.adversarial.slowloris_server", stage) as port:
        yield HttpServer(name="slow", url=f"http://127.0.0.1:{port}/mcp", timeout=TIMEOUT)


@contextmanager
def pool_with(entry: HttpServer) -> Iterator[SdkMcpClient]:
    greeter = build_greeter(Path(tempfile.mkdtemp()))
    with SdkMcpClient(
        {"slow": entry, "greeter": greeter}, connect_timeout=CONNECT_TIMEOUT, restart_backoff=0.01
    ) as pool:
        yield pool


@contextmanager
def within(seconds: float) -> Iterator[None]:
    started = time.monotonic()
    yield
    assert time.monotonic() - started < seconds


def test_a_handshake_trickled_forever_ends_at_the_connect_timeout_and_the_others_connect() -> None:
    with slowloris("connect") as entry, within(CONNECT_TIMEOUT + SLACK), pool_with(entry) as pool:
        health = {h.name: h for h in pool.health()}
        greeting = pool.call_tool("greeter", "greet", {"name": "Ada"})

    assert not health["slow"].connected and health["slow"].error is not None
    assert health["slow"].error.kind == "timeout"
    assert f"no session within {CONNECT_TIMEOUT:g} s" in health["slow"].error.message
    assert health["greeter"].connected and greeting.success, greeting.error


def test_opening_again_after_a_sign_in_is_bounded_by_the_connect_timeout_and_says_so() -> None:
    with slowloris("connect") as entry, pool_with(entry) as pool:
        with within(CONNECT_TIMEOUT + SLACK):
            health = pool.reconnect("slow")
        with within(CONNECT_TIMEOUT + SLACK):
            result = pool.call_tool("slow", "ping", {})
        with within(SLACK):
            greeting = pool.call_tool("greeter", "greet", {"name": "Ada"})

    assert health.error is not None and health.error.kind == "timeout", health
    assert f"no session within {CONNECT_TIMEOUT:g} s" in health.error.message
    assert result.error is not None and result.error.kind == "timeout", result.error
    assert greeting.success, greeting.error


def test_a_listing_trickled_forever_ends_at_the_servers_timeout_while_the_others_are_listed() -> None:
    with slowloris("listing") as entry, pool_with(entry) as pool, within(TIMEOUT + SLACK):
        manifest = pool.discover(fresh=True)

    servers = {server.name: server for server in manifest.servers}
    assert not servers["slow"].ok and servers["slow"].error is not None
    assert servers["slow"].error.kind == "timeout"
    assert servers["greeter"].ok
    assert [c.name for c in servers["greeter"].capabilities if c.type == "tool"]


def test_a_call_trickled_forever_ends_at_the_servers_timeout_and_the_others_answer_meanwhile() -> None:
    with slowloris("call") as entry, pool_with(entry) as pool, ThreadPoolExecutor(1) as executor:
        slow = executor.submit(pool.call_tool, "slow", "ping", {})
        wait_until(lambda: bool(pool._sessions["slow"].in_flight), timeout=SLACK, what="the slow call")
        with within(TIMEOUT):  # the greeter does not wait for the slow server's call
            greeting = pool.call_tool("greeter", "greet", {"name": "Ada"})
        answered_first = not slow.done()
        with within(TIMEOUT + SLACK):
            result = slow.result()

    assert greeting.success and answered_first, greeting.error
    assert result.error is not None and result.error.kind == "timeout", result.error


@pytest.mark.anyio
async def test_a_request_cancelled_mid_trickle_leaves_the_sign_in_flow_usable() -> None:
    # Every remote server gets the SDK's OAuth flow when sign-ins are kept (the CLI, the app),
    # kept across re-opens of its session; the flow holds a lock while each request waits for
    # its answer, and a request cancelled then (a session closed under it) must release it.
    with slowloris("call") as entry:
        auth = server_auth(entry, SignIn(MemoryCredentialStore()))
        assert auth is not None
        flow = watched(auth, lambda failure: None)
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ping"}}
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        headers = {"Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient(auth=flow, headers=headers) as http:
            with anyio.move_on_after(TIMEOUT):
                await http.post(entry.url, json=call)
            gc.collect()  # a flow left open would be finalized here, in another task
            with anyio.fail_after(TIMEOUT + SLACK):
                answered = await http.post(entry.url, json=listing)

    assert answered.json()["result"]["tools"][0]["name"] == "ping"


def test_servers_check_reports_a_listing_trickled_forever_as_timed_out_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with slowloris("listing") as entry:
        gatehouse = _remote_only(gatehouse_with(tmp_path, monkeypatch, capsys, {}), tmp_path, entry)
        with within(TIMEOUT + SLACK + 2):
            printed = gatehouse.run("servers", "check")

    (line,) = [line for line in printed.out.splitlines() if "slow" in line]
    assert line.startswith("  FAIL  slow") and "timeout:" in line, printed.out
    assert "Traceback" not in printed.out + printed.err


def _remote_only(gatehouse: Gatehouse, tmp_path: Path, entry: HttpServer) -> Gatehouse:
    servers = {"mcpServers": {"slow": {"type": "http", "url": entry.url, "timeout": TIMEOUT}}}
    (tmp_path / "servers.json").write_text(json.dumps(servers), encoding="utf-8")
    return gatehouse
