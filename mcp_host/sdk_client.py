"""McpClient on the official SDK: a pool of long-lived sessions on one background loop.

Opening a session costs a process start for stdio servers (hundreds of milliseconds) against
about a millisecond per call on an open one, so sessions are opened once, in parallel, and
shared by every request, thread and Streamlit rerun. They live on a single event loop owned
by an anyio blocking portal: the graph, the CLI and Streamlit are synchronous and call in
through it, never with ``asyncio.run`` per call.

Each session is held by a keeper task, because an SDK client must be entered and left in the
same task; callers from other tasks only borrow it. When a session dies (a stdio server
exits, a remote server drops the connection) the keeper opens it again, a bounded number of
times with growing pauses, and the failure stays visible in ``health()`` and the manifest.

Manifests are cached per server and dropped when the server says its lists changed or its
session is re-opened; ``discover(fresh=True)`` always asks again, for review decisions.

A server whose entry declares roots (mcp_host/config.py) is offered the roots capability and
answers its ``roots/list`` with them; ``set_roots`` changes them and tells the server.

A server may ask the person a question during a call (mcp_host/elicitation.py). The pool
tells its handler whose call it is: the caller's ``on_behalf_of`` is read on the caller's
thread and set again inside the call's task (a portal task does not inherit the caller's
context). A question sent the 2026-07-28 way is answered inside that task, so it sees the
name; one sent as a server-initiated ``elicitation/create`` arrives on the session's reader
task, and is taken to belong to the calls in flight on that server when they are all one
request's (none is named when they are not: a question must never reach the wrong person).
While a person answers a server (a question or a request for a completion), the time limits
of its calls in flight stand still (mcp_host/call_clocks.py): a person takes minutes,
a call timeout is seconds.
"""

from __future__ import annotations

import concurrent.futures
import logging
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import anyio
import httpx2
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.client.session import (
    ClientRequestContext,
    ElicitationFnT,
    IncomingMessage,
    ListRootsFnT,
    MessageHandlerFnT,
    SamplingFnT,
)
from mcp.types import (
    INTERNAL_ERROR,
    CallToolResult,
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ElicitRequestParams,
    ElicitResult,
    ErrorData,
    Implementation,
    ListRootsResult,
    Root,
    RootsListChangedNotification,
)
from mcp_types import RequestParamsMeta
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from opentelemetry.context import Context

from mcp_host.approvals import (
    CallApproval,
    GrantSigner,
    announced_verification,
    current_approval,
    request_meta,
)
from mcp_host.call_clocks import CallClocks
from mcp_host.capability_notes import configured_notes, with_notes
from mcp_host.config import HttpServer, ServerRoot, StdioServer
from mcp_host.convert import prompt_result, resource_result, tool_result
from mcp_host.discovery import CapabilityCollector
from mcp_host.elicitation import CallOwner, ElicitationHandler, call_owner, from_calls, on_behalf_of
from mcp_host.errors import (
    TRANSPORT_KINDS,
    ClientClosedError,
    ErrorInfo,
    McpHostError,
    MessageTooLargeError,
    PaginationError,
    RequestNotSentError,
    UnknownServerError,
    error_from_exception,
)
from mcp_host.folders import configured_folders
from mcp_host.handshake import failed_open
from mcp_host.health import ServerHealth
from mcp_host.manifest import Manifest, MissingMethod, ServerManifest
from mcp_host.oauth import SignIn, SignInRequired, server_auth, watched
from mcp_host.output_schema import output_problem
from mcp_host.results import DEFAULT_OUTPUT_CAP_BYTES, McpResult, message_cap_for
from mcp_host.sampling import SamplingHandler
from mcp_host.server_logs import log_to, route_sdk_logs, server_log_path
from mcp_host.stdio_transport import tracked_writes
from mcp_host.transports import ServerTarget, client_target, is_restartable, knows_unsent_requests
from telemetry.mcp import Attributes, record_operation, server_attributes, talking_to
from telemetry.spans import attached, current_context
from telemetry.switch import observed

_T = TypeVar("_T")
_log = logging.getLogger(__name__)

# A server that keeps handing out cursors must not hang discovery.
MAX_LIST_PAGES = 1000
# The most entries of one listing (tools, resources, resource templates, prompts) used from one
# server. Every request scores each capability and keeps the whole offer in its checkpoint, so
# a server offering 10,000 tools made each request write megabytes; past this many the listing
# is no longer fetched, the first ones are used, and the manifest says so (``rejected``).
MAX_LISTED_PER_KIND = 1000
CLIENT_INFO = Implementation(name="gatehouse", version="0.1.0")
_LIST_CHANGED = frozenset(
    {
        "notifications/tools/list_changed",
        "notifications/resources/list_changed",
        "notifications/prompts/list_changed",
    }
)
# A session that stopped because its server needs sign-in is opened again on the next
# discovery after this long: someone may have signed in meanwhile, from another replica too.
SIGN_IN_RETRY_SECONDS = 15.0
# A server's listing that failed (one that never stops paging, say: a thousand pages each time)
# is tried again after this long, then twice as long after each failure in a row, up to the cap.
LISTING_BACKOFF_SECONDS = 5.0
LISTING_BACKOFF_CAP_SECONDS = 300.0
# Each listing's JSON-RPC method. Only tools/list is needed for a server to be usable; the
# others are optional: servers in the wild declare resources and answer -32601 to
# resources/templates/list, or fail their prompts/list, and their tools still work.
LIST_METHODS = {
    "tools": "tools/list",
    "resources": "resources/list",
    "resource_templates": "resources/templates/list",
    "prompts": "prompts/list",
}
OPTIONAL_LISTINGS = frozenset({"resources", "resource_templates", "prompts"})
# Each kind of call's JSON-RPC method, for its telemetry (telemetry/mcp.py).
CALL_METHODS = {"tool": "tools/call", "resource": "resources/read", "prompt": "prompts/get"}


@dataclass(eq=False)
class _InFlight:
    """One call under way on a session: whose it is (a question during it goes to that person)."""

    owner: CallOwner | None


# The call whose task this is (set in the call's task; its child tasks inherit it).
_current_call: ContextVar[_InFlight | None] = ContextVar("current_call", default=None)


