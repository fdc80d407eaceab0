"""One taxonomy for everything that can go wrong between the host and an MCP server.

Both shapes of MCP failure (a JSON-RPC error and a tool result with ``is_error``) and the
transport's own failures map onto the same small set of kinds, so the graph can route on
the kind without knowing which server, transport or SDK path produced it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

# The family's base is drawn with the rest of the hierarchy (mcp_host/reported.py).
from mcp_host.reported import McpHostError as McpHostError

ErrorKind = Literal["unavailable", "timeout", "protocol", "invalid_params", "auth", "tool_error"]

# Kinds worth another attempt on another capability. Auth failures are never retried: a
# second try with the same credentials cannot succeed and may lock an account.
RECOVERABLE_KINDS: frozenset[ErrorKind] = frozenset({"unavailable", "timeout", "tool_error"})
TRANSPORT_KINDS: frozenset[ErrorKind] = frozenset({"unavailable", "timeout"})


class ErrorInfo(BaseModel):
    """A failure as the host reports it: the kind routes, the message explains."""

    model_config = ConfigDict(frozen=True)

    kind: ErrorKind
    message: str
    # The request was sent and then the answer was lost (a timeout, the connection or the
    # server died): the call may have taken effect. False only when it cannot have.
    may_have_run: bool = False
    # False when the host knows the request never left it (no open session, or the transport
    # was closed before the request was written): the call did not run at all.
    sent: bool = True

    @property
    def recoverable(self) -> bool:
        return self.kind in RECOVERABLE_KINDS


class UnknownServerError(McpHostError):
    """A call named a server that is not configured."""

    def __init__(self, server: str, known: list[str]) -> None:
        listed = ", ".join(sorted(known)) or "none"
        super().__init__(f"unknown MCP server {server!r}; configured servers: {listed}")
        self.server = server


class ClientClosedError(McpHostError):
    """The client was used after close()."""


class RequestNotSentError(McpHostError):
    """A call whose request never reached the server: its connection was gone before the
    request was written (mcp_host/stdio_transport.py, tracked_writes)."""

    def __init__(self, server: str, why: str) -> None:
        super().__init__(f"{why}; the request to {server!r} was not sent")
        self.server = server


class PaginationError(McpHostError):
    """A server's listing never ends (a repeated cursor, or more pages than any real server has)."""


class MessageTooLargeError(McpHostError):
    """A server sent one message longer than the host reads (mcp_host/stdio_transport.py)."""

    def __init__(self, server: str, limit: int, *, session_closed: bool = False) -> None:
        then = (
            "; the host closed the session, which is opened again for the next call"
            if session_closed
            else "; the host discarded it unread"
        )
        super().__init__(
            f"server {server!r} sent a message longer than the limit of {limit} bytes per message{then}"
        )
        self.server = server
        self.limit = limit


# JSON-RPC codes the SDK uses (mcp_types.jsonrpc); repeated here as plain ints so this module
# stays importable without the SDK and the mapping reads as one table.
_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001
_INVALID_PARAMS = -32602
# The host's own code, in JSON-RPC's implementation-defined range: the error the stdio transport
# answers a call with when its response was over the per-message cap (mcp_host/stdio_transport.py).
MESSAGE_TOO_LARGE = -32097
_HTTP_AUTH_STATUSES = (401, 403)


def first_leaf(exc: BaseException) -> BaseException:
    """The first error inside task groups' ExceptionGroups (the SDK wraps failures in them): the
    one that explains; ``exc`` itself when it is no group."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def error_from_exception(exc: BaseException) -> ErrorInfo:
    """Map whatever an SDK call raised onto the taxonomy, keeping its message."""
    from mcp import MCPError  # local: keeps the taxonomy itself free of the SDK
    from pydantic import ValidationError

    exc = first_leaf(exc)
    message = str(exc) or type(exc).__name__
    if isinstance(exc, TimeoutError):
        text = message if str(exc) else "the call timed out"
        return ErrorInfo(kind="timeout", message=text, may_have_run=True)
    if isinstance(exc, MCPError):
        if exc.code == _REQUEST_TIMEOUT:
            return ErrorInfo(kind="timeout", message=message, may_have_run=True)
        if exc.code == _CONNECTION_CLOSED:
            return ErrorInfo(kind="unavailable", message=message, may_have_run=True)
        if exc.code == _INVALID_PARAMS:
            return ErrorInfo(kind="invalid_params", message=message)
        if exc.code == MESSAGE_TOO_LARGE:
            # The tool ran: its answer is what was refused.
            return ErrorInfo(kind="protocol", message=message, may_have_run=True)
        return ErrorInfo(kind="protocol", message=f"{message} (JSON-RPC error {exc.code})")
    status = getattr(getattr(exc, "response", None), "status_code", None)
    if status in _HTTP_AUTH_STATUSES:
        return ErrorInfo(kind="auth", message=f"the server refused the credentials (HTTP {status})")
    if isinstance(exc, (ValidationError, PaginationError)):
        return ErrorInfo(kind="protocol", message=f"malformed response: {message}")
    if isinstance(exc, MessageTooLargeError):
        # The tool ran: its answer is what was refused.
        return ErrorInfo(kind="protocol", message=message, may_have_run=True)
    if isinstance(exc, RequestNotSentError):
        return ErrorInfo(kind="unavailable", message=message, sent=False)
    sent = not _never_sent(exc)
    return ErrorInfo(
        kind="unavailable", message=f"{type(exc).__name__}: {message}", may_have_run=sent, sent=sent
    )


def _never_sent(exc: BaseException) -> bool:
    """Failures that happen before a request leaves the host: the stream to the server was
    already closed, or no connection could be made. Anything else may have reached it."""
    import anyio
    import httpx

    return isinstance(
        exc,
        anyio.ClosedResourceError | anyio.BrokenResourceError | httpx.ConnectError | ConnectionRefusedError,
    )
