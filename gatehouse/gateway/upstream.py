"""The `gatehouse serve` endpoint a stdio bridge forwards to (bridge.py): where it is, the token
it is called with, and one forwarded request at a time over Streamable HTTP with the SDK's
client, its failures turned into errors a person can act on.

The token comes from the environment (``GATEHOUSE_TOKEN``), never the command line, which
anyone on the machine can read (`ps`); plain http is refused to anything but this machine, where
the token would cross a network in clear.

Each request gets a client of its own, as each stands alone at the stateless endpoint: a
failed or cancelled one leaves nothing behind for the next, and a gateway restarted in between
is simply reached again. The handshake is done once and reused (``prior_discover``), so a
forwarded request costs one HTTP exchange; the connections are pooled in one HTTP client.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR
from pydantic import BaseModel, ConfigDict

from gatehouse.errors import ConfigurationError
from gatehouse.settings import BRIDGE_TOKEN_ENV

_LOOPBACK_NAMES = ("localhost",)
# Connecting and sending are bounded; reading is not: a call may wait for a reviewer as long
# as the gateway lets it (with progress, or silently), and the client that asked can cancel.
_HTTP_TIMEOUT = httpx2.Timeout(30.0, read=None)
_BRIDGE = types.Implementation(name="gatehouse-bridge", version="")

logger = logging.getLogger(__name__)

# The HTTP statuses of the exchange under way, per forwarded request: the SDK turns a 401 into
# a generic JSON-RPC error, and the status is the only sign that the token was refused. The
# SDK's transport runs in tasks started from the forwarding one, so they see its list.
_statuses: ContextVar[list[int] | None] = ContextVar("gatehouse_bridge_statuses", default=None)


async def _watch(response: httpx2.Response) -> None:
    statuses = _statuses.get()
    if statuses is not None:
        statuses.append(response.status_code)


@contextmanager
def _watching() -> Iterator[list[int]]:
    statuses: list[int] = []
    reset = _statuses.set(statuses)
    try:
        yield statuses
    finally:
        _statuses.reset(reset)


class _AsSent(BaseModel):
    """A forwarded result as the gateway wrote it, every field kept as it came: the stdio side
    validates it for its own client's protocol version, and nothing here drops a field it does
    not know."""

    model_config = ConfigDict(extra="allow")


@dataclass(frozen=True)
class Endpoint:
    url: str
    token: str


def endpoint_from(url: str, environ: Mapping[str, str]) -> Endpoint:
    """The endpoint to forward to, or a ConfigurationError naming what is wrong (exit 2)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(
            f"bridge URL {url!r}: not an http(s) address of Gatehouse's MCP endpoint "
            "(for example http://127.0.0.1:8765/mcp)"
        )
    if parts.scheme == "http" and not _is_loopback(parts.hostname):
        raise ConfigurationError(
            f"bridge URL {url}: plain http to {parts.hostname}, another machine, would send the token "
            "across the network in clear; use https"
        )
    token = environ.get(BRIDGE_TOKEN_ENV, "").strip()
    if not token:
        raise ConfigurationError(
            f"{BRIDGE_TOKEN_ENV} is not set: the bridge calls {url} with the token it holds. Issue one with "
            "`gatehouse tokens issue USER` and set it in this command's environment (the env of the "
            "client's server entry), never on its command line"
        )
    return Endpoint(url=url, token=token)


def _is_loopback(host: str) -> bool:
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Upstream:
    """The gateway as the bridge knows it: what its handshake said, and how to reach it."""

    def __init__(self, endpoint: Endpoint, http: httpx2.AsyncClient) -> None:
        self.endpoint = endpoint
        self._http = http
        # The gateway's answer to the first handshake that got through; None until one did.
        self._handshake: types.DiscoverResult | types.InitializeResult | None = None
        self._version = ""
        self.instructions: str | None = None
        self.server_info: types.Implementation | None = None
        self.capabilities: types.ServerCapabilities | None = None

    async def greet(self) -> str | None:
        """Do the handshake now, for what the gateway offers and says; None when it got
        through, else why not (the bridge starts anyway, and tries again on each request)."""
        with _watching() as statuses:
            try:
                async with self._session(_BRIDGE):
                    return None
            except Exception as exc:  # noqa: BLE001 - whatever failed, the bridge starts and says why
                return self.failure(exc, statuses).message

    async def send(
        self,
        request: types.Request[Any, Any],
        *,
        client_info: types.Implementation | None,
        progress: ProgressFnT | None,
    ) -> dict[str, Any]:
        """One request, forwarded as it came; the gateway's result as it was sent. Its JSON-RPC
        error is raised as it was sent too; a refused token or an unreachable gateway raises
        an MCPError saying so."""
        with _watching() as statuses:
            try:
                async with self._session(client_info or _BRIDGE) as client:
                    result = await client.session.send_request(request, _AsSent, progress_callback=progress)
            except Exception as exc:  # noqa: BLE001 - each failure is an answer: the client reads why
                raise self.failure(exc, statuses) from None
        return result.model_dump()

    @asynccontextmanager
    async def _session(self, client_info: types.Implementation) -> AsyncIterator[Client]:
        transport = streamable_http_client(self.endpoint.url, http_client=self._http)
        # No response cache: the client on the other side of the bridge keeps its own.
        if isinstance(self._handshake, types.DiscoverResult):
            client = Client(
                transport,
                mode=self._version,
                prior_discover=self._handshake,
                client_info=client_info,
                cache=None,
            )
        else:
            mode = "auto" if self._handshake is None else "legacy"
            client = Client(transport, mode=mode, client_info=client_info, cache=None)
        async with client:
            if self._handshake is None:
                self._learn(client)
            yield client

    def _learn(self, client: Client) -> None:
        session = client.session
        self._handshake = session.discover_result or session.initialize_result
        self._version = client.protocol_version
        self.instructions = client.instructions
        self.server_info = client.server_info
        self.capabilities = client.server_capabilities

    def failure(self, exc: Exception, statuses: list[int]) -> MCPError:
        """What a forwarded request that raised ``exc`` answers the client with."""
        url = self.endpoint.url
        if 401 in statuses:
            return MCPError(
                INTERNAL_ERROR,
                f"Gatehouse at {url} refused the bridge's token (HTTP 401): it is unknown, expired or "
                f"revoked. Ask for a new one (`gatehouse tokens issue USER`) and set it as {BRIDGE_TOKEN_ENV} "
                "in this server's entry.",
            )
        leaves = list(_leaves(exc))
        for leaf in leaves:
            if isinstance(leaf, MCPError):
                return leaf
        for leaf in leaves:
            if isinstance(leaf, httpx2.TransportError):
                reason = str(leaf) or type(leaf).__name__
                return MCPError(INTERNAL_ERROR, f"Gatehouse's MCP endpoint {url} cannot be reached: {reason}")
        text = f"The bridge failed forwarding to {url}: {type(exc).__name__}: {exc}"
        logger.error(text)  # one line on stderr, as the command line reports an unexpected error
        return MCPError(INTERNAL_ERROR, text)


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions inside the SDK's task groups' groups, in order."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc


def http_client(endpoint: Endpoint) -> httpx2.AsyncClient:
    """The HTTP client every forwarded request goes through, the token on each."""
    return httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {endpoint.token}"},
        timeout=_HTTP_TIMEOUT,
        event_hooks={"response": [_watch]},
    )