@dataclass(eq=False)
class _Listing:
    """One listing of a server under way: requests that need it meanwhile wait for its answer
    instead of asking the server again."""

    done: anyio.Event = field(default_factory=anyio.Event)
    manifest: ServerManifest | None = None


@dataclass
class _Session:
    name: str
    target: ServerTarget
    client: Client | None = None
    error: ErrorInfo | None = None
    protocol_version: str | None = None
    connect_ms: float | None = None
    restarts: int = 0
    # The last HTTP status that refused this session's credentials (remote servers only).
    refused_status: int | None = None
    # Why signing in to a remote server failed last, None once it worked (mcp_host/oauth.py).
    sign_in_failure: BaseException | None = None
    # The remote server's OAuth flow, kept across re-opens so its tokens and metadata are too.
    auth: httpx2.Auth | None = None
    # When the keeper last started (monotonic): a session waiting for a sign-in is tried again
    # on demand, not more often than SIGN_IN_RETRY_SECONDS.
    started_at: float = 0.0
    stopping: bool = False
    manifest: ServerManifest | None = None
    # Calls under way on this session (only the pool's loop touches it).
    in_flight: list[_InFlight] = field(default_factory=list)
    # Set when the keeper should wake: to stop, or to re-open a dead session.
    wake: anyio.Event | None = None
    # The open in progress, bounded by the connect timeout; stopping cancels it.
    opening: anyio.CancelScope | None = None
    # Set while a usable session is open or the keeper has given up; cleared while re-opening.
    settled: anyio.Event | None = None
    keeper: concurrent.futures.Future[None] | None = field(default=None, repr=False)
    # What the server is told its roots are; None when its entry declares none (see _roots_callback).
    roots: list[ServerRoot] | None = None
    # The time limits of the calls in flight, stopped while a person answers this server.
    clocks: CallClocks = field(default_factory=CallClocks, repr=False)
    # Each tool's declared output schema, as last listed on the open connection (None: not yet).
    output_schemas: dict[str, dict[str, Any] | None] | None = None
    # Why the transport ended the open connection (a message over the cap), None otherwise.
    transport_failure: MessageTooLargeError | None = None
    # Why the server last ended its session (its process exited, say), as the transport told
    # it (mcp_host/stdio_transport.py); kept after the session is re-opened, for health().
    ended: ErrorInfo | None = None
    # The first line a stdio server wrote on stdout that is not JSON-RPC since its process last
    # started: what a program that is not an MCP server printed instead (mcp_host/handshake.py).
    stdout_noise: str | None = None
    # The last listing, when it failed, kept until listing_retry_at (the pool's clock): every
    # request meanwhile gets it instead of listing again. listing_failures counts the failures
    # in a row (the back-off doubles with each); a listing that works, or reconnect(), ends it.
    failed_listing: ServerManifest | None = None
    listing_failures: int = 0
    listing_retry_at: float = 0.0
    listing: _Listing | None = None
    # What the last listing found, whatever it was (ok, partial, failed), for health(); kept
    # when a notification drops the cached manifest.
    last_listing: ServerManifest | None = None
    # What the server announced about verifying Gatehouse's grants when it connected
    # (mcp_host/approvals.py announced_verification), None when it announced nothing.
    verifies: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.roots is None and isinstance(self.target, StdioServer | HttpServer) and self.target.roots:
            self.roots = list(self.target.roots)


