"""The endpoint's handlers for what it offers: tools, resources, resource templates and prompts
listed as the caller is offered them (visibility.py, in catalogue.py's words), resources read
and prompts got through the policy (reads.py), and list changes passed on (changes.py).

Gatehouse's services are synchronous: each handler runs them on a worker thread. Who calls
is read on the event loop, where the request's verified token is.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio.to_thread
import mcp_types as types

from gatehouse.gateway.catalogue import offered_prompts, offered_resources, offered_templates, offered_tools
from gatehouse.gateway.changes import ChangeFeed, serve_changes
from gatehouse.gateway.reads import answer_prompt, answer_read
from gatehouse.gateway.visibility import offered_to

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server

    from gatehouse.wiring import Services
    from mcp_host.manifest import Capability


def serve_offer(
    server: Server[Any],
    services: Services,
    feed: ChangeFeed | None,
    *,
    caller: Callable[[], str],
    client_name: Callable[[ServerRequestContext[Any]], str | None],
) -> None:
    """Register the handlers on ``server``. ``feed``: the list changes to pass on (None: none
    are); ``caller``: the person the request's token names; ``client_name``: what the client
    calls itself."""

    def capabilities_for(who: str) -> list[Capability]:
        return offered_to(services.policy, who, services.requests.offered())

    async def offered() -> list[Capability]:
        return await anyio.to_thread.run_sync(capabilities_for, caller())

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=offered_tools(await offered()))

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=offered_resources(await offered()))

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=offered_templates(await offered()))

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=offered_prompts(await offered()))

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        read = partial(answer_read, services, params.uri, requester=caller(), client=client_name(ctx))
        return await anyio.to_thread.run_sync(read)

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        arguments = dict(params.arguments or {})
        get = partial(
            answer_prompt, services, params.name, arguments, requester=caller(), client=client_name(ctx)
        )
        return await anyio.to_thread.run_sync(get)

    server.add_request_handler("tools/list", types.PaginatedRequestParams, list_tools)
    server.add_request_handler("resources/list", types.PaginatedRequestParams, list_resources)
    server.add_request_handler("resources/templates/list", types.PaginatedRequestParams, list_templates)
    server.add_request_handler("resources/read", types.ReadResourceRequestParams, read_resource)
    server.add_request_handler("prompts/list", types.PaginatedRequestParams, list_prompts)
    server.add_request_handler("prompts/get", types.GetPromptRequestParams, get_prompt)
    if feed is not None:
        serve_changes(server, feed)
