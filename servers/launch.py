"""`python -m servers.launch NAME [ARGS...]`: run bundled server NAME (``servers/NAME.py``)
from the prefork process (servers/prefork.py) instead of a fresh interpreter.

To the host this is the server: it speaks MCP on this process's stdin and stdout (the forked
server holds the same pipes), its stderr is the server's log, and it exits with the server's
exit code. A terminate or interrupt signal is passed on to the server. Where no prefork
process can be used (not Linux, or it cannot be reached), the launcher says why on stderr and
becomes ``python -m servers.NAME`` itself: slower to start, otherwise the same.

Standard library only: this process's start-up is part of every server's start-up.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import time
from collections.abc import Sequence
from types import FrameType
from typing import BinaryIO, NoReturn

from servers.names import BUNDLED
from servers.prefork import PreforkError, StartRequest, read_message, socket_name

# How long to wait for the prefork process to accept and fork: it imports the SDK first
# (about half a second, several on a loaded machine).
START_SECONDS = 30.0
# A prefork process that hangs up before answering was exiting as we connected; more than a
# few in a row means it cannot start: the launcher then runs the server itself.
MAX_HANGUPS = 3
DATA_DIR_OPTION = "--data-dir"
DATA_ENV_VAR = "GATEHOUSE_DATA"
SCOPE_ENV_VAR = "GATEHOUSE_PREFORK_SCOPE"
# The claim to be the launcher that starts the prefork process (see _spawn_prefork).
_claim: list[socket.socket] = []


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in BUNDLED:
        print(
            f"usage: python -m servers.launch NAME [ARGS...]; NAME is one of: {', '.join(BUNDLED)}",
            file=sys.stderr,
        )
        return 2
    server, server_args = args[0], args[1:]
    if sys.platform != "linux":
        _become_server(server, server_args, "the prefork process needs Linux (abstract sockets)")
    request = StartRequest(server=server, args=server_args, env=dict(os.environ), cwd=os.getcwd())  # noqa: PTH109 - pathlib would slow every start
    try:
        conn, replies, pid = _start(request, socket_name(_scope(server_args)))
    except (PreforkError, OSError) as exc:
        _become_server(server, server_args, str(exc))
    _forward_signals(pid)
    # The server holds its own copies of the pipes; ours would keep them open after it exits.
    for fd in (0, 1):
        os.close(fd)
    try:
        with conn, replies:
            message = read_message(replies)
    except (OSError, ValueError) as exc:
        print(f"servers.launch: lost the prefork process ({exc})", file=sys.stderr)
        return 1
    if message is None or "exit" not in message:
        print(f"servers.launch: the prefork process ended before {server} did", file=sys.stderr)
        return 1
    return int(message["exit"])


def _scope(server_args: Sequence[str]) -> str:
    """Which prefork process serves this start: ``GATEHOUSE_PREFORK_SCOPE`` when set (a name
    several Gatehouses on one machine share, as the test suite's many data folders do), else
    the data folder the server is started for: one prefork process per Gatehouse. The data
    folder itself always travels with the request, so sharing changes only who forks."""
    shared = os.environ.get(SCOPE_ENV_VAR)
    if shared:
        return shared
    for index, arg in enumerate(server_args):
        if arg == DATA_DIR_OPTION and index + 1 < len(server_args):
            return server_args[index + 1]
        if arg.startswith(DATA_DIR_OPTION + "="):
            return arg.split("=", 1)[1]
    return os.environ.get(DATA_ENV_VAR) or os.getcwd()  # noqa: PTH109


def _start(request: StartRequest, name: str) -> tuple[socket.socket, BinaryIO, int]:
    """Hand the request and this process's stdin, stdout and stderr to the prefork process,
    starting one if none listens; return the connection, its reader (the server's exit code
    comes on it later; one reader, so nothing read ahead is lost) and the server's pid."""
    deadline = time.monotonic() + START_SECONDS
    spawned = False
    hangups = 0
    while True:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(name)
        except (ConnectionRefusedError, FileNotFoundError):
            conn.close()
            if not spawned:
                _spawn_prefork(name)
                spawned = True
            if time.monotonic() > deadline:
                raise PreforkError(f"no prefork process listened within {START_SECONDS:.0f} s") from None
            time.sleep(0.005)
            continue
        replies = conn.makefile("rb")
        try:
            conn.settimeout(max(deadline - time.monotonic(), 0.1))
            socket.send_fds(conn, [request.to_bytes()], [0, 1, 2])
            reply = read_message(replies)
        except (OSError, ValueError) as exc:
            replies.close()
            conn.close()
            raise PreforkError(f"the prefork process did not answer: {exc}") from None
        if reply is None or "pid" not in reply:
            replies.close()
            conn.close()
            hangups += reply is None
            if reply is None and hangups < MAX_HANGUPS and time.monotonic() < deadline:
                # It was exiting (idle) as we connected: start another.
                spawned = False
                continue
            if reply is None:
                raise PreforkError(f"the prefork process hung up {hangups} times before starting the server")
            raise PreforkError(f"the prefork process refused: {reply.get('error', reply)}")
        conn.settimeout(None)
        _release_claim()
        return conn, replies, int(reply["pid"])


def _spawn_prefork(name: str) -> None:
    """Start a prefork process, unless another launcher is starting one right now: servers
    started together would otherwise each start an interpreter only to find the name taken.
    The claim is a second abstract name, held until the prefork process answers (a launcher
    that dies mid-start releases it with its sockets); the others keep trying to connect."""
    _release_claim()  # ours from an earlier try, if the process it started has gone since
    claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        claim.bind(name + "-starting")
    except OSError:
        claim.close()
        return
    _claim.append(claim)
    import subprocess  # only the launcher that starts the prefork process pays for it

    # Its own session, no inherited streams, working directory "/": it outlives this process
    # and must not hold the host's pipes or a folder a test wants to delete.
    subprocess.Popen(
        [sys.executable, "-m", "servers.prefork", "--name", name.lstrip("\0")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd="/",
        start_new_session=True,
    )


def _release_claim() -> None:
    while _claim:
        _claim.pop().close()


def _forward_signals(pid: int) -> None:
    def forward(signum: int, _frame: FrameType | None) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)


def _become_server(server: str, server_args: Sequence[str], reason: str) -> NoReturn:
    print(f"servers.launch: {reason}; starting servers.{server} in this process", file=sys.stderr, flush=True)
    os.execv(sys.executable, [sys.executable, "-m", f"servers.{server}", *server_args])


if __name__ == "__main__":
    sys.exit(main())
