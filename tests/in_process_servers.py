"""The bundled demo servers served in this process: the same servers (their MCPServer objects
from servers/*.py, on the data folder their entry names), reached through the host's real
client and pool, with the stdio pipes and the process start left out.

A test whose subject is not the stdio transport or a server process's life (the graph, the
review ledger, the CLI's commands, the policy) uses the ``bundled_in_process`` fixture
(tests/conftest.py): every servers-file entry that starts a bundled server as the shipped
servers file does (``python -m servers.launch NAME --data-dir DIR``, tests/support.py
bundled_server_entry) is then served by ``servers.NAME.build_server(DIR)`` in-process. The
entry itself is unchanged, so what the host reads from it (its roots, the folders it is
started on, its timeout) is as before. Entries for any other command keep their process,
``python -m servers.NAME`` included: the tests about stdio, restarts, crashes and what a
process leaves behind start that, and stay marked ``processes``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters
from mcp.server.mcpserver import MCPServer

from mcp_host import sdk_client
from mcp_host.config import StdioServer
from mcp_host.transports import ServerTarget, client_target
from servers.catalog import BUNDLED_SERVERS

_LAUNCHER = "servers.launch"
_DATA_DIR_OPTION = "--data-dir"


def bundled_server_of(args: Sequence[str]) -> tuple[str, Path] | None:
    """The bundled server and data folder a command line starts, or None when it starts
    anything else (or names no data folder: where the server would look then depends on its
    process's environment, so that entry keeps its process)."""
    if list(args[:2]) != ["-m", _LAUNCHER] or len(args) != 5:
        return None
    name, option, folder = args[2:]
    if name not in BUNDLED_SERVERS or option != _DATA_DIR_OPTION:
        return None
    return name, Path(folder)


def in_process_server(target: ServerTarget) -> MCPServer | None:
    """The in-process twin of a stdio target that starts a bundled server, else None."""
    if isinstance(target, StdioServer | StdioServerParameters):
        started = bundled_server_of(target.args)
        if started is not None:
            name, data_dir = started
            return BUNDLED_SERVERS[name](data_dir)
    return None


def serve_bundled_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, every pool in this process serves bundled-server entries in-process. Each
    (re)connection builds the server afresh, as a restarted process would start afresh: the
    servers keep their state in their data folder."""
    # The pool looks client_target up in its own module (mcp_host/sdk_client.py) for every
    # (re)connection: that name is the one to replace.
    real: Callable[..., Any] = client_target

    def in_process_or_real(name: str, target: ServerTarget, *args: Any, **options: Any) -> Any:
        server = in_process_server(target)
        return server if server is not None else real(name, target, *args, **options)

    monkeypatch.setattr(sdk_client, "client_target", in_process_or_real)
