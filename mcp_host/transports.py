"""Turn a configured server into something the SDK's Client connects to.

Remote servers go through the SDK's streamable_http_client and in-process servers (tests) are
handed to the SDK's Client as they are; local processes go through the host's own stdio
transport (mcp_host/stdio_transport.py), which reads each message once and caps its size.
A stdio server's environment is built here and nowhere else: the SDK's short list of safe
variables (PATH, HOME, ...) plus LANG, plus exactly what the entry names; never the host's
whole environment, where the host's own secrets live.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import httpx2
from mcp import StdioServerParameters
from mcp.client._transport import TransportStreams
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.mcpserver import MCPServer

from mcp_host.config import HttpServer, ServerEntry, StdioServer
from mcp_host.errors import MessageTooLargeError
from mcp_host.results import DEFAULT_MESSAGE_CAP_BYTES
from mcp_host.server_logs import server_log_path, start_line
from mcp_host.stdio_transport import EndListener, NoiseListener, OversizeListener, capped_stdio_client

ServerTarget = MCPServer | Server[Any] | StdioServerParameters | str | ServerEntry
"""What a pool can connect to: a configured entry, SDK stdio parameters, a Streamable HTTP
URL, or an in-process server instance (tests and embedding)."""

# Beyond the SDK's inherited list: a locale, so servers decode file names and text the same
# way the operator's shell does.
_EXTRA_BASE_VARIABLES = ("LANG",)
_HTTP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)


def server_environment(entry_env: dict[str, str]) -> dict[str, str]:
    base = {name: os.environ[name] for name in _EXTRA_BASE_VARIABLES if name in os.environ}
    return base | entry_env


def stdio_parameters(entry: StdioServer) -> StdioServerParameters:
    env = server_environment({key: value.get_secret_value() for key, value in entry.env.items()})
    return StdioServerParameters(command=entry.command, args=entry.args, env=env, cwd=entry.cwd)


StatusListener = Callable[[int | None], None]
"""Told the status of every refusal (401/403), and None when a later response got through: an
OAuth flow meets a 401 on its way to a token, so only the last word counts."""
_AUTH_STATUSES = frozenset({401, 403})


@asynccontextmanager
async def _http_transport(
    url: str, headers: dict[str, str], on_auth_failure: StatusListener | None, auth: httpx2.Auth | None = None
) -> AsyncIterator[TransportStreams]:
    async def watch(response: httpx2.Response) -> None:
        # The SDK turns an HTTP 401/403 into a generic JSON-RPC error; the status is the only
        # sign that the credentials were refused, so it is passed on before it is lost.
        if on_auth_failure is None:
            return
        if response.status_code in _AUTH_STATUSES:
            on_auth_failure(response.status_code)
        elif response.status_code < 400:
            on_auth_failure(None)

    async with (
        httpx2.AsyncClient(
            headers=headers, timeout=_HTTP_TIMEOUT, event_hooks={"response": [watch]}, auth=auth
        ) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


@asynccontextmanager
async def _stdio_transport(
    name: str,
    parameters: StdioServerParameters,
    log_path: Path | None,
    message_cap_bytes: int,
    on_oversize: OversizeListener | None,
    on_end: EndListener | None = None,
    on_noise: NoiseListener | None = None,
) -> AsyncIterator[TransportStreams]:
    # A server's stderr is its log: kept in a file per server, not mixed into the host's output.
    log: TextIO | None = None
    if log_path is not None:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log = log_path.open("a", encoding="utf-8")
        log.write(start_line([parameters.command, *parameters.args]))
        log.flush()
    try:
        async with capped_stdio_client(
            name,
            parameters,
            max_message_bytes=message_cap_bytes,
            on_oversize=on_oversize or _ignore_oversize,
            errlog=log,
            on_end=on_end,
            on_noise=on_noise,
        ) as streams:
            yield streams
    finally:
        if log is not None:
            log.close()


def _ignore_oversize(failure: MessageTooLargeError) -> None:
    """For callers that only need the session to end (the calls fail either way)."""


def client_target(
    name: str,
    target: ServerTarget,
    log_dir: Path | None,
    on_auth_failure: StatusListener | None = None,
    auth: httpx2.Auth | None = None,
    *,
    message_cap_bytes: int = DEFAULT_MESSAGE_CAP_BYTES,
    on_oversize: OversizeListener | None = None,
    on_end: EndListener | None = None,
    on_noise: NoiseListener | None = None,
) -> Any:
    """The value to hand to ``mcp.Client`` for one server; ``auth`` signs a remote server's
    requests (mcp_host/oauth.py). A stdio server's messages are read up to
    ``message_cap_bytes`` each; ``on_oversize`` hears of one that was longer
    (mcp_host/stdio_transport.py), ``on_end`` why the server ended its session, and
    ``on_noise`` each line on its stdout that is not JSON-RPC."""
    log_path = server_log_path(log_dir, name)
    if isinstance(target, StdioServer):
        return _stdio_transport(
            name, stdio_parameters(target), log_path, message_cap_bytes, on_oversize, on_end, on_noise
        )
    if isinstance(target, StdioServerParameters):
        return _stdio_transport(name, target, log_path, message_cap_bytes, on_oversize, on_end, on_noise)
    if isinstance(target, HttpServer):
        headers = {key: value.get_secret_value() for key, value in target.headers.items()}
        return _http_transport(target.url, headers, on_auth_failure, auth)
    if isinstance(target, str):
        return _http_transport(target, {}, on_auth_failure)
    return target


def knows_unsent_requests(target: ServerTarget) -> bool:
    """Whether the transport tells which requests reached the server (``tracked_writes``): the
    host's own stdio transport does; over HTTP, or the SDK's transport on Windows, a request
    that failed with the connection may have been sent."""
    return isinstance(target, StdioServer | StdioServerParameters) and sys.platform != "win32"


def is_restartable(target: ServerTarget) -> bool:
    """Sessions the pool re-opens when they die: processes and remote connections."""
    return isinstance(target, StdioServer | StdioServerParameters | HttpServer | str)
