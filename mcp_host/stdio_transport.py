"""A stdio transport that reads each message once and refuses one over a size cap.

The SDK's stdio reader appends every chunk to the unfinished line and splits the whole line
again, so a 50 MB message costs gigabytes of copying on the event loop every session of the
pool shares; and whatever a server sends is buffered whole and parsed, holding the GIL (the
process's other threads wait) for about a second per 50 MB on these machines. No in-process
trick hides that parse from the rest of the process, so a message over the cap is never
buffered or parsed: the reader keeps its first and last bytes only, discards the rest as it
arrives, and answers the call it was the response to with an error naming the server and the
limit (MessageTooLargeError's text, under the code MESSAGE_TOO_LARGE); the session goes on.
When the message's ends do not say which call it answers (a request from the server, or a
response with its id in the middle), the session is ended instead: its calls fail with that
error (the pool re-opens it, and counts that against the server's restarts like any other end
of its session), and the rest of the server's output is discarded.

The transport also tells the pool what the SDK's cannot: when the session ends because the
server did (its process exited, or stopped reading or writing), with the exit status and the
last line it wrote to its log since it started (``on_end``), so the pool shows the server as
not connected at once instead of at the next call; and whether a call's requests were handed
to the process's stdin at all (``tracked_writes``): the SDK answers "Connection closed" alike
for a request written before the server died (it may have run) and for one never written
because the pipe was already gone (it cannot have run).

Process start and stop follow the SDK's stdio_client: a new process group, an environment of
the safe base variables plus the entry's, stdin closed first, then SIGTERM and SIGKILL to the
whole group, which is ended even once the server's own process has exited (what a wrapper
such as a shell or npx started must not outlive it). Windows keeps the SDK's transport (and
no cap): the host is run on Linux.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self, TextIO

import anyio
import mcp_types as types
from anyio.abc import ByteReceiveStream, Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import StdioServerParameters
from mcp.client._transport import TransportStreams
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage
from mcp_types import RequestId

from mcp_host.errors import MESSAGE_TOO_LARGE, MessageTooLargeError
from mcp_host.server_logs import log_reason
from policies.secrets import DEFAULT_REDACTOR

# The SDK's grace periods: for the server to exit once its stdin closes, then after SIGTERM.
EXIT_GRACE_SECONDS = 2.0
KILL_GRACE_SECONDS = 2.0
_EXIT_POLL_SECONDS = 0.01

OversizeListener = Callable[[MessageTooLargeError], None]
# Told why the session ended when the server ended it (not when the host stopped it).
EndListener = Callable[[str], None]
# Told each line the server wrote on stdout that is not JSON-RPC (cut, secrets hidden): what a
# program that is not an MCP server prints instead (its usage, a banner, the request echoed).
NoiseListener = Callable[[str], None]
# How much of such a line is told.
_NOISE_CHARS = 200
# How long an ended session waits for the process's exit status before saying it without one.
_EXIT_STATUS_WAIT_SECONDS = 1.0
# Routed to the server's own log file, like the SDK's records (mcp_host/server_logs.py).
logger = logging.getLogger(__name__)


# Enough of a refused message's start and end to find which request it answers.
_EDGE_BYTES = 256
_ID = rb'(-?\d+|"(?:[^"\\]|\\.)*")'
# A response that starts with its id (the Python SDK's servers, most others) ...
_HEAD_ID = re.compile(
    rb'\A\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*' + _ID + rb'\s*,\s*"(?:result|error)"'
)
# ... or starts with its result and ends with its id (the TypeScript SDK's servers).
_HEAD_RESULT = re.compile(rb'\A\s*\{\s*"(?:result|error)"\s*:')
_TAIL_ID = re.compile(rb'"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*' + _ID + rb"\s*\}\s*\Z")


@dataclass(frozen=True)
class Oversized:
    """A message that passed the cap: its first bytes, and its last ones once it ended."""

    head: bytes
    tail: bytes | None = None

    def answers(self) -> RequestId | None:
        """The id of the host's request this message is the response to, when it can be told
        from the message's ends; None for anything else (a request or notification from the
        server, or a response whose id sits elsewhere)."""
        match = _HEAD_ID.match(self.head)
        if match is None and self.tail is not None and _HEAD_RESULT.match(self.head):
            match = _TAIL_ID.search(self.tail)
        if match is None:
            return None
        value = json.loads(match.group(1))
        return value if isinstance(value, int | str) else None


class MessageSplitter:
    """Cuts a byte stream into newline-ended messages, each found by scanning its bytes once.

    ``feed`` returns the messages a chunk completes, in order. A message longer than ``cap``
    bytes is not collected: an Oversized with its first bytes comes as soon as it passes the
    cap (a hostile server may never end it), and another with its last bytes when it ends."""

    def __init__(self, cap: int) -> None:
        if cap <= 0:
            raise ValueError(f"the message cap must be a positive number of bytes, not {cap}")
        self.cap = cap
        self._pieces: list[bytes] = []
        self._size = 0
        self._head: bytes | None = None  # set while a refused message goes on
        self._tail = b""

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        found: list[bytes | Oversized] = []
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            found.extend(self._take(chunk[start:end], ended=True))
            start = end + 1
        found.extend(self._take(chunk[start:], ended=False))
        return found

    def _take(self, piece: bytes, *, ended: bool) -> list[bytes | Oversized]:
        found: list[bytes | Oversized] = []
        if self._head is None:
            if self._size + len(piece) <= self.cap:
                self._pieces.append(piece)
                self._size += len(piece)
                if not ended:
                    return found
                message = b"".join(self._pieces)
                self._pieces.clear()
                self._size = 0
                return [message]
            # Once per refused message: a copy of at most the cap, for its first bytes.
            self._head = (b"".join(self._pieces) + piece)[:_EDGE_BYTES]
            self._pieces.clear()
            self._size = 0
            found.append(Oversized(self._head))
        self._tail = (self._tail + piece[-_EDGE_BYTES:])[-_EDGE_BYTES:]
        if ended:
            found.append(Oversized(self._head, self._tail))
            self._head = None
            self._tail = b""
        return found


@dataclass
class RequestWrites:
    """How many of one call's requests were handed whole to a stdio server's stdin."""

    written: int = 0


_call_writes: ContextVar[RequestWrites | None] = ContextVar("gatehouse_call_writes", default=None)


@contextmanager
def tracked_writes() -> Iterator[RequestWrites]:
    """Count the requests the current task (and the tasks it starts) hands to a stdio server's
    stdin: none written means the server cannot have received the call."""
    record = RequestWrites()
    token = _call_writes.set(record)
    try:
        yield record
    finally:
        _call_writes.reset(token)


# A message on its way to the writer, with the call whose request it is (None: not a call's).
_Outgoing = tuple[SessionMessage, RequestWrites | None]


class _TrackedSend:
    """The session's write stream: each message goes to the writer with the record of the call
    that sent it, read here in the sending task (the dispatcher writes a request from the
    caller's own task), so the writer can count it once its bytes are in the pipe."""

    def __init__(self, stream: MemoryObjectSendStream[_Outgoing]) -> None:
        self._stream = stream

    async def send(self, item: SessionMessage, /) -> None:
        record = _call_writes.get() if isinstance(item.message, types.JSONRPCRequest) else None
        await self._stream.send((item, record))

    def close(self) -> None:
        self._stream.close()

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        self.close()
        return None


class _Ending:
    """Tells the pool, once, why the server ended its session; nothing when the host stops it."""

    def __init__(
        self, process: Process, log: TextIO | None, on_end: EndListener | None, log_start: int | None
    ) -> None:
        self._process = process
        self._on_end = on_end
        # Set once the pool was told: the reader and the writer may both see the end, and
        # neither closes the session's stream before the pool knows why.
        self._told: anyio.Event | None = None
        self.stopping = False
        # Where this process's lines begin in its log: its last line is read from there on.
        self._log = log
        self._log_start = log_start

    async def report(self, why: str) -> None:
        if self.stopping or self._on_end is None:
            return
        if self._told is not None:
            await self._told.wait()
            return
        self._told = anyio.Event()
        try:
            self._on_end(await self._words(why))
        finally:
            self._told.set()

    async def _words(self, why: str) -> str:
        with anyio.move_on_after(_EXIT_STATUS_WAIT_SECONDS):
            while self._process.returncode is None:
                await anyio.sleep(_EXIT_POLL_SECONDS)
        code = self._process.returncode
        if code is None:
            said = f"the server {why}"
        elif code < 0:
            said = f"the server's process was killed ({_signal_name(-code)})"
        else:
            said = f"the server's process exited with status {code}"
        # An exit with an error status usually says why last (a traceback's final line); a
        # killed process's last line is whatever it was doing, so it is not quoted.
        failed = code is not None and code > 0
        last = _last_line(self._log, self._log_start) if failed and self._log is not None else None
        return f"{said}: {last}" if last else said


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _log_size(log: TextIO) -> int | None:
    try:
        return os.fstat(log.fileno()).st_size
    except (OSError, ValueError, AttributeError):
        return None  # not a file (a test's stream): no last line to tell


def _last_line(log: TextIO, start: int | None) -> str | None:
    """The line the process wrote to its log (its stderr) that says why it ended: its last
    error line, else its last line (server_logs.useful_line); None if it wrote none."""
    name = getattr(log, "name", None)
    if start is None or not isinstance(name, str):
        return None
    try:
        log.flush()
    except (OSError, ValueError):
        return None
    # The process's own lines: the host's records about its stdout are not why it ended.
    return log_reason(Path(name), start, own_only=True)


def _parse(line: bytes, parameters: StdioServerParameters) -> SessionMessage | Exception:
    """One message, or its parse error as a value for the session to surface (as the SDK does)."""
    try:
        text = line.decode(parameters.encoding, parameters.encoding_error_handler)
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as exc:
        # A server that prints anything else on stdout: noise for its log, with what it printed.
        logger.exception("Failed to parse JSONRPC message from server")
        return exc


def _noise_line(line: bytes, parameters: StdioServerParameters) -> str:
    """A line that is not JSON-RPC as a person reads it: decoded, cut, secrets hidden."""
    text = line.decode(parameters.encoding, "replace").strip()
    cut = text if len(text) <= _NOISE_CHARS else text[:_NOISE_CHARS] + "…"
    return DEFAULT_REDACTOR.text(cut)


def _refusal(request_id: RequestId, refused: MessageTooLargeError) -> SessionMessage:
    """The error the session gets instead of a response that was too long: the call fails at
    once with it, and the session goes on."""
    error = types.ErrorData(code=MESSAGE_TOO_LARGE, message=str(refused))
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


async def _read(
    server: str,
    stdout: ByteReceiveStream,
    splitter: MessageSplitter,
    parameters: StdioServerParameters,
    deliver: MemoryObjectSendStream[SessionMessage | Exception],
    on_oversize: OversizeListener,
    ending: _Ending,
    on_noise: NoiseListener | None = None,
) -> None:
    answered = False  # whether the refused message under way was answered already
    try:
        async with deliver:
            try:
                async for chunk in stdout:
                    for item in splitter.feed(chunk):
                        if isinstance(item, bytes):
                            parsed = _parse(item, parameters)
                            if isinstance(parsed, Exception) and on_noise is not None:
                                on_noise(_noise_line(item, parameters))
                            await deliver.send(parsed)
                            continue
                        request_id = item.answers()
                        if request_id is not None and not answered:
                            refused = MessageTooLargeError(server, splitter.cap)
                            logger.warning("%s", refused)
                            await deliver.send(_refusal(request_id, refused))
                            answered = True
                        elif item.tail is not None and not answered:
                            # Nobody can be told which call it answered: end the session.
                            raise MessageTooLargeError(server, splitter.cap, session_closed=True)
                        if item.tail is not None:
                            answered = False
            except MessageTooLargeError as refused:
                logger.warning("%s", refused)
                # Told before the stream to the session closes (leaving this block), so the
                # calls that fail with the session already read why.
                on_oversize(refused)
                await ending.report(str(refused))
            else:
                # The server's output ended: it exited, or closed its stdout. Told before the
                # stream to the session closes, so the pool stops lending it out first.
                await ending.report("closed its output")
                return
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
        pass  # the session (or the process) went away first
    # Keep the pipe flowing until the process is stopped: a server blocked writing to a pipe
    # nobody reads could not see its stdin close.
    with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
        async for _ in stdout:
            pass


async def _write(
    stdin: anyio.abc.ByteSendStream,
    parameters: StdioServerParameters,
    messages: MemoryObjectReceiveStream[_Outgoing],
    deliver: MemoryObjectSendStream[SessionMessage | Exception],
    ending: _Ending,
) -> None:
    try:
        async with messages:
            async for message, record in messages:
                text = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                await stdin.send(text.encode(parameters.encoding, parameters.encoding_error_handler))
                if record is not None:
                    # Whole in the pipe: from here on the server may read it and act.
                    record.written += 1
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        # The server stopped reading: end the session's reads too, so no call waits forever.
        await ending.report("stopped reading its input")
        await deliver.aclose()


async def _stop(process: Process) -> None:
    """Close stdin, give the server its grace period, then end its whole process group.

    The group is ended even when the server's own process has exited (it stopped at the closed
    stdin, or it died and this is its restart): a server started through a wrapper (a shell,
    npx, uvx) may have started helpers that never read its stdin, and they would outlive it.
    The group's id is the server's pid (a new session), valid while any member lives."""
    if process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    with anyio.move_on_after(EXIT_GRACE_SECONDS):
        while process.returncode is None:
            await anyio.sleep(_EXIT_POLL_SECONDS)
    # SIGTERM to what is left of the group, SIGKILL after the grace period; at once when
    # nothing is left (the common case: the server exited with its children).
    await terminate_posix_process_tree(process, KILL_GRACE_SECONDS)
    with anyio.move_on_after(KILL_GRACE_SECONDS):
        await process.aclose()


@asynccontextmanager
async def capped_stdio_client(
    server: str,
    parameters: StdioServerParameters,
    *,
    max_message_bytes: int,
    on_oversize: OversizeListener,
    errlog: TextIO | None = None,
    on_end: EndListener | None = None,
    on_noise: NoiseListener | None = None,
) -> AsyncIterator[TransportStreams]:
    """The streams of a stdio server's session, reading at most ``max_message_bytes`` of any
    one message. ``on_oversize`` is told when one that names no call passed it, just before the
    session is ended for it (one that answers a call fails only that call). ``on_end`` is told
    why, in words, when the server ends the session (never when the host does), before the
    session's calls fail. ``on_noise`` is told each line on its stdout that is not JSON-RPC. Each request is counted in the ``tracked_writes`` record of the task
    that sent it once it is whole in the server's stdin."""
    log = errlog if errlog is not None else sys.stderr
    if sys.platform == "win32":  # pragma: no cover - the host runs on Linux
        async with stdio_client(parameters, errlog=log) as streams:
            yield streams
        return
    splitter = MessageSplitter(max_message_bytes)
    # Where this process's lines will begin in its log: read before it starts, since a server
    # that fails at once may have written its reason and exited before open_process returns.
    log_start = _log_size(errlog) if errlog is not None else None
    process = await anyio.open_process(
        [parameters.command, *parameters.args],
        env=get_default_environment() | (parameters.env or {}),
        stderr=log,
        cwd=parameters.cwd,
        start_new_session=True,
    )
    assert process.stdout is not None and process.stdin is not None, "spawned with pipes"
    # The last line of the server's own log, never of the host's stderr.
    ending = _Ending(process, errlog, on_end, log_start)
    to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outgoing, from_session = anyio.create_memory_object_stream[_Outgoing](0)
    write_stream = _TrackedSend(outgoing)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(
                _read, server, process.stdout, splitter, parameters, to_session, on_oversize, ending, on_noise
            )
            group.start_soon(_write, process.stdin, parameters, from_session, to_session, ending)
            try:
                yield read_stream, write_stream
            finally:
                with anyio.CancelScope(shield=True):
                    ending.stopping = True  # the host ends it: nothing to report
                    read_stream.close()
                    write_stream.close()
                    await _stop(process)
                group.cancel_scope.cancel()
    finally:
        for stream in (to_session, from_session, read_stream, outgoing):
            stream.close()
