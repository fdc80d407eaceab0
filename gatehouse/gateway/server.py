"""The MCP server `gatehouse serve` runs: Streamable HTTP, stateless (every request stands
alone, so several processes can serve one address and MCP 2026-07-28 clients and 2025-11-25
ones are both served, by the SDK's dual-era loop), every request authenticated by a bearer
token Gatehouse issued (gatehouse/credentials/access_tokens.py) or, where one is configured, an
authorization server did, and held to its caller's rate limit (door.py).

The SDK's own pieces do the HTTP work, as its streamable_http_app assembles them for a
resource server: its bearer-token backend asks this module's verifier (and door.py's for an
authorization server's tokens), and a request without a valid token is answered 401 with
``WWW-Authenticate: Bearer`` before any MCP message is read.
The person the token names is the caller: the requester of whatever the call opens. Gatehouse's
services are synchronous (the graph, the stores): each handler runs them on a worker thread,
never on the event loop.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Route

from gatehouse.gateway import tasks
from gatehouse.gateway.background import BackgroundRuns
from gatehouse.gateway.changes import ChangeFeed
from gatehouse.gateway.client_calls import ClientCalls
from gatehouse.gateway.client_reach import ClientReaches
from gatehouse.gateway.door import door
from gatehouse.gateway.offer import serve_offer
from gatehouse.gateway.review_watch import ReviewWatch
from gatehouse.gateway.tool_calls import ToolCalls
from gatehouse.gateway.waits import DEFAULT_WAIT_SECONDS

if TYPE_CHECKING:
    import uvicorn
    from starlette.types import ASGIApp

    from gatehouse.credentials.access_tokens import AccessTokenStore
    from gatehouse.gateway.resource_server import OAuthResource
    from gatehouse.wiring import Services

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"
_LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


class StoredTokens:
    """The SDK's TokenVerifier over Gatehouse's token table: the token's person is the caller."""

    def __init__(self, store: AccessTokenStore) -> None:
        self._store = store

    async def verify_token(self, token: str) -> AccessToken | None:
        record = await anyio.to_thread.run_sync(self._store.verify, token)
        if record is None:
            return None
        return AccessToken(
            token=token,
            client_id=record.user,
            subject=record.user,
            scopes=[],
            expires_at=int(record.expires_at.timestamp()),
            claims={"token_id": record.id},
        )


def _caller() -> str:
    token = get_access_token()
    # RequireAuthMiddleware answers 401 before a handler runs without one: never reached.
    assert token is not None, "an MCP request reached a handler without a verified token"
    return token.client_id


def _client_name(ctx: ServerRequestContext[Any]) -> str | None:
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    return f"{info.name} {info.version}".strip() if info is not None and info.name else None


def mcp_server(
    services: Services,
    calls: ClientCalls,
    watch: ReviewWatch,
    feed: ChangeFeed | None = None,
    *,
    runs: BackgroundRuns,
    reaches: ClientReaches,
    wait_seconds: float = DEFAULT_WAIT_SECONDS,
) -> Server[Any]:
    """The low-level SDK server whose handlers call Gatehouse's services. A call that waits for a
    reviewer answers with a task handle to a client that declared the tasks extension, and
    otherwise waits in the request for up to ``wait_seconds``; a server's question during a call
    is put to a client that can be asked (gatehouse/gateway/tool_calls.py; calls run on
    ``runs``, their clients' reach kept in ``reaches``). ``feed`` carries the list changes its
    listening clients hear (the app's lifespan follows the services with it); without one,
    ``subscriptions/listen`` is not served and clients are told nothing changes."""

    tool_calls = ToolCalls(services, calls, watch, runs, reaches, wait_seconds)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult | dict[str, Any]:
        return await tool_calls.answer(ctx, params, requester=_caller(), client=_client_name(ctx))

    server: Server[Any] = Server(
        "gatehouse",
        instructions=(
            "Gatehouse offers its configured MCP servers' tools, resources and prompts under server__name "
            "keys, those your role may use. Every call is checked against Gatehouse's policy: allowed calls "
            "run, refused ones say why, and calls that need a person wait for a reviewer (with the tasks "
            "extension, as a task; otherwise in the call, with progress, up to a limit; calling again with "
            "the same arguments keeps waiting)."
        ),
    )
    serve_offer(server, services, feed, caller=_caller, client_name=_client_name)
    # Registered as a plain handler: a call may answer with the tasks extension's result shape
    # (CreateTaskResult), which the typed on_call_tool slot does not describe.
    server.add_request_handler("tools/call", types.CallToolRequestParams, call_tool)
    tasks.add_task_methods(server, services, calls, _caller)
    return server