class SdkMcpClient:
    """Holds one open SDK session per configured server until close()."""

    def __init__(
        self,
        targets: Mapping[str, ServerTarget],
        *,
        call_timeout: float = 30.0,
        connect_timeout: float = 30.0,
        output_cap_bytes: int = DEFAULT_OUTPUT_CAP_BYTES,
        message_cap_bytes: int | None = None,
        max_restarts: int = 3,
        restart_backoff: float = 0.25,
        log_dir: Path | None = None,
        elicitation: ElicitationHandler | None = None,
        sign_in: SignIn | None = None,
        sampling: SamplingHandler | None = None,
        clock: Callable[[], float] = time.monotonic,
        listing_backoff: float = LISTING_BACKOFF_SECONDS,
        listing_backoff_cap: float = LISTING_BACKOFF_CAP_SECONDS,
        signer: GrantSigner | None = None,
    ) -> None:
        """``elicitation`` answers servers that ask the person for input during a call
        (mcp_host/elicitation.py); without one, servers are told the host cannot ask.
        ``sign_in`` keeps remote servers' OAuth credentials and, when it has an authorizer,
        lets a person sign in (mcp_host/oauth.py); without it no OAuth is attempted.
        ``sampling`` answers servers that ask for a model completion (mcp_host/sampling.py);
        without one, servers are told the host offers none.
        ``message_cap_bytes`` bounds one message from a stdio server (mcp_host/stdio_transport.py);
        by default it follows the output cap (mcp_host/results.py).
        A server's failed listing is tried again after ``listing_backoff`` seconds, doubling
        with each failure in a row up to ``listing_backoff_cap``, on ``clock`` (monotonic
        seconds; tests pass their own).
        ``signer`` signs the grant a tool call made under mcp_host/approvals.py approved_for
        carries in its ``_meta``; without one no call carries a grant."""
        if not 0 < listing_backoff <= listing_backoff_cap:
            raise ValueError(
                f"listing back-off must be positive and at most its cap, not {listing_backoff} (cap {listing_backoff_cap})"
            )
        self._clock = clock
        self._listing_backoff = listing_backoff
        self._listing_backoff_cap = listing_backoff_cap
        self._sign_in = sign_in
        self._signer = signer
        self._call_timeout = call_timeout
        self._elicitation = elicitation
        self._sampling = sampling
        self._connect_timeout = connect_timeout
        self._output_cap = output_cap_bytes
        self._message_cap = (
            message_cap_bytes if message_cap_bytes is not None else message_cap_for(output_cap_bytes)
        )
        if self._message_cap <= 0:
            raise ValueError(f"message_cap_bytes must be a positive number of bytes, not {self._message_cap}")
        self._max_restarts = max_restarts
        self._restart_backoff = restart_backoff
        self._log_dir = log_dir
        if log_dir is not None:
            route_sdk_logs()
        self._closed = False
        # Who hears that a server's list changed (when_lists_change), by a token each.
        self._change_listeners: dict[object, Callable[[str, str], None]] = {}
        self._portal_cm: AbstractContextManager[BlockingPortal] = start_blocking_portal(backend="asyncio")
        self._portal = self._portal_cm.__enter__()
        self._sessions = {name: _Session(name=name, target=target) for name, target in targets.items()}
        self._connect_all()

    # -- lifecycle -------------------------------------------------------------------------

    def _connect_all(self) -> None:
        opened: list[concurrent.futures.Future[None]] = []
        for session in self._sessions.values():
            ready: concurrent.futures.Future[None] = concurrent.futures.Future()
            session.keeper = self._portal.start_task_soon(self._keep_open, session, ready)
            opened.append(ready)
        concurrent.futures.wait(opened, timeout=self._connect_timeout)
        for session, ready in zip(self._sessions.values(), opened, strict=True):
            self._give_up_if_unready(session, ready)

    def _give_up_if_unready(self, session: _Session, ready: concurrent.futures.Future[None]) -> None:
        """After waiting the connect timeout: a session still opening has timed out (its keeper
        bounds the open the same way; this is the caller's side of the same deadline)."""
        if not ready.done():
            timeout = ErrorInfo(kind="timeout", message=f"no session within {self._connect_timeout:g} s")
            session.error = self._failed_open(session, timeout, None, ended=False)
            if session.keeper is not None:
                session.keeper.cancel()

    def reconnect(self, name: str) -> ServerHealth:
        """Open one server's session again and wait (up to the connect timeout) for it: after a
        sign-in, so the new tokens are read from the store. Returns the server's health."""
        self._check_open()
        session = self._sessions.get(name)
        if session is None:
            raise UnknownServerError(name, list(self._sessions))
        self._portal.call(self._stop_and_wait, session)
        session.stopping = False
        session.auth = None  # a new flow reads the stored tokens afresh
        session.sign_in_failure = None
        session.refused_status = None
        session.error = None
        session.restarts = 0
        # Someone acted on the server (connected it, signed in): its listing is asked at once.
        session.failed_listing = None
        session.listing_failures = 0
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        session.keeper = self._portal.start_task_soon(self._keep_open, session, ready)
        concurrent.futures.wait([ready], timeout=self._connect_timeout)
        self._give_up_if_unready(session, ready)
        return next(h for h in self.health() if h.name == name)

    async def _stop_and_wait(self, session: _Session) -> None:
        await self._stop(session)
        if session.settled is not None:
            with anyio.move_on_after(10):
                await session.settled.wait()

    def _retry_signed_out(self) -> None:
        """Re-open sessions that stopped for want of a sign-in, once the retry pause is over."""
        for session in list(self._sessions.values()):
            waiting = isinstance(session.sign_in_failure, SignInRequired) and session.client is None
            keeper_done = session.keeper is None or session.keeper.done()
            if waiting and keeper_done and time.monotonic() - session.started_at >= SIGN_IN_RETRY_SECONDS:
                self.reconnect(session.name)

    async def _keep_open(self, session: _Session, ready: concurrent.futures.Future[None]) -> None:
        # The session's tasks (the SDK's reader and writer among them) start from this one.
        session.started_at = time.monotonic()
        log_to(server_log_path(self._log_dir, session.name))
        session.settled = anyio.Event()
        try:
            while not session.stopping:
                connected = await self._hold_session(session, ready)
                if session.stopping or not connected or not is_restartable(session.target):
                    break
                # Every end of an open session counts, whatever ended it: a crash, a closed pipe,
                # or the transport closing it for a message over the cap that names no call
                # (mcp_host/stdio_transport.py). That last is the server's doing as much as a
                # crash: each re-open costs a process start and fails the calls in flight, so a
                # server that keeps sending such messages is given up on like one that keeps
                # crashing. (A message over the cap that answers a call fails only that call and
                # ends nothing, so it never counts.) The count lasts as long as the pool;
                # reconnect(), after a sign-in, starts it again.
                if session.restarts >= self._max_restarts:
                    last = session.error.message if session.error else "the session closed"
                    session.error = ErrorInfo(
                        kind="unavailable",
                        message=f"gave up after {session.restarts} restarts; last error: {last}",
                    )
                    break
                session.restarts += 1
                await anyio.sleep(self._restart_backoff * 2 ** (session.restarts - 1))
        finally:
            session.client = None
            session.settled.set()
            if not ready.done():
                ready.set_result(None)

    async def _hold_session(self, session: _Session, ready: concurrent.futures.Future[None]) -> bool:
        """Open the session and keep it until woken. True when it was open at some point."""
        session.wake = anyio.Event()
        started = time.perf_counter()
        connected = False
        ended_before = session.ended
        session.stdout_noise = None
        raised: BaseException | None = None
        timed_out = False
        # The open is bounded by the connect timeout, whoever opens it (the first connect, the
        # keeper after the session died, reconnect() after a sign-in): a server that trickles
        # its answer a byte at a time resets the HTTP read timeout with every byte, so without
        # this bound the keeper waited on it for good. Lifted once the session is open.
        opening = anyio.CancelScope(deadline=anyio.current_time() + self._connect_timeout)
        session.opening = opening
        try:
            with opening:
                async with Client(
                    client_target(
                        session.name,
                        session.target,
                        self._log_dir,
                        _status_recorder(session),
                        self._auth_for(session),
                        message_cap_bytes=self._message_cap,
                        on_oversize=_oversize_recorder(session),
                        on_end=_end_recorder(session),
                        on_noise=_noise_recorder(session),
                    ),
                    cache=None,  # the host decides when a manifest is fresh
                    client_info=CLIENT_INFO,
                    message_handler=self._notification_handler(session),
                    elicitation_callback=self._elicitation_callback(session.name),
                    list_roots_callback=self._roots_callback(session),
                    sampling_callback=self._sampling_callback(session),
                ) as client:
                    opening.deadline = math.inf
                    _skip_sdk_output_check(client)
                    connected = True
                    session.client = client
                    session.output_schemas = None
                    session.transport_failure = None
                    session.error = None
                    session.manifest = None
                    session.protocol_version = client.protocol_version
                    session.verifies = announced_verification(client.server_capabilities.extensions)
                    session.connect_ms = (time.perf_counter() - started) * 1000
                    assert session.settled is not None
                    session.settled.set()
                    if not ready.done():
                        ready.set_result(None)
                    await session.wake.wait()
            timed_out = opening.cancelled_caught and not session.stopping
            if timed_out:
                session.error = ErrorInfo(
                    kind="timeout", message=f"no session within {self._connect_timeout:g} s"
                )
        except anyio.get_cancelled_exc_class():
            raise
        except Exception as exc:  # noqa: BLE001 - any failure of one server is that server's error
            # A process that exited during the handshake says more ("exited with status 1:
            # ModuleNotFoundError ...") than the SDK's "Connection closed".
            ended = session.ended if session.ended is not ended_before else None
            session.error = ended if ended is not None and not connected else _classify(session, exc)
            raised = exc
        finally:
            session.client = None
            session.manifest = None
            session.opening = None
        if not connected and session.error is not None and (raised is not None or timed_out):
            session.error = self._failed_open(
                session, session.error, raised, ended=session.ended is not ended_before
            )
        if not ready.done():
            ready.set_result(None)
        return connected

    def _failed_open(
        self, session: _Session, error: ErrorInfo, raised: BaseException | None, ended: bool
    ) -> ErrorInfo:
        """A stdio server's failure to open its session, in words that name the program and
        what it did instead of answering as an MCP server (mcp_host/handshake.py)."""
        target = session.target
        if not isinstance(target, StdioServer | StdioServerParameters):
            return error
        return failed_open(
            target,
            error,
            raised=raised,
            ended=ended,
            stdout_line=session.stdout_noise,
            log=server_log_path(self._log_dir, session.name),
            connect_timeout=self._connect_timeout,
        )

    def _auth_for(self, session: _Session) -> httpx2.Auth | None:
        if session.auth is None and isinstance(session.target, HttpServer):
            auth = server_auth(session.target, self._sign_in)
            if auth is not None:
                session.auth = watched(auth, _sign_in_recorder(session))
        return session.auth

    def _elicitation_callback(self, server: str) -> ElicitationFnT | None:
        """The SDK callback for one server's questions, or None (no capability declared)."""
        handler = self._elicitation
        if handler is None:
            return None

        async def answer(
            context: ClientRequestContext, params: ElicitRequestParams
        ) -> ElicitResult | ErrorData:
            calls = self._asking_calls(server)
            owners = {call.owner for call in calls}
            owner = owners.pop() if len(owners) == 1 else None
            try:
                with self._sessions[server].clocks.person_answering(), on_behalf_of(owner):
                    return await handler(server, params)
            except Exception as exc:  # noqa: BLE001 - whatever the handler's failure, the server gets an error
                return ErrorData(code=INTERNAL_ERROR, message=f"the host could not ask: {type(exc).__name__}")

        return answer

    def _roots_callback(self, session: _Session) -> ListRootsFnT | None:
        """The SDK callback answering the server's ``roots/list``, or None (no capability).

        A server whose entry declares no roots is not offered the capability at all: its entry
        gives nothing to answer with, and servers act on the answer (server-filesystem trades
        the folders on its command line for the roots it is told), so roots made up here (the
        policy's, say) would move a server off the folders its entry gives it. Declared roots
        are read at each request: a re-opened session and a changed list (set_roots) get the
        current ones."""
        if session.roots is None:
            return None

        async def answer(context: ClientRequestContext) -> ListRootsResult | ErrorData:
            return ListRootsResult(roots=[_sdk_root(root) for root in session.roots or []])

        return answer

    def _sampling_callback(self, session: _Session) -> SamplingFnT | None:
        """The SDK callback for one server's requests for a completion, or None (no capability
        declared). A person decides each one: the server's calls in flight wait without their
        time limit running meanwhile (the handler bounds the wait). The handler is told the
        owners of every call the request may have come from (``callers()``), so that none of
        the people behind them decides it alone."""
        handler = self._sampling
        if handler is None:
            return None

        async def answer(
            context: ClientRequestContext, params: CreateMessageRequestParams
        ) -> CreateMessageResult | CreateMessageResultWithTools | ErrorData:
            owners = tuple(call.owner for call in self._asking_calls(session.name))
            try:
                with session.clocks.person_answering(), from_calls(owners):
                    return await handler(session.name, params)
            except Exception as exc:  # noqa: BLE001 - whatever the handler's failure, the server gets an error
                return ErrorData(
                    code=INTERNAL_ERROR, message=f"the host could not answer: {type(exc).__name__}"
                )

        return answer

    def _asking_calls(self, server: str) -> list[_InFlight]:
        """The calls a question belongs to: the one whose task asks (the 2026-07-28 way), else
        every call in flight on the server (a server-initiated request names none)."""
        current = _current_call.get()
        if current is not None:
            return [current]
        session = self._sessions.get(server)
        return list(session.in_flight) if session is not None else []

    def _notification_handler(self, session: _Session) -> MessageHandlerFnT:
        async def handle(message: IncomingMessage) -> None:
            method = getattr(message, "method", None)
            if method in _LIST_CHANGED:
                session.manifest = None
                for listener in tuple(self._change_listeners.values()):
                    try:
                        listener(session.name, method)
                    except Exception:  # noqa: BLE001 - one listener's fault must not stop the session's reader
                        _log.exception("a listener for %s's list changes failed", session.name)

        return handle

    def when_lists_change(self, listener: Callable[[str, str], None]) -> Callable[[], None]:
        """Call ``listener(server, method)`` each time a server says one of its lists changed
        (``method``: ``notifications/tools/list_changed``, or resources', or prompts'), after
        its cached listing is dropped. It runs on the pool's event loop: it must return at
        once and not raise. Only sessions on the initialize handshake (2025-11-25 and before)
        hear this: on 2026-07-28 a server says it on a ``subscriptions/listen`` stream, which
        the pool does not open. Returns what stops it."""
        token = object()
        self._change_listeners[token] = listener

        def stop() -> None:
            self._change_listeners.pop(token, None)

        return stop

    async def _reopen(self, session: _Session) -> None:
        """Ask the keeper to re-open a dead session (once, however many callers noticed)."""
        _mark_dead(session)

    async def _usable_client(self, session: _Session) -> Client | None:
        """The open client, waiting (bounded) for a re-open in progress."""
        if session.client is None and session.settled is not None and not session.settled.is_set():
            with anyio.move_on_after(self._connect_timeout):
                await session.settled.wait()
        return session.client

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for session in self._sessions.values():
            self._portal.call(self._stop, session)
        keepers = [s.keeper for s in self._sessions.values() if s.keeper is not None]
        concurrent.futures.wait(keepers, timeout=10)
        # A keeper still running after that (a server that will not stop) is cancelled: leaving
        # the portal would otherwise wait for it, and the process could never exit.
        self._portal.call(self._portal.stop, True)
        self._portal_cm.__exit__(None, None, None)
        if self._sign_in is not None and self._sign_in.close is not None:
            self._sign_in.close()

    async def _stop(self, session: _Session) -> None:
        session.stopping = True
        if session.wake is not None:
            session.wake.set()
        if session.opening is not None and session.client is None:
            # An open still under way (a server trickling its handshake) ends now, not at the
            # connect timeout: closing the pool or reconnecting does not wait for it.
            session.opening.cancel()

    def __enter__(self) -> SdkMcpClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- state -----------------------------------------------------------------------------

    def server_names(self) -> list[str]:
        return list(self._sessions)

    def health(self) -> list[ServerHealth]:
        return [
            ServerHealth(
                name=s.name,
                connected=s.client is not None,
                protocol_version=s.protocol_version,
                connect_ms=s.connect_ms,
                restarts=s.restarts,
                error=s.error or s.ended,
                needs_sign_in=isinstance(s.sign_in_failure, SignInRequired),
                verifies=s.verifies,
                log=_shown_path(server_log_path(self._log_dir, s.name)),
                **self._listing_health(s),
            ).listed(s.last_listing)
            for s in self._sessions.values()
        ]

    def _listing_health(self, session: _Session) -> dict[str, Any]:
        failed = session.failed_listing
        if failed is None:
            return {}
        return {
            "listing_error": failed.error,
            "listing_retry_in": max(0.0, session.listing_retry_at - self._clock()),
        }

    # -- roots -----------------------------------------------------------------------------

    def roots(self, server: str) -> list[ServerRoot] | None:
        """The roots a server is told, or None when it was not offered the roots capability."""
        session = self._session(server)
        return None if session.roots is None else list(session.roots)

    def set_roots(self, server: str, roots: Sequence[ServerRoot | str | Path]) -> bool:
        """Change the roots a server is told (absolute folders), and tell it they changed.

        Only for a server whose entry declared roots: the capability is declared when a
        session opens, so one opened without it cannot be offered roots later. The new list
        also answers sessions re-opened after a restart; the servers file is not changed, and
        the policy keeps checking paths against the roots declared there. The
        ``notifications/roots/list_changed`` goes out on connections of the handshake
        versions (up to 2025-11-25), which is what servers that keep their roots listen for;
        2026-07-28 has no such notification (its servers ask for roots within each call that
        needs them, so they get the new list anyway). Returns whether it was sent."""
        self._check_open()
        session = self._session(server)
        if session.roots is None:
            raise McpHostError(
                f"server {server!r} declared no roots when its session opened; declare them in"
                " the servers file (roots) to change them later"
            )
        session.roots = [_server_root(root) for root in roots]
        return self._portal.call(self._announce_roots, session)

    async def _announce_roots(self, session: _Session) -> bool:
        client = session.client
        if client is None or client.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS:
            return False
        # What Client.send_roots_list_changed sends, without its warning that roots are
        # deprecated as of 2026-07-28: this line is only reached on an older version.
        await client.session.send_notification(RootsListChangedNotification())
        return True

    def _session(self, server: str) -> _Session:
        session = self._sessions.get(server)
        if session is None:
            raise UnknownServerError(server, list(self._sessions))
        return session

    # -- discovery -------------------------------------------------------------------------

    def discover(self, *, fresh: bool = False, only: list[str] | None = None) -> Manifest:
        """Every server's offer. Cached per server unless ``fresh``; a list_changed
        notification or a re-opened session drops a server's cached part. A server whose
        listing failed gets that failure, fresh or not, until its back-off ends: a server
        that never stops paging would otherwise cost every request its thousand pages."""
        self._check_open()
        self._retry_signed_out()
        refresh = set(self._sessions) if fresh and only is None else set(only or []) if fresh else set()
        if not refresh and (cached := self._cached_manifest()) is not None:
            return cached
        # The caller's trace context goes with it: the portal's task does not inherit it.
        return self._portal.call(self._discover_all, refresh, current_context())

    def _cached_manifest(self) -> Manifest | None:
        """Every server's cached listing, read on the caller's thread, or None when any is
        missing. A warm request asks twice; the hop to the pool's loop would cost more than
        the answer. Each attribute read is atomic: a listing dropped by a notification at this
        moment is the same as one asked for just before it arrived."""
        servers: list[ServerManifest] = []
        for session in list(self._sessions.values()):
            failed = self._backing_off(session)
            if failed is not None:
                servers.append(failed)
                continue
            manifest = session.manifest
            if manifest is None or session.client is None:
                return None
            servers.append(manifest)
        return Manifest(servers=servers)

    async def _discover_all(self, refresh: set[str], carried: Context | None = None) -> Manifest:
        with attached(carried):
            return await self._discover_each(refresh)

    async def _discover_each(self, refresh: set[str]) -> Manifest:
        results: dict[str, ServerManifest] = {}

        async def one(session: _Session) -> None:
            failed = self._backing_off(session)
            if failed is not None:
                results[session.name] = failed
                return
            if session.name not in refresh and session.manifest is not None and session.client is not None:
                results[session.name] = session.manifest
                return
            results[session.name] = await self._listed(session)

        async with anyio.create_task_group() as group:
            for session in self._sessions.values():
                group.start_soon(one, session)
        return Manifest(servers=[results[name] for name in self._sessions])

    def _backing_off(self, session: _Session) -> ServerManifest | None:
        """The server's failed listing while its back-off lasts, else None (list it)."""
        failed = session.failed_listing
        return failed if failed is not None and self._clock() < session.listing_retry_at else None

    async def _listed(self, session: _Session) -> ServerManifest:
        """The server's listing, asked once however many requests want it at this moment."""
        under_way = session.listing
        if under_way is not None:
            await under_way.done.wait()
            if under_way.manifest is not None:
                return under_way.manifest
        listing = session.listing = _Listing()
        try:
            listing.manifest = await self._discover_one(session)
        finally:
            if session.listing is listing:
                session.listing = None
            listing.done.set()
        return listing.manifest

    def _listing_failed(self, session: _Session, manifest: ServerManifest) -> None:
        """Remember a failed listing until its back-off ends (doubling, capped)."""
        session.listing_failures += 1
        wait = self._listing_backoff * 2 ** min(session.listing_failures - 1, 32)
        session.listing_retry_at = self._clock() + min(wait, self._listing_backoff_cap)
        session.failed_listing = manifest

    async def _discover_one(self, session: _Session, *, again: bool = False) -> ServerManifest:
        log_to(server_log_path(self._log_dir, session.name))
        client = await self._usable_client(session)
        if client is None:
            error = session.error or ErrorInfo(kind="unavailable", message="no open session")
            session.last_listing = ServerManifest(name=session.name, ok=False, error=error)
            return session.last_listing
        collector = CapabilityCollector(session.name)
        declared = client.server_capabilities
        session.refused_status = None
        listings = _declared_listings(client, collector)
        found: dict[str, _ListedItems] = {}
        missing: dict[str, ErrorInfo] = {}
        timeout = self._timeout_for(session)
        peer = _peer_of(session)

        async def fetch(kind: str) -> None:
            started = time.perf_counter()
            error_type: str | None = None
            try:
                with anyio.fail_after(timeout), talking_to(peer):
                    found[kind] = await _all_pages(listings[kind][0], kind)
            except Exception as exc:
                error_type = error_from_exception(exc).kind
                gap = _optional_gap(session, kind, exc, timeout)
                if gap is None:
                    raise
                missing[kind] = gap
            finally:
                if peer is not None:
                    record_operation(
                        time.perf_counter() - started, peer, method=LIST_METHODS[kind], error_type=error_type
                    )

        try:
            # The listings go out together: one round trip's wait instead of four.
            async with anyio.create_task_group() as group:
                for kind in listings:
                    group.start_soon(fetch, kind)
        except Exception as exc:  # noqa: BLE001 - recorded on the manifest; other servers go on
            exc = _first_of_group(exc)
            error = _classify(session, exc)
            if error.kind in TRANSPORT_KINDS and error.kind != "timeout":
                await self._reopen(session)
                if not again and knows_unsent_requests(session.target):
                    # The server's process died under the listing or before it (the host had
                    # not yet read the end of its output): a listing is a read, so the restarted
                    # server is listed, once, rather than its tools reported gone (a reviewed
                    # call would be sent back to review as "no longer offered").
                    return await self._discover_one(session, again=True)
            failed = ServerManifest(name=session.name, ok=False, error=error)
            self._listing_failed(session, failed)
            session.last_listing = failed
            return failed
        session.failed_listing = None
        session.listing_failures = 0
        _collect(listings, found, collector)
        if "tools" in found and session.client is client:
            session.output_schemas = _output_schemas(found["tools"].items)
        server_info = client.server_info
        manifest = ServerManifest(
            name=session.name,
            ok=True,
            protocol_version=client.protocol_version,
            server_version=server_info.version if server_info else None,
            capabilities=with_notes(collector.capabilities, configured_notes(session.target)),
            rejected=collector.rejected,
            missing=[
                MissingMethod(method=LIST_METHODS[kind], error=error) for kind, error in missing.items()
            ],
            announces_changes=_announces_changes(declared),
            folders=configured_folders(session.target),
        )
        session.last_listing = manifest
        if session.client is client:
            session.manifest = manifest
        return manifest

    # -- calls -----------------------------------------------------------------------------

    def call_tool(self, server: str, name: str, arguments: dict[str, Any]) -> McpResult:
        def convert(raw: tuple[CallToolResult, str | None], ms: float) -> McpResult:
            return tool_result(server, name, raw[0], self._output_cap, ms, untrusted_reason=raw[1])

        # Read here, on the caller's thread (the portal's task does not inherit its context).
        approval = current_approval()
        return self._call(
            server,
            "tool",
            name,
            lambda client: self._checked_call(server, client, name, arguments, approval),
            convert,
        )

    async def _checked_call(
        self,
        server: str,
        client: Client,
        name: str,
        arguments: dict[str, Any],
        approval: CallApproval | None = None,
    ) -> tuple[CallToolResult, str | None]:
        """The tool's result and, for a successful one, why its structured content breaks the
        tool's declared output schema (None when it keeps it): such output is kept, marked.
        With an ``approval`` the request carries its signed grant, made now, for this session's
        server (a re-opened session may announce another name)."""
        session = self._sessions[server]
        meta = request_meta(
            self._signer, approval, server=server, announced=session.verifies, tool=name, arguments=arguments
        )
        result = await client.call_tool(name, arguments, meta=cast("RequestParamsMeta", meta))
        if result.is_error:
            return result, None
        schema = await self._output_schema(self._sessions[server], client, name)
        return result, output_problem(name, schema, result.structured_content)

    async def _output_schema(self, session: _Session, client: Client, name: str) -> dict[str, Any] | None:
        """The output schema ``name`` declared on this connection, listing the tools first when
        they were not listed on it yet (a call made before any discovery)."""
        schemas = session.output_schemas
        if schemas is None or name not in schemas:
            schemas = _output_schemas((await _all_pages(client.list_tools, "tools")).items)
            if session.client is client:
                session.output_schemas = schemas
        return schemas.get(name)

    def read_resource(self, server: str, uri: str) -> McpResult:
        return self._call(
            server,
            "resource",
            uri,
            lambda client: client.read_resource(uri),
            lambda raw, ms: resource_result(server, uri, raw, self._output_cap, ms, "resource"),
        )

    def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> McpResult:
        return self._call(
            server,
            "prompt",
            name,
            lambda client: client.get_prompt(name, arguments),
            lambda raw, ms: prompt_result(server, name, raw, self._output_cap, ms),
        )

    def _call(
        self,
        server: str,
        capability_type: str,
        name: str,
        send: Callable[[Client], Awaitable[_T]],
        convert: Callable[[_T, float], McpResult],
    ) -> McpResult:
        self._check_open()
        session = self._sessions.get(server)
        if session is None:
            raise UnknownServerError(server, list(self._sessions))
        started = time.perf_counter()
        session.refused_status = None
        peer = _peer_of(session)
        result = self._result_of(session, capability_type, name, send, convert, peer, started)
        if peer is not None:
            method = CALL_METHODS[capability_type]
            record_operation(
                time.perf_counter() - started,
                peer,
                method=method,
                target=name if method != "resources/read" else None,
                error_type=result.error.kind if result.error is not None else None,
            )
        return result

    def _result_of(
        self,
        session: _Session,
        capability_type: str,
        name: str,
        send: Callable[[Client], Awaitable[_T]],
        convert: Callable[[_T, float], McpResult],
        peer: Attributes | None,
        started: float,
    ) -> McpResult:
        server = session.name
        try:
            # Read here, on the caller's thread: the portal's task does not inherit its context
            # (who the call is for, and the trace it belongs to).
            raw = self._portal.call(self._bounded, session, send, call_owner(), current_context(), peer)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a classified result
            return McpResult.failure(server, capability_type, name, _classify(session, exc))
        if raw is None:
            # No open session to send it on: the request never left the host.
            error = session.error or ErrorInfo(kind="unavailable", message="no open session")
            unsent = error.model_copy(update={"sent": False, "may_have_run": False})
            return McpResult.failure(server, capability_type, name, unsent)
        return convert(raw, (time.perf_counter() - started) * 1000)

    def call_time_limit(self, server: str) -> float:
        """How long a call to ``server`` may take, in seconds (its ``timeout``, or the pool's):
        recorded with a reviewed call's start, so a sweep in another process knows when the
        call is past it (reviews/ledger.py). The clock stands still while a person answers the
        server, so a call may outlast it by that long."""
        session = self._sessions.get(server)
        return self._timeout_for(session) if session is not None else self._call_timeout

    def _timeout_for(self, session: _Session) -> float:
        configured = getattr(session.target, "timeout", None)
        return float(configured) if isinstance(configured, int | float) else self._call_timeout

    async def _bounded(
        self,
        session: _Session,
        send: Callable[[Client], Awaitable[_T]],
        owner: CallOwner | None = None,
        carried: Context | None = None,
        peer: Attributes | None = None,
        *,
        again: bool = False,
    ) -> _T | None:
        log_to(server_log_path(self._log_dir, session.name))
        client = await self._usable_client(session)
        if client is None:
            return None
        writes = None
        try:
            with session.clocks.bounded(self._timeout_for(session)), tracked_writes() as writes:
                call = _InFlight(owner)
                session.in_flight.append(call)
                token = _current_call.set(call)
                try:
                    with attached(carried), talking_to(peer):
                        return await send(client)
                finally:
                    _current_call.reset(token)
                    session.in_flight.remove(call)
        except Exception as exc:
            # A dead transport: have the keeper re-open it for the next call. This call is
            # not repeated here: it may have reached the server before the connection broke.
            if error_from_exception(exc).kind == "unavailable":
                failure = session.transport_failure
                why = session.error
                await self._reopen(session)
                if failure is not None:
                    # Why the connection ended, read before the re-opened one clears it.
                    raise failure from exc
                if writes is not None and writes.written == 0 and knows_unsent_requests(session.target):
                    # The connection was gone before the request was written: it did not run.
                    # It is made once on the re-opened session, as it would have been had the
                    # host read the end of the server's output a moment earlier.
                    if not again:
                        return await self._bounded(session, send, owner, carried, peer, again=True)
                    said = why.message if why is not None else "the connection to the server was closed"
                    raise RequestNotSentError(session.name, said) from exc
            raise

    def _check_open(self) -> None:
        if self._closed:
            raise ClientClosedError("the MCP client is closed")


