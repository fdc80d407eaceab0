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
process leaves behind start that, and stay marked ``processes``.

The stdio test servers defined in tests/ (TEST_SERVERS) are served the same way by
``serve_test_servers_in_process``: an entry ``python -m MODULE ARGS...`` for one of them is
served by the server that module builds from ARGS, with what its process would have read from
its environment (where an adversarial server records its effects) passed as a parameter."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters
from mcp.server import Server
from mcp.server.mcpserver import MCPServer

from mcp_host import sdk_client
from mcp_host.config import StdioServer
from mcp_host.transports import ServerTarget
from servers.catalog import BUNDLED_SERVERS
from tests import drifting_files_server, questions_server
from tests.adversarial import (
    echo_server,
    error_result_server,
    harmless_names,
    hidden_names_server,
    jsonrpc_error_server,
    spelled_names,
)
from tests.adversarial.effects import ENV as EFFECTS_ENV
from tests.mcp_host import partial_server

InProcessServer = MCPServer | Server[Any]
# A test server's twin: built from its command line's arguments after ``-m MODULE`` and the
# environment its entry gives it; None where only a process of its own serves that command line.
TestServerBuilder = Callable[[Sequence[str], Mapping[str, str]], InProcessServer | None]

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


def _effects(env: Mapping[str, str]) -> Path | None:
    return Path(env[EFFECTS_ENV]) if env.get(EFFECTS_ENV) else None


TEST_SERVERS: dict[str, TestServerBuilder] = {
    # Stateless servers their modules build once, at import: each connection serves the same one.
    "tests.adversarial.echo_server": lambda argv, env: echo_server.server,
    "tests.adversarial.error_result_server": lambda argv, env: error_result_server.server,
    "tests.adversarial.jsonrpc_error_server": lambda argv, env: jsonrpc_error_server.server,
    "tests.adversarial.harmless_names": lambda argv, env: harmless_names.build_server(_effects(env)),
    "tests.adversarial.hidden_names_server": lambda argv, env: hidden_names_server.build_server(),
    "tests.adversarial.spelled_names": lambda argv, env: spelled_names.from_argv(list(argv), _effects(env)),
    "tests.mcp_host.partial_server": lambda argv, env: partial_server.from_argv(argv),
    "tests.questions_server": lambda argv, env: questions_server.from_argv(argv),
    "tests.drifting_files_server": lambda argv, env: drifting_files_server.from_argv(argv),
}


def _environment(target: StdioServer | StdioServerParameters) -> dict[str, str]:
    if isinstance(target, StdioServer):
        return {key: value.get_secret_value() for key, value in target.env.items()}
    return dict(target.env or {})


def in_process_test_server(target: ServerTarget) -> InProcessServer | None:
    """The in-process twin of a stdio target that runs a test server of TEST_SERVERS, else None."""
    if not isinstance(target, StdioServer | StdioServerParameters):
        return None
    args = list(target.args)
    if len(args) < 2 or args[0] != "-m" or args[1] not in TEST_SERVERS:
        return None
    return TEST_SERVERS[args[1]](args[2:], _environment(target))


def _serve(monkeypatch: pytest.MonkeyPatch, twin: Callable[[ServerTarget], InProcessServer | None]) -> None:
    """From now on, every pool in this process serves the entries ``twin`` has a twin for
    in-process; others go to the transport in place before (so the two kinds combine). Each
    (re)connection builds the server afresh, as a restarted process would start afresh."""
    # The pool looks client_target up in its own module (mcp_host/sdk_client.py) for every
    # (re)connection: that name is the one to replace.
    # What stands there now (the transports' client_target, or another twin's patch).
    real: Callable[..., Any] = vars(sdk_client)["client_target"]

    def in_process_or_real(name: str, target: ServerTarget, *args: Any, **options: Any) -> Any:
        server = twin(target)
        return server if server is not None else real(name, target, *args, **options)

    monkeypatch.setattr(sdk_client, "client_target", in_process_or_real)


def serve_bundled_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, every pool in this process serves bundled-server entries in-process: the
    servers keep their state in their data folder."""
    _serve(monkeypatch, in_process_server)


def serve_test_servers_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, every pool in this process serves entries for the test servers of
    TEST_SERVERS in-process."""
    _serve(monkeypatch, in_process_test_server)
