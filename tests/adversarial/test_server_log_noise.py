"""What the MCP SDK logs about a misbehaving server goes to that server's log, not the terminal.

A stdio server that prints lines that are not JSON-RPC on its stdout makes the SDK log an
exception with a traceback for each. The operator's terminal shows none of it: the records
go to ``logs/servers/<name>.log`` (beside the server's own stderr), and a call that fails
because of the server shows as the answer's one error line.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import StdioServerParameters

from mcp_host.sdk_client import SdkMcpClient
from tests.adversarial.garbage_stdout_server import BANNER, GARBAGE_LINES, WEATHER
from tests.adversarial.harness import REPO


def _gatehouse(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as the operator runs it: its own process, so its stderr is a real terminal's."""
    servers = tmp_path / "servers.json"
    entry = {
        "command": sys.executable,
        "args": ["-m", "tests.adversarial.garbage_stdout_server"],
        "cwd": str(REPO),
    }
    servers.write_text(json.dumps({"mcpServers": {"weather": entry}}), encoding="utf-8")
    env = {**os.environ, "GATEHOUSE_DATA": str(tmp_path / "data")}
    env.pop("GATEHOUSE_DB", None)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "gatehouse.cli",
            *args,
            "--servers",
            str(servers),
            "--db",
            str(tmp_path / "g.db"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=False,
    )


@pytest.mark.processes
def test_garbage_on_a_servers_stdout_prints_nothing_on_the_operators_terminal(tmp_path: Path) -> None:
    done = _gatehouse(tmp_path, "ask", "Read today's weather")

    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.startswith("status:     ok")
    assert WEATHER in done.stdout
    log = (tmp_path / "data" / "logs" / "servers" / "weather.log").read_text(encoding="utf-8")
    assert "Failed to parse JSONRPC message from server" in log
    assert "Traceback" in log
    assert BANNER in log and GARBAGE_LINES[0] in log


@pytest.mark.processes
def test_a_call_the_garbage_broke_shows_one_error_line_and_no_traceback(tmp_path: Path) -> None:
    done = _gatehouse(tmp_path, "ask", "Read the forecast for tomorrow")

    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "Traceback" not in done.stdout
    errors = [line for line in done.stdout.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, done.stdout


class _Collected(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.mark.processes
def test_sdk_records_about_a_server_reach_its_log_file_and_not_the_root_loggers_handlers(
    tmp_path: Path,
) -> None:
    # Where the CLI's terminal handler sits. (pytest's caplog also attaches itself to
    # non-propagating loggers, so it cannot show what the root logger's handlers receive.)
    root = logging.getLogger()
    collected = _Collected()
    root.addHandler(collected)
    garbage = StdioServerParameters(
        command=sys.executable, args=["-m", "tests.adversarial.garbage_stdout_server"], cwd=str(REPO)
    )
    try:
        with SdkMcpClient({"weather": garbage}, log_dir=tmp_path) as client:
            result = client.call_tool("weather", "read_weather", {})
    finally:
        root.removeHandler(collected)

    assert result.success and result.content[0].text == WEATHER
    assert [r.getMessage() for r in collected.records if r.name.startswith("mcp")] == []
    # The banner before the handshake and the two lines before the answer.
    assert (tmp_path / "weather.log").read_text(encoding="utf-8").count(
        "Failed to parse JSONRPC message"
    ) == 3


def test_sdk_records_outside_any_server_still_reach_the_root_loggers_handlers() -> None:
    root = logging.getLogger()
    collected = _Collected()
    root.addHandler(collected)
    try:
        with SdkMcpClient({}, log_dir=Path("unused")):
            logging.getLogger("mcp.client.session").warning("not about any one server")
    finally:
        root.removeHandler(collected)

    assert [r.getMessage() for r in collected.records] == ["not about any one server"]