def _peer_of(session: _Session) -> Attributes | None:
    """The server as telemetry names it (telemetry/mcp.py), or None while nothing records."""
    if not observed():
        return None
    url = session.target.url if isinstance(session.target, HttpServer) else None
    return server_attributes(session.name, url=url, protocol_version=session.protocol_version)


def _shown_path(path: Path | None) -> str | None:
    return str(path) if path is not None else None


def _server_root(root: ServerRoot | str | Path) -> ServerRoot:
    if isinstance(root, ServerRoot):
        return root
    path = Path(root)
    if not path.is_absolute():
        raise ValueError(f"a root must be an absolute folder, not {str(root)!r}")
    return ServerRoot(path=str(path.resolve()))


def _sdk_root(root: ServerRoot) -> Root:
    return Root.model_validate({"uri": root.uri, "name": root.name})


def _status_recorder(session: _Session) -> Callable[[int | None], None]:
    def record(status: int | None) -> None:
        session.refused_status = status

    return record


def _sign_in_recorder(session: _Session) -> Callable[[BaseException | None], None]:
    def record(failure: BaseException | None) -> None:
        session.sign_in_failure = failure

    return record


def _classify(session: _Session, exc: BaseException) -> ErrorInfo:
    failure = session.sign_in_failure
    if isinstance(failure, SignInRequired):
        return ErrorInfo(kind="auth", message=str(failure))
    if failure is not None:
        return ErrorInfo(kind="auth", message=f"signing in failed: {failure}")
    if session.refused_status == 401 and _has_no_credentials(session.target):
        return ErrorInfo(
            kind="auth",
            message=f"{session.name} needs sign-in (HTTP 401) and OAuth is off for it: "
            'add an Authorization header to its entry or remove "oauth": false',
        )
    if session.refused_status is not None:
        return ErrorInfo(
            kind="auth", message=f"the server refused the credentials (HTTP {session.refused_status})"
        )
    info = error_from_exception(exc)
    if info.kind == "unavailable" and session.transport_failure is not None:
        # The connection ended because the transport refused a message: say so, not "closed".
        return error_from_exception(session.transport_failure)
    return info


