"""``list_changed`` passed on to the clients of Gatehouse's MCP endpoint.

The endpoint is stateless Streamable HTTP, so there is one way to tell a client its lists
changed: MCP 2026-07-28's ``subscriptions/listen``, a request whose response is the stream
of notifications (the SDK's ListenHandler serves it, in stateless mode too). A 2025-11-25
client would need the GET stream of a session, which a stateless endpoint has none of: it is
told ``listChanged: false`` (the SDK derives that for the handshake era when no notification
options are given) and lists again when it wants to know.

What this process learns and passes on, as "tools (resources, prompts) changed: list again":

- a configured server's own ``notifications/*/list_changed``: the host's pool hears them on
  sessions of the initialize handshake (RequestService.when_offer_changes says which);
- a newer version of the policy adopted by this process: what each caller is offered
  (visibility.py) may change with it, so all three lists are announced.

Events go to every listening client of this process; a notification carries nothing but the
kind, so no one learns another's list. Resource subscriptions (``resources/updated``) are not
offered: the host subscribes to no server's resources, so it would never have one to pass on.
The SDK advertises ``resources.subscribe`` wherever listen is served; ``server/discover`` is
answered here with it false, and a listen asking for resource URIs is acknowledged without
them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ServerEvent,
    ToolsListChanged,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server

    from gatehouse.wiring import Services
    from policies.model import PolicyFile

_EVENTS: dict[str, ServerEvent] = {
    "notifications/tools/list_changed": ToolsListChanged(),
    "notifications/resources/list_changed": ResourcesListChanged(),
    "notifications/prompts/list_changed": PromptsListChanged(),
}


class ChangeFeed:
    """The changes this process hears, from whichever thread hears them, delivered to the
    listening clients on the endpoint's event loop."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._publishing: set[asyncio.Future[None]] = set()

    @asynccontextmanager
    async def following(self, services: Services) -> AsyncIterator[None]:
        """Pass on what ``services`` hear while the endpoint runs (its lifespan)."""
        self._loop = asyncio.get_running_loop()
        stop = services.requests.when_offer_changes(self._server_changed)
        services.policy.when_changed(self._policy_changed)
        try:
            yield
        finally:
            stop()
            # The policy keeps its listeners: with no loop to deliver on, this one does nothing.
            self._loop = None

    def _server_changed(self, server: str, method: str) -> None:
        self.announce(_EVENTS[method])

    def _policy_changed(self, policy: PolicyFile) -> None:
        self.announce(*_EVENTS.values())

    def announce(self, *events: ServerEvent) -> None:
        """Deliver ``events`` to every open listen stream. Any thread; returns at once."""
        loop = self._loop
        if loop is None:
            return
        for event in events:
            try:
                loop.call_soon_threadsafe(self._publish, event)
            except RuntimeError:  # the loop closed meanwhile: nobody is listening any more
                return

    def _publish(self, event: ServerEvent) -> None:
        task = asyncio.ensure_future(self.bus.publish(event))
        # Held until done: the loop keeps only a weak reference to a task.
        self._publishing.add(task)
        task.add_done_callback(self._publishing.discard)


def serve_changes(server: Server[Any], feed: ChangeFeed) -> None:
    """Serve ``subscriptions/listen`` from ``feed`` on ``server``, and say truthfully in
    ``server/discover`` what it carries."""
    handler = ListenHandler(feed.bus)

    async def listen(
        ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
    ) -> types.SubscriptionsListenResult:
        wanted = params.notifications.model_copy(update={"resource_subscriptions": None})
        return await handler(ctx, params.model_copy(update={"notifications": wanted}))

    async def discover(ctx: ServerRequestContext[Any], params: types.RequestParams) -> types.DiscoverResult:
        capabilities = server.get_capabilities(protocol_version=ctx.protocol_version)
        if capabilities.resources is not None:
            resources = capabilities.resources.model_copy(update={"subscribe": False})
            capabilities = capabilities.model_copy(update={"resources": resources})
        return types.DiscoverResult(
            supported_versions=list(MODERN_PROTOCOL_VERSIONS),
            capabilities=capabilities,
            instructions=server.instructions,
        )

    server.add_request_handler("subscriptions/listen", types.SubscriptionsListenRequestParams, listen)
    server.add_request_handler("server/discover", types.RequestParams, discover)
