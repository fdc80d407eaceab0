"""Small test servers and process helpers shared by the MCP host tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, cast

from mcp import StdioServerParameters
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer

from mcp_host.transports import ServerTarget

REPO_ROOT = Path(__file__).resolve().parents[2]


def lowlevel(server: Server[Any]) -> ServerTarget:
    """The SDK's Client connects a lowlevel Server in-process exactly like an MCPServer, but
    ServerTarget does not name that type, so the tests cast once here."""
    return cast("ServerTarget", server)


def record_methods(server: Server[Any]) -> list[str]:
    """Append a middleware to `server` that logs the method of every request it receives."""
    methods: list[str] = []

    async def record(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        methods.append(ctx.method)
        return await call_next(ctx)

    server.middleware.append(record)
    return methods


def stdio_greeter(data_dir: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "servers.greeter", "--data-dir", str(data_dir)],
        cwd=str(REPO_ROOT),
    )


def exiting_server() -> StdioServerParameters:
    """A command that exits with status 3 before saying anything."""
    return StdioServerParameters(command=sys.executable, args=["-c", "import sys; sys.exit(3)"])


def silent_server() -> StdioServerParameters:
    """A command that reads its stdin until EOF and never answers the handshake."""
    return StdioServerParameters(command=sys.executable, args=["-c", "import sys; sys.stdin.read()"])


def echo_server(name: str) -> MCPServer:
    """A server named ``name`` with one tool, ``echo``: in process, or run over stdio by the
    test servers started as commands (once_server, wrapper_server)."""
    server = MCPServer(name)

    @server.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    return server


def child_processes() -> dict[int, str]:
    """Live children of this process as {pid: state}, read from /proc/*/stat (threads included:
    the ppid of a process started from any thread of this process is this process)."""
    me = os.getpid()
    children: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended while we looked
            continue
        # The command name (field 2) may contain spaces and parentheses: split after the last ")".
        fields = stat.rsplit(")", 1)[1].split()
        state, ppid = fields[0], int(fields[1])
        if ppid == me:
            children[int(entry.name)] = state
    return children