def _has_no_credentials(target: ServerTarget) -> bool:
    return isinstance(target, HttpServer) and not target.headers


def _mark_dead(session: _Session) -> None:
    """Stop lending out a dead session and wake its keeper to re-open it (once, however many
    noticed: a failed call, the transport seeing the server end it)."""
    if session.settled is not None and session.settled.is_set() and session.client is not None:
        session.settled = anyio.Event()
        session.client = None
        if session.wake is not None:
            session.wake.set()


def _end_recorder(session: _Session) -> Callable[[str], None]:
    """What the stdio transport tells when the server ended the session: the session shows as
    not connected, with why, at once, and its keeper re-opens it (or gives up) as for any
    other end; a call meanwhile waits for the re-opened session instead of failing on this one."""

    def record(why: str) -> None:
        if session.stopping:
            return
        session.ended = ErrorInfo(kind="unavailable", message=why)
        session.error = session.ended
        _mark_dead(session)

    return record


def _noise_recorder(session: _Session) -> Callable[[str], None]:
    """Keeps the first line a stdio server wrote on stdout that is not JSON-RPC."""

    def record(line: str) -> None:
        if session.stdout_noise is None:
            session.stdout_noise = line

    return record


def _oversize_recorder(session: _Session) -> Callable[[MessageTooLargeError], None]:
    def record(failure: MessageTooLargeError) -> None:
        session.transport_failure = failure

    return record


