"""What the MCP SDK logs about one server goes to that server's log, not the host's terminal.

A misbehaving server makes the SDK log: every line on a stdio server's stdout that is not
JSON-RPC is logged as an exception with a traceback, and a remote server's bad responses
likewise. That is the server's noise, so it belongs beside the server's own stderr in
``<log dir>/<name>.log``; the operator hears about it only when a call fails, as that call's
error. Each pool task that talks to a server (the session's keeper and the tasks it starts,
each call, each listing) names that server's log in a context variable; a handler on the SDK's
``mcp`` logger writes records logged under that name to the file and passes every other
record on to the root logger's handlers, as if nothing were in between.
"""

from __future__ import annotations

import logging
import os
import re
import shlex
import threading
from collections.abc import Sequence
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path

from policies.secrets import DEFAULT_REDACTOR

# The SDK's logger, and the host's own stdio transport (which reads what the SDK's would).
_ROUTED_LOGGERS = ("mcp", "mcp_host.stdio_transport")
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

# How much of the end of a server's log is read for the line that says why it failed.
LOG_TAIL_BYTES = 8192
# The line a failing program writes to say why: an exception's last line (Python's
# "ModuleNotFoundError: No module named 'x'", Node's "Error: Cannot find module 'x'"), an
# "error:" line (argparse's "prog: error: ...", uv's, npm's "npm ERR! ..."), Go's "panic: ...".
_FAILURE_LINE = re.compile(
    r"^(?:[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure)\b|error\b|fatal\b|panic:|npm ERR!)"
    r"|: error: ",
    re.IGNORECASE,
)
# Longer lines are cut: a reason is one line on a page.
_REASON_CHARS = 500
# The host's line before each start of a stdio server's process: a person reading the log sees
# where each run begins, and the reason for a failure is read from the last run's lines only.
START_MARK = "---- gatehouse starts the server:"
# The first line of a record the host writes to a server's log (_FORMAT, with logging's time).
_LOGGER_NAMES = "|".join(re.escape(name) for name in _ROUTED_LOGGERS)
_HOST_RECORD = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ (?:" + _LOGGER_NAMES + r")(?:\.[\w.]+)?: "
)

_server_log: ContextVar[Path | None] = ContextVar("gatehouse_server_log", default=None)
_installing = threading.Lock()


def server_log_path(log_dir: Path | None, name: str) -> Path | None:
    """Where one server's stderr and the SDK's records about it go (None: nowhere of its own)."""
    return log_dir / f"{name}.log" if log_dir is not None else None


def start_line(argv: Sequence[str]) -> str:
    """The line written to a server's log before its process starts (secrets hidden)."""
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"{START_MARK} {when}: {shlex.join(DEFAULT_REDACTOR.argv(argv))}\n"


def useful_line(text: str, *, errors_only: bool = False, own_only: bool = False) -> str | None:
    """The line of a server's output that says why it failed: the last that reads like an
    error (an exception's last line, an ``error:`` line), else the last line (None with
    ``errors_only``); None for no output. A traceback ends with its exception, Node's ends
    with its version: the error line is the one a person needs, wherever it sits. With
    ``own_only``, only the process's own lines (its stderr) count, not the host's records
    about it (own_lines)."""
    written = own_lines(text) if own_only else text.splitlines()
    lines = [line.strip() for line in written if line.strip()]
    found = next((line for line in reversed(lines) if _FAILURE_LINE.search(line)), None)
    if found is None and not errors_only and lines:
        found = lines[-1]
    return found[:_REASON_CHARS] if found is not None else None


def own_lines(text: str) -> list[str]:
    """The lines of a log the server's process wrote, without the host's records about it
    (_FORMAT's lines and the traceback each may carry: the SDK logs a line on stdout that is
    not JSON-RPC with the parse error's traceback, whose last line reads like the server's
    error and is not)."""
    kept: list[str] = []
    # "record": after a record's first line; "traceback": in its traceback; "raised": after
    # the traceback's exception line, whose indented continuation lines are the record's too.
    state: str | None = None
    for line in text.splitlines():
        if _HOST_RECORD.match(line):
            state = "record"
        elif state == "record" and line.startswith("Traceback ("):
            state = "traceback"
        elif state == "traceback" and not line[:1].isspace():
            state = "raised"
        elif state in ("traceback", "raised") and line[:1].isspace():
            pass
        else:
            state = None
            kept.append(line)
    return kept


def log_reason(
    path: Path, start: int = 0, *, errors_only: bool = False, own_only: bool = False
) -> str | None:
    """The useful line (see useful_line) of the end of a server's log, from byte ``start`` on
    (where a process's own lines begin) and after the last start of its process (START_MARK);
    None when the log is missing, unreadable or says nothing that fits."""
    try:
        with path.open("rb") as written:  # the host may hold it open for appending
            size = os.fstat(written.fileno()).st_size
            written.seek(max(start, size - LOG_TAIL_BYTES))
            tail = written.read().decode("utf-8", "replace")
    except OSError:
        return None
    started = tail.rfind(START_MARK)
    if started != -1:
        # An older run's failure is not this one's reason.
        tail = tail[started:].partition("\n")[2]
    return useful_line(tail, errors_only=errors_only, own_only=own_only)


def log_to(path: Path | None) -> None:
    """SDK records logged from now on in this task (and the tasks it starts) go to ``path``."""
    _server_log.set(path)


class _ServerLogRouter(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter(_FORMAT))

    def emit(self, record: logging.LogRecord) -> None:
        path = _server_log.get()
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                with path.open("a", encoding="utf-8") as log:
                    log.write(self.format(record) + "\n")
                return
            except OSError:
                pass  # an unwritable log must not lose the record: it goes where it went before
        logging.getLogger().handle(record)


def route_sdk_logs() -> None:
    """Install the router on the SDK's logger (and the host's stdio transport's), once per process."""
    with _installing:
        for name in _ROUTED_LOGGERS:
            routed = logging.getLogger(name)
            if any(isinstance(handler, _ServerLogRouter) for handler in routed.handlers):
                continue
            routed.addHandler(_ServerLogRouter())
            # The router decides where each record goes, including on to the root logger.
            routed.propagate = False
