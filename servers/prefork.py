"""One warm interpreter that starts the bundled servers by forking.

Every bundled server is a Python process that spends about half a second of CPU importing the
MCP SDK and pydantic before it can answer, so starting six of them on a two-core machine takes
several times as long as starting one. The prefork process pays that import once: it listens
on an abstract Unix socket, and `python -m servers.launch NAME` (the command in
servers/bundled.mcp.json) hands it its stdin, stdout and stderr, its arguments, environment
and working directory; the prefork process forks, and the child runs ``servers.NAME`` on those
streams exactly as ``python -m servers.NAME`` would. Server modules are imported after the
fork, so an edited server is never served stale.

One prefork process serves one Gatehouse data folder with one interpreter (the socket name is
derived from both), accepts only connections from its own user (SO_PEERCRED), forks only the
bundled servers, and exits a few seconds after its last server has exited. It is started by
whichever launcher finds none; when several start one at once, the first to bind the name
serves and the others exit before importing anything.

This module imports only the light part of the standard library at the top (no pathlib, no
dataclasses: each costs milliseconds of every server's start): the launcher uses its protocol
helpers, and the prefork process must bind its name before the expensive imports.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import select
import signal
import socket
import struct
import sys
import time
from collections.abc import Sequence
from typing import Any

from mcp_host.reported import ServerError

# The servers a prefork process starts: servers/<name>.py, nothing else.
from servers.names import BUNDLED

# A prefork process with no server left waits this long for another before it exits: long
# enough for the pool to restart a server that died, short enough not to linger after a run.
IDLE_SECONDS = 5.0
# A launcher's request must arrive within this; one stuck client cannot hold up the others.
REQUEST_SECONDS = 2.0
# The modules that make a server's start slow; imported once, before any fork.
WARM_MODULES = ("pydantic", "anyio", "mcp.types", "mcp.server.mcpserver", "mcp.server.stdio")
_LENGTH = struct.Struct("!I")
_MAX_REQUEST_BYTES = 4 * 1024 * 1024


class PreforkError(ServerError):
    """The prefork process could not be reached or refused a request."""


class StartRequest:
    """What a launcher asks for: run servers.<server> with these arguments, environment and
    working directory (its stdin, stdout and stderr travel beside it as descriptors)."""

    def __init__(self, server: str, args: list[str], env: dict[str, str], cwd: str) -> None:
        self.server = server
        self.args = args
        self.env = env
        self.cwd = cwd

    def to_bytes(self) -> bytes:
        payload = json.dumps(
            {"server": self.server, "args": self.args, "env": self.env, "cwd": self.cwd}
        ).encode()
        return _LENGTH.pack(len(payload)) + payload

    @classmethod
    def from_json(cls, payload: bytes) -> StartRequest:
        try:
            data = json.loads(payload)
        except ValueError as exc:
            raise PreforkError(f"the request is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise PreforkError("the request is not a JSON object")
        server, args, env, cwd = (data.get(k) for k in ("server", "args", "env", "cwd"))
        if server not in BUNDLED:
            raise PreforkError(f"unknown server {server!r}; bundled: {', '.join(BUNDLED)}")
        if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
            raise PreforkError("args must be a list of strings")
        if not (
            isinstance(env, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
        ):
            raise PreforkError("env must map strings to strings")
        if not isinstance(cwd, str):
            raise PreforkError("cwd must be a string")
        return cls(server=str(server), args=list(args), env=dict(env), cwd=cwd)


def socket_name(scope: str) -> str:
    """The abstract socket of the prefork process for this data folder (``scope``), this
    interpreter, this user and this install of the SDK (a reinstall gets a new process)."""
    spec = importlib.util.find_spec("mcp")
    origin = spec.origin if spec is not None and spec.origin else ""
    sdk_stamp = str(os.stat(origin).st_mtime_ns) if origin else ""  # noqa: PTH116 - see module doc
    interpreter = os.path.realpath(sys.executable)
    identity = "\n".join((interpreter, origin, sdk_stamp, os.path.realpath(scope)))
    digest = hashlib.sha256(identity.encode()).hexdigest()[:24]
    return f"\0gatehouse-prefork-{os.getuid()}-{digest}"


def send_message(conn: socket.socket, message: dict[str, Any]) -> None:
    conn.sendall(json.dumps(message).encode() + b"\n")


def read_message(stream: Any) -> dict[str, Any] | None:
    """The next line from the prefork process as a dict, or None when it hung up."""
    line = stream.readline()
    if not line:
        return None
    message = json.loads(line)
    if not isinstance(message, dict):
        raise PreforkError(f"unexpected reply {line!r}")
    return message


# -- the prefork process -------------------------------------------------------------------


def serve(name: str, idle_seconds: float = IDLE_SECONDS) -> int:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(name)
    except OSError:
        return 0  # another prefork process serves this name
    listener.listen(64)
    # Launchers may connect from here on; their connections wait in the backlog while this
    # pays, once, the import every server would otherwise pay.
    for module in WARM_MODULES:
        __import__(module)
    Prefork(listener, idle_seconds).run()
    return 0


class Prefork:
    """The accept/fork/reap loop. Single-threaded on purpose: forking a process that runs
    other threads copies locks in whatever state those threads left them."""

    def __init__(self, listener: socket.socket, idle_seconds: float) -> None:
        self._listener = listener
        self._idle_seconds = idle_seconds
        self._children: dict[int, socket.socket] = {}
        self._idle_since = time.monotonic()
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)

    def run(self) -> None:
        signal.set_wakeup_fd(self._wake_write)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # only to wake select via the pipe
        try:
            while True:
                self._reap()
                timeout: float | None = None
                if not self._children:
                    timeout = self._idle_since + self._idle_seconds - time.monotonic()
                    if timeout <= 0:
                        return
                listening = self._listener.fileno()
                ready, _, _ = select.select([listening, self._wake_read], [], [], timeout)
                if self._wake_read in ready:
                    with contextlib.suppress(BlockingIOError):
                        os.read(self._wake_read, 4096)
                if listening in ready:
                    self._accept()
        finally:
            self._listener.close()

    def _accept(self) -> None:
        conn, _ = self._listener.accept()
        try:
            fds, request = self._read_request(conn)
        except (PreforkError, OSError) as exc:
            with contextlib.suppress(OSError):
                send_message(conn, {"error": str(exc)})
            conn.close()
            return
        try:
            pid = os.fork()
            if pid == 0:
                _run_child(request, fds)  # never returns
        except OSError as exc:  # out of processes or memory: this request fails, not the others
            with contextlib.suppress(OSError):
                send_message(conn, {"error": f"cannot fork: {exc}"})
            conn.close()
            return
        finally:
            for fd in fds:
                os.close(fd)
        self._children[pid] = conn
        with contextlib.suppress(OSError):
            send_message(conn, {"pid": pid})

    def _read_request(self, conn: socket.socket) -> tuple[list[int], StartRequest]:
        uid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[1]
        if uid != os.getuid():
            raise PreforkError(f"refused: the client runs as uid {uid}")
        conn.settimeout(REQUEST_SECONDS)
        data, fds, _, _ = socket.recv_fds(conn, 65536, 3)
        try:
            if len(fds) != 3:
                raise PreforkError(f"expected stdin, stdout and stderr; got {len(fds)} descriptors")
            while len(data) < _LENGTH.size:
                data += _recv_some(conn)
            (length,) = _LENGTH.unpack_from(data)
            if length > _MAX_REQUEST_BYTES:
                raise PreforkError(f"request of {length} bytes refused (limit {_MAX_REQUEST_BYTES})")
            while len(data) < _LENGTH.size + length:
                data += _recv_some(conn)
            request = StartRequest.from_json(data[_LENGTH.size : _LENGTH.size + length])
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        conn.settimeout(None)
        return fds, request

    def _reap(self) -> None:
        while self._children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self._children.pop(pid, None)
            if conn is not None:
                with contextlib.suppress(OSError):
                    send_message(conn, {"exit": _exit_code(status)})
                conn.close()
            if not self._children:
                self._idle_since = time.monotonic()


def _recv_some(conn: socket.socket) -> bytes:
    chunk = conn.recv(65536)
    if not chunk:
        raise PreforkError("the launcher hung up mid-request")
    return chunk


def _exit_code(status: int) -> int:
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.waitstatus_to_exitcode(status)


def _run_child(request: StartRequest, fds: list[int]) -> None:
    """In the forked child: become ``python -m servers.<name> ARGS`` on the launcher's streams."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()  # its own session: a signal meant for the prefork process is not its
        _name_process(f"gh-{request.server}")
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        # Everything else the prefork process holds (its socket, the other servers'
        # connections) would keep those open after they are done with.
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        os.environ.clear()
        os.environ.update(request.env)
        os.chdir(request.cwd)
        code = _run_module(f"servers.{request.server}", request.args)
    except BaseException:  # noqa: BLE001 - reported on the server's stderr, the host's log
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def _name_process(name: str) -> None:
    """Show the server's name in ps and top (the command line stays the prefork process's)."""
    with contextlib.suppress(OSError), open("/proc/self/comm", "w") as comm:  # noqa: PTH123
        comm.write(name[:15])


def _run_module(module: str, args: Sequence[str]) -> int:
    import runpy

    sys.argv = [module, *args]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exit_:
        if exit_.code is None or isinstance(exit_.code, int):
            return exit_.code or 0
        print(exit_.code, file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    import argparse  # here, not at the top: launchers import this module too

    parser = argparse.ArgumentParser(
        prog="python -m servers.prefork", description="The prefork process (started by servers.launch)."
    )
    parser.add_argument("--name", required=True, help="the abstract socket name, without the leading NUL")
    parser.add_argument("--idle", type=float, default=IDLE_SECONDS, help="seconds to linger without servers")
    args = parser.parse_args(argv)
    return serve("\0" + args.name, args.idle)


if __name__ == "__main__":
    sys.exit(main())