def _output_schemas(tools: Sequence[Any]) -> dict[str, dict[str, Any] | None]:
    return {tool.name: dict(tool.output_schema) if tool.output_schema else None for tool in tools}


async def _no_sdk_output_check(name: str, result: CallToolResult) -> None:
    """Stands in for the SDK's output-schema check: the host checks (mcp_host/output_schema.py)."""


def _skip_sdk_output_check(client: Client) -> None:
    """Turn off the SDK's own check of structured content against the tool's output schema.

    The SDK raises on output that breaks the schema, and the result is lost with it; the host
    keeps such output, marked untrusted, for a reviewer to see (its own check, in _checked_call).
    mcp 2.3 offers no switch for this (modelcontextprotocol/python-sdk#2626 asks for one; the
    pull requests adding a ``validate_output`` flag were closed unmerged), and every path that
    checks (ClientSession.call_tool and Client.call_tool's claimed results) goes through the
    session's public ``validate_tool_result``: it is replaced by a no-op, and nothing of what
    it raised or said is read. When the SDK grows a switch, this is the one line to change.
    """
    client.session.validate_tool_result = _no_sdk_output_check  # type: ignore[method-assign]


def _optional_gap(session: _Session, kind: str, exc: Exception, timeout: float) -> ErrorInfo | None:
    """How an optional listing failed, when its failure costs only that listing; None when it
    fails the server: the tools listing, a refused sign-in, a connection that is gone."""
    if kind not in OPTIONAL_LISTINGS:
        return None
    error = _classify(session, _first_of_group(exc))
    if error.kind == "timeout":
        return ErrorInfo(kind="timeout", message=f"no answer within {timeout:g} s")
    return error if error.kind in {"protocol", "invalid_params"} else None


