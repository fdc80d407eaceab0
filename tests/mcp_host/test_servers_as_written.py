"""A team's servers file as written for other hosts, read and started for real (issue 30's
first hour): a relative command is taken from the file's folder (or the entry's cwd), a bare
name from the PATH; a program that cannot be started says which folder or PATH it was looked
for in and what to write instead; a program that is not an MCP server (``/bin/cat``, one that
prints its usage) says so, naming the program, what it wrote on stdout and its stderr's last
line, instead of reading as an MCP server with a missing method."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_host.config import StdioServer, load_servers_config
from mcp_host.health import ServerHealth
from mcp_host.sdk_client import SdkMcpClient
from mcp_host.server_logs import own_lines, start_line
from tests.mcp_host.helpers import REPO_ROOT

# Starts processes of its own (servers over stdio): not in `make quick`.
pytestmark = pytest.mark.processes

# A server that works, started from a script beside the servers file.
_LAUNCHER = f"#!/bin/sh\ncd {REPO_ROOT} && exec {sys.executable} -m tests.mcp_host.partial_server\n"


def _servers_file(folder: Path, entries: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "team.mcp.json"
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    return path


def _script(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _healths(path: Path, tmp_path: Path, connect_timeout: float = 20) -> dict[str, ServerHealth]:
    config = load_servers_config(path, environ={})
    targets = {entry.name: entry for entry in config.servers}
    with SdkMcpClient(
        targets, connect_timeout=connect_timeout, max_restarts=0, log_dir=tmp_path / "logs"
    ) as pool:
        pool.discover()
        return {health.name: health for health in pool.health()}


def test_a_relative_command_is_taken_from_the_servers_files_folder_not_gatehouses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    team = tmp_path / "team"
    _script(team / "bin" / "glossary", _LAUNCHER)
    path = _servers_file(
        team, {"glossary": {"command": "bin/glossary"}, "dot": {"command": "./bin/glossary"}}
    )
    monkeypatch.chdir(tmp_path)  # Gatehouse runs elsewhere

    healths = _healths(path, tmp_path)

    assert healths["glossary"].connected, healths["glossary"].last_error
    assert healths["dot"].connected, healths["dot"].last_error


def test_a_relative_command_is_taken_from_the_entrys_cwd_when_it_names_one(tmp_path: Path) -> None:
    team = tmp_path / "team"
    path = _servers_file(
        team, {"glossary": {"command": "bin/glossary", "cwd": "tools"}, "npx": {"command": "npx"}}
    )

    config = load_servers_config(path, environ={})

    glossary, npx = config.servers
    assert isinstance(glossary, StdioServer) and isinstance(npx, StdioServer)
    assert glossary.command == str((team / "tools").resolve() / "bin" / "glossary")
    # A bare name stays a name, looked up on the PATH when the server starts.
    assert (npx.command, npx.command_from) == ("npx", None)


def test_a_missing_relative_command_says_which_folder_it_was_taken_from_and_what_to_write(
    tmp_path: Path,
) -> None:
    team = tmp_path / "team"
    path = _servers_file(team, {"shell": {"command": "venv/bin/mcp-shell-server"}})

    [health] = _healths(path, tmp_path).values()

    assert health.last_error == (
        f"cannot start {team.resolve()}/venv/bin/mcp-shell-server: no such file (its relative path was"
        f" taken from the servers file's folder, {team.resolve()}): give an absolute path, or set the"
        " entry's cwd to the folder the path is relative to"
    )
    assert health.error is not None and not health.error.sent


def test_a_bare_name_not_on_the_path_says_so_and_names_the_path(tmp_path: Path) -> None:
    path = _servers_file(
        tmp_path, {"ghost": {"command": "no-such-mcp-server-3f9a", "env": {"PATH": "/nowhere"}}}
    )

    [health] = _healths(path, tmp_path).values()

    assert health.last_error == (
        "cannot start no-such-mcp-server-3f9a: no program of that name on the PATH the server gets"
        " (/nowhere): give its absolute path, or install it in a folder on that PATH"
    )


def test_a_relative_argument_of_a_server_that_ends_at_once_is_said_to_be_taken_from_where_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    team = tmp_path / "team"
    _script(team / "build" / "index.py", "raise SystemExit('never reached from elsewhere')\n")
    path = _servers_file(team, {"node": {"command": sys.executable, "args": ["build/index.py"]}})
    monkeypatch.chdir(tmp_path)

    [health] = _healths(path, tmp_path).values()

    message = health.last_error or ""
    assert message.startswith(f"{sys.executable} did not answer as an MCP server: it ended before answering")
    assert "exited with status 2" in message and "can't open file" in message
    assert message.endswith(
        f"a relative path among its arguments (build/index.py) is taken from the folder Gatehouse runs in,"
        f" {tmp_path}, as the entry sets no cwd: give absolute paths, or set the entry's cwd (relative to"
        " the servers file)"
    )


def test_cat_is_told_as_a_program_that_did_not_answer_as_an_mcp_server(tmp_path: Path) -> None:
    path = _servers_file(tmp_path, {"echo": {"command": "/bin/cat"}})

    [health] = _healths(path, tmp_path).values()

    assert health.verdict == "failed" and health.error is not None
    assert health.last_error == (
        "/bin/cat did not answer as an MCP server: it answered initialize, which every MCP server"
        " serves, with 'Method not found' (JSON-RPC error -32601): a program that echoes its input"
        " answers so"
    )


def test_a_program_that_prints_its_usage_and_exits_is_told_with_what_it_printed_and_its_stderr(
    tmp_path: Path,
) -> None:
    usage = _script(
        tmp_path / "usage.sh", "#!/bin/sh\necho 'usage: tool FILE'\necho 'error: no FILE given' >&2\nexit 0\n"
    )
    path = _servers_file(tmp_path, {"tool": {"command": str(usage)}})

    [health] = _healths(path, tmp_path).values()

    assert health.last_error == (
        f"{usage} did not answer as an MCP server: it ended before answering initialize (the server's"
        " process exited with status 0); it wrote 'usage: tool FILE' on stdout, which is not JSON-RPC;"
        " its stderr's last line: error: no FILE given"
    )
    # The host's record of the line it could not parse is not the server's reason.
    assert health.reason_in_log() is None


def test_a_program_that_prints_and_waits_is_told_as_no_answer_to_initialize(tmp_path: Path) -> None:
    banner = _script(tmp_path / "banner.sh", "#!/bin/sh\necho 'Listening on port 8080'\nexec sleep 30\n")
    path = _servers_file(tmp_path, {"web": {"command": str(banner)}})

    [health] = _healths(path, tmp_path, connect_timeout=2).values()

    assert health.last_error == (
        f"{banner} did not answer as an MCP server: no answer to initialize within 2 s; it wrote"
        " 'Listening on port 8080' on stdout, which is not JSON-RPC"
    )


def test_the_servers_own_lines_leave_out_the_hosts_records_and_their_tracebacks() -> None:
    log = (
        start_line(["srv"])
        + "starting\n"
        + "2026-01-02 03:04:05,678 ERROR mcp_host.stdio_transport: Failed to parse JSONRPC message from server\n"
        + 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n'
        + "pydantic_core.ValidationError: 1 validation error\n  Invalid JSON [type=json_invalid]\n"
        + "    For further information visit https://errors.pydantic.dev\n"
        + "2026-01-02 03:04:05,679 WARNING mcp.client.session: something\n"
        + "error: the server's own last word\n"
    )

    assert own_lines(log)[1:] == ["starting", "error: the server's own last word"]
