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
import threading
from contextvars import ContextVar
from pathlib import Path

# The SDK's logger, and the host's own stdio transport (which reads what the SDK's would).
_ROUTED_LOGGERS = ("mcp", "mcp_host.stdio_transport")
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

_server_log: ContextVar[Path | None] = ContextVar("gatehouse_server_log", default=None)
_installing = threading.Lock()


def server_log_path(log_dir: Path | None, name: str) -> Path | None:
    """Where one server's stderr and the SDK's records about it go (None: nowhere of its own)."""
    return log_dir / f"{name}.log" if log_dir is not None else None


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