def _first_of_group(exc: Exception) -> Exception:
    """The error inside a task group's ExceptionGroup (the listings run in one), else itself."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        inner = exc.exceptions[0]
        if not isinstance(inner, Exception):
            break
        exc = inner
    return exc


def _announces_changes(declared: Any) -> bool:
    """Whether the server promises list_changed notifications for everything it lists."""
    kinds = [declared.tools, declared.resources, declared.prompts]
    offered = [kind for kind in kinds if kind is not None]
    return bool(offered) and all(getattr(kind, "list_changed", False) for kind in offered)


@dataclass(frozen=True)
class _ListedItems:
    """A listing's first MAX_LISTED_PER_KIND items, and whether the server offered more."""

    items: list[Any]
    more: bool


def _cut_note(kind: str) -> str:
    """The manifest's note for a listing cut at MAX_LISTED_PER_KIND."""
    what = kind.replace("_", " ")
    return (
        f"{what} listing has more than {MAX_LISTED_PER_KIND:,} entries: only the first "
        f"{MAX_LISTED_PER_KIND:,} are used, the rest are ignored"
    )


async def _all_pages(fetch: Callable[..., Awaitable[Any]], field_name: str) -> _ListedItems:
    """The items of a paginated listing, up to MAX_LISTED_PER_KIND; only a missing
    next_cursor ends it before that."""
    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_LIST_PAGES):
        page = await fetch(cursor=cursor)
        items.extend(getattr(page, field_name))
        cursor = page.next_cursor
        if len(items) > MAX_LISTED_PER_KIND:
            # Enough: the rest is neither fetched nor kept (one page is at most one message).
            return _ListedItems(items[:MAX_LISTED_PER_KIND], more=True)
        if cursor is None:
            return _ListedItems(items, more=False)
        if cursor in seen:
            raise PaginationError(f"{field_name} listing repeated cursor {cursor!r}")
        seen.add(cursor)
    raise PaginationError(f"{field_name} listing exceeded {MAX_LIST_PAGES} pages")


# Per kind of listing: how to ask for a page, and what to do with each item listed.
_Listings = dict[str, tuple[Callable[..., Awaitable[Any]], Callable[[Any], None]]]


def _declared_listings(client: Client, collector: CapabilityCollector) -> _Listings:
    """The listings to ask for: only what the server declares (others answer "Method not
    found")."""
    declared = client.server_capabilities
    listings: _Listings = {}
    if declared.tools is not None:
        listings["tools"] = (client.list_tools, collector.add_tool)
    if declared.resources is not None:
        listings["resources"] = (client.list_resources, collector.add_resource)
        listings["resource_templates"] = (client.list_resource_templates, collector.add_template)
    if declared.prompts is not None:
        listings["prompts"] = (client.list_prompts, collector.add_prompt)
    return listings


def _collect(listings: _Listings, found: dict[str, _ListedItems], collector: CapabilityCollector) -> None:
    """The items ``found``, added in a fixed order whatever answered first; a listing cut short
    is noted."""
    for kind, (_, add) in listings.items():
        if kind not in found:
            continue
        for item in found[kind].items:
            add(item)
        if found[kind].more:
            collector.rejected.append(_cut_note(kind))