def gateway_app(
    services: Services,
    tokens: AccessTokenStore,
    *,
    host: str = "127.0.0.1",
    wait_seconds: float = DEFAULT_WAIT_SECONDS,
    oauth: OAuthResource | None = None,
    tell: Callable[[str], None] = log.warning,
) -> Starlette:
    """The ASGI application: ``/mcp`` behind bearer tokens (Gatehouse's, and ``oauth``'s
    authorization server's when configured) and each caller's rate limit (gateway/door.py),
    stateless Streamable HTTP. ``tell`` says each server's question it declines (its client
    cannot be asked)."""
    security = None
    if host in _LOCAL_HOSTS:
        # As the SDK does for a local address: no other site's page can reach it (DNS rebinding).
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
    calls = ClientCalls(services.ledger.database)
    watch = ReviewWatch(services.ledger.latest_states, expire=services.reviews.expire_overdue)
    feed = ChangeFeed()
    runs = BackgroundRuns()
    reaches = ClientReaches()
    # A question is put to the client whose call it is, when it can be asked; never left waiting.
    services.questions.decline_when(reaches.decline_reason, tell)
    manager = StreamableHTTPSessionManager(
        app=mcp_server(services, calls, watch, feed, runs=runs, reaches=reaches, wait_seconds=wait_seconds),
        stateless=True,
        security_settings=security,
    )
    entry = door(services, StoredTokens(tokens), oauth)
    endpoint: ASGIApp = entry.guard(StreamableHTTPASGIApp(manager))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run(), feed.following(services), anyio.create_task_group() as background:
            background.start_soon(watch.run)
            # Started before the first request: a call may need a run at once.
            await background.start(runs.serve)
            yield
            background.cancel_scope.cancel()

    return Starlette(
        routes=[Route(MCP_PATH, endpoint=endpoint), *entry.routes],
        middleware=entry.middleware,
        lifespan=lifespan,
    )


def serve(
    services: Services,
    tokens: AccessTokenStore,
    *,
    host: str,
    port: int,
    wait_seconds: float = DEFAULT_WAIT_SECONDS,
    oauth: OAuthResource | None = None,
    tell: Callable[[str], None] = log.warning,
) -> None:
    """Serve until interrupted (SIGINT or SIGTERM end it cleanly)."""
    import uvicorn

    config = http_config(
        gateway_app(services, tokens, host=host, wait_seconds=wait_seconds, oauth=oauth, tell=tell),
        host=host,
        port=port,
    )
    server = uvicorn.Server(config)
    server.run()


def http_config(app: ASGIApp, *, host: str, port: int) -> uvicorn.Config:
    """How uvicorn serves the endpoint. Its HTTP/1.1 parser is h11, not httptools (uvicorn's
    choice when installed): httptools keeps a header value's trailing whitespace, which is no
    part of the value (RFC 9110 section 5.5), and the SDK compares Mcp-Method and Mcp-Name with
    the request body as they arrive, so ``Mcp-Name: tool  `` was refused (the conformance
    suite's sep-2243-server-accepts-whitespace-header-value). A call costs the same either way."""
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, log_level="warning", http="h11")
