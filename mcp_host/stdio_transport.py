"""A stdio transport that reads each message once and refuses one over a size cap.

The SDK's stdio reader appends every chunk to the unfinished line and splits the whole line
again, so a 50 MB message costs gigabytes of copying on the event loop every session of the
pool shares; and whatever a server sends is buffered whole and parsed, holding the GIL (the
process's other threads wait) for about a second per 50 MB on these machines. No in-process
trick hides that parse from the rest of the process, so a message over the cap is never
buffered or parsed: the reader stops collecting it, tells the pool why (MessageTooLargeError,
naming the server and the limit), ends the session (its calls fail, the pool re-opens it) and
discards the rest of the server's output until the process is stopped.

Process start and stop follow the SDK's stdio_client: a new process group, an environment of
the safe base variables plus the entry's, stdin closed first, then SIGTERM and SIGKILL to the
whole group. Windows keeps the SDK's transport (and no cap): the host is run on Linux.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import TextIO

import anyio
import mcp_types as types
from anyio.abc import ByteReceiveStream, Process
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import StdioServerParameters
from mcp.client._transport import TransportStreams
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage

from mcp_host.errors import MessageTooLargeError

# The SDK's grace periods: for the server to exit once its stdin closes, then after SIGTERM.
EXIT_GRACE_SECONDS = 2.0
KILL_GRACE_SECONDS = 2.0
_EXIT_POLL_SECONDS = 0.01

OversizeListener = Callable[[MessageTooLargeError], None]
# Routed to the server's own log file, like the SDK's records (mcp_host/server_logs.py).
logger = logging.getLogger(__name__)


class MessageSplitter:
    """Cuts a byte stream into newline-ended messages, each found by scanning its bytes once.

    ``feed`` returns the messages a chunk completes; a message that grows past ``cap`` bytes
    makes it raise MessageTooLargeError instead, as soon as the cap is passed (not at the
    message's end, which a hostile server may never send)."""

    def __init__(self, server: str, cap: int) -> None:
        if cap <= 0:
            raise ValueError(f"the message cap must be a positive number of bytes, not {cap}")
        self._server = server
        self._cap = cap
        self._pieces: list[bytes] = []
        self._size = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        messages: list[bytes] = []
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            self._take(chunk, start, end)
            messages.append(b"".join(self._pieces))
            self._pieces.clear()
            self._size = 0
            start = end + 1
        self._take(chunk, start, len(chunk))
        return messages

    def _take(self, chunk: bytes, start: int, end: int) -> None:
        self._size += end - start
        if self._size > self._cap:
            self._pieces.clear()
            raise MessageTooLargeError(self._server, self._cap)
        if end > start:
            self._pieces.append(chunk[start:end])


def _parse(line: bytes, parameters: StdioServerParameters) -> SessionMessage | Exception:
    """One message, or its parse error as a value for the session to surface (as the SDK does)."""
    try:
        text = line.decode(parameters.encoding, parameters.encoding_error_handler)
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as exc:
        # A server that prints anything else on stdout: noise for its log, with what it printed.
        logger.exception("Failed to parse JSONRPC message from server")
        return exc


async def _read(
    stdout: ByteReceiveStream,
    splitter: MessageSplitter,
    parameters: StdioServerParameters,
    deliver: MemoryObjectSendStream[SessionMessage | Exception],
    on_oversize: OversizeListener,
) -> None:
    try:
        async with deliver:
            try:
                async for chunk in stdout:
                    for line in splitter.feed(chunk):
                        await deliver.send(_parse(line, parameters))
            except MessageTooLargeError as refused:
                # Told before the stream to the session closes (leaving this block), so the
                # calls that fail with the session already read why.
                logger.warning("%s", refused)
                on_oversize(refused)
            else:
                return
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
        return  # the session or the process went away first
    # Keep the pipe flowing: a server blocked writing the rest could not see its stdin close.
    with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
        async for _ in stdout:
            pass


async def _write(
    stdin: anyio.abc.ByteSendStream,
    parameters: StdioServerParameters,
    messages: MemoryObjectReceiveStream[SessionMessage],
    deliver: MemoryObjectSendStream[SessionMessage | Exception],
) -> None:
    try:
        async with messages:
            async for message in messages:
                text = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                await stdin.send(text.encode(parameters.encoding, parameters.encoding_error_handler))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
        # The server stopped reading: end the session's reads too, so no call waits forever.
        await deliver.aclose()


async def _stop(process: Process) -> None:
    """Close stdin, give the server its grace period, then end its whole process group."""
    if process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    with anyio.move_on_after(EXIT_GRACE_SECONDS):
        while process.returncode is None:
            await anyio.sleep(_EXIT_POLL_SECONDS)
    if process.returncode is None:
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
) -> AsyncIterator[TransportStreams]:
    """The streams of a stdio server's session, reading at most ``max_message_bytes`` of any
    one message; ``on_oversize`` is told when a message passed it (before its session ends)."""
    log = errlog if errlog is not None else sys.stderr
    if sys.platform == "win32":  # pragma: no cover - the host runs on Linux
        async with stdio_client(parameters, errlog=log) as streams:
            yield streams
        return
    splitter = MessageSplitter(server, max_message_bytes)
    process = await anyio.open_process(
        [parameters.command, *parameters.args],
        env=get_default_environment() | (parameters.env or {}),
        stderr=log,
        cwd=parameters.cwd,
        start_new_session=True,
    )
    assert process.stdout is not None and process.stdin is not None, "spawned with pipes"
    to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_read, process.stdout, splitter, parameters, to_session, on_oversize)
            group.start_soon(_write, process.stdin, parameters, from_session, to_session)
            try:
                yield read_stream, write_stream
            finally:
                with anyio.CancelScope(shield=True):
                    read_stream.close()
                    write_stream.close()
                    await _stop(process)
                group.cancel_scope.cancel()
    finally:
        for stream in (to_session, from_session, read_stream, write_stream):
            stream.close()
