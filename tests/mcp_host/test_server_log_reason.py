"""Why a server failed, read from its log (issue 32, item 6): the error line of its last run (a
Python exception, an ``error:`` line), never an older run's, and never a line its last error
already quotes."""

from __future__ import annotations

from pathlib import Path

from mcp_host.errors import ErrorInfo
from mcp_host.health import ServerHealth
from mcp_host.server_logs import start_line

KILLED = ErrorInfo(kind="unavailable", message="the server's process was killed (SIGKILL)")
TRACEBACK = (
    "Traceback (most recent call last):\n  File \"srv.py\", line 3, in <module>\nKeyError: 'API_URL'\n"
)


def _health(log: Path, error: ErrorInfo = KILLED) -> ServerHealth:
    return ServerHealth(name="srv", log=str(log), error=error)


def test_the_reason_is_the_error_line_the_last_run_wrote(tmp_path: Path) -> None:
    log = tmp_path / "srv.log"
    log.write_text(start_line(["python", "srv.py"]) + TRACEBACK + "shutting down\n", encoding="utf-8")

    assert _health(log).reason_in_log() == "KeyError: 'API_URL'"


def test_an_older_runs_failure_is_not_the_reason_of_the_last_one(tmp_path: Path) -> None:
    log = tmp_path / "srv.log"
    older = start_line(["python", "srv.py"]) + TRACEBACK
    log.write_text(older + start_line(["python", "srv.py"]) + "INFO serving on stdio\n", encoding="utf-8")

    assert _health(log).reason_in_log() is None


def test_a_reason_the_last_error_quotes_already_is_not_repeated(tmp_path: Path) -> None:
    log = tmp_path / "srv.log"
    log.write_text(start_line(["python", "srv.py"]) + TRACEBACK, encoding="utf-8")
    exited = ErrorInfo(
        kind="unavailable", message="the server's process exited with status 1: KeyError: 'API_URL'"
    )

    assert _health(log, exited).reason_in_log() is None


def test_a_working_server_has_no_reason(tmp_path: Path) -> None:
    log = tmp_path / "srv.log"
    log.write_text(start_line(["python", "srv.py"]) + TRACEBACK, encoding="utf-8")

    assert ServerHealth(name="srv", log=str(log), connected=True, listing="ok").reason_in_log() is None


def test_the_start_line_hides_a_token_in_the_command(tmp_path: Path) -> None:
    line = start_line(["npx", "some-server", "--token", "s3cr3t-value"])

    assert "s3cr3t-value" not in line and "npx some-server --token" in line
