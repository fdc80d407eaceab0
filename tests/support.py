"""Helpers shared by the graph, review and CLI tests."""

from __future__ import annotations

import os
import time
import weakref
from collections.abc import Callable
from pathlib import Path

from gatehouse.wiring import bundled_servers_config
from graph.builder import CompiledGraph
from graph.context import GraphContext, Limits
from graph.runner import RunOutcome, start_request
from mcp_host.client import McpClient
from mcp_host.config import StdioServer
from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY, load_policy
from servers.launch import SCOPE_ENV_VAR

# How often a test's http.server checks whether it was told to stop: serve_forever's default
# (0.5 s) made every shutdown() wait up to half a second, a second per test with two servers.
SHUTDOWN_POLL_SECONDS = 0.02

# The shipped policy, its roots under a data folder no test writes to: relative paths resolve there.
DEFAULT_TEST_POLICY = load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": "/nonexistent/gatehouse-data"})

# One engine per MCP client, so pins (first-seen definitions) last as long as the servers do.
# Keyed by id() (clients need not be hashable), and each entry is dropped when its client is
# collected: otherwise a new client could get a collected one's id, and with it that client's
# engine and pins.
_ENGINES: dict[int, PolicyEngine] = {}


def context_for(mcp: McpClient, **limits: float) -> GraphContext:
    key = id(mcp)
    engine = _ENGINES.get(key)
    if engine is None:
        engine = _ENGINES[key] = PolicyEngine(DEFAULT_TEST_POLICY)
        weakref.finalize(mcp, _ENGINES.pop, key, None)
    return GraphContext(mcp=mcp, policy=engine, limits=Limits(**limits))  # type: ignore[arg-type]


def ask(graph: CompiledGraph, mcp: McpClient, text: str, **options: object) -> RunOutcome:
    return start_request(graph, context_for(mcp), text, **options)  # type: ignore[arg-type]


def wait_until(condition: Callable[[], bool], *, timeout: float, what: str) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` once ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


# One prefork process (servers/prefork.py) forks this test process's bundled demo servers,
# whatever data folder each test gives them: a fresh interpreter per server costs about a
# second of CPU importing the SDK, a fork a few milliseconds, and the suite starts hundreds.
# A name, not a folder: it only picks the prefork process's socket.
TEST_PREFORK_SCOPE = f"/gatehouse-tests/{os.getpid()}"


def bundled_server_entry(name: str, demo: Path) -> dict[str, object]:
    """A servers-file entry starting bundled server ``name`` on data folder ``demo`` with the
    shipped servers file's command (through servers.launch), from the tests' shared prefork
    process. Tests about stdio itself start ``python -m servers.NAME`` instead."""
    shipped = {entry.name: entry for entry in bundled_servers_config(demo).servers}[name]
    assert isinstance(shipped, StdioServer), f"bundled server {name} is not a stdio server"
    # The shipped entry's environment too: the public keys file a side-effecting server
    # verifies Gatehouse's grants with (gatehouse/approval_keys.py), in the data folder around ``demo``.
    env = {name: value.get_secret_value() for name, value in shipped.env.items()}
    return {
        "command": shipped.command,
        "args": shipped.args,
        "env": env | {SCOPE_ENV_VAR: TEST_PREFORK_SCOPE},
    }
