"""`gatehouse bridge URL`: an MCP server over stdio, for clients that only start local servers
(Claude Desktop and others), that forwards every request to a `gatehouse serve` endpoint
(upstream.py) and answers with what the endpoint answered.

It offers what the endpoint offered at the handshake (its tools, resources and prompts, its
instructions); when the endpoint could not be reached then, it offers all of them, and each
request reaches it or says why not. Results and JSON-RPC errors pass as the endpoint sent them
(a tool's error result stays a result with isError). A call that waits for a reviewer is
waited for as long as the endpoint waits: the client's progress token is passed on and its
progress notifications come back; the client's cancellation cancels the forwarded request
(the SDK's server cancels the handler, whose forwarded request is abandoned, and at
2026-07-28 its HTTP request is closed, which is that protocol's cancellation).

Standard output is the protocol: the SDK's stdio transport points stray writes to stdout at
stderr while it serves, and every line the bridge logs goes to stderr.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
from pydantic import BaseModel

from gatehouse.gateway.upstream import Endpoint, Upstream, http_client

# Each method forwarded: the request the SDK's client sends it as, the parameters the SDK's
# server reads it with, and the capability of the endpoint's that offers it.
FORWARDED: dict[str, tuple[type[types.Request[Any, Any]], type[BaseModel], str]] = {
    "tools/list": (types.ListToolsRequest, types.PaginatedRequestParams, "tools"),
    "tools/call": (types.CallToolRequest, types.CallToolRequestParams, "tools"),
    "resources/list": (types.ListResourcesRequest, types.PaginatedRequestParams, "resources"),
    "resources/templates/list": (
        types.ListResourceTemplatesRequest,
        types.PaginatedRequestParams,
        "resources",
    ),
    "resources/read": (types.ReadResourceRequest, types.ReadResourceRequestParams, "resources"),
    "prompts/list": (types.ListPromptsRequest, types.PaginatedRequestParams, "prompts"),
    "prompts/get": (types.GetPromptRequest, types.GetPromptRequestParams, "prompts"),
}


def bridge_server(upstream: Upstream) -> Server[Any]:
    """The stdio side: the endpoint's name, instructions and offer, each request forwarded."""
    info = upstream.server_info
    server: Server[Any] = Server(
        info.name if info is not None else "gatehouse",
        version=info.version if info is not None else "",
        title=info.title if info is not None else None,
        instructions=upstream.instructions,
    )
    offered = upstream.capabilities
    for method, (request_type, params_type, capability) in FORWARDED.items():
        if offered is None or getattr(offered, capability) is not None:
            server.add_request_handler(method, params_type, partial(_forward, upstream, request_type))
    return server


async def _forward(
    upstream: Upstream,
    request_type: type[types.Request[Any, Any]],
    ctx: ServerRequestContext[Any],
    params: BaseModel,
) -> dict[str, Any]:
    data = params.model_dump(by_alias=True, mode="json", exclude_none=True)
    # The progress token (and the protocol's envelope) are the forwarding client's to set.
    meta = {key: value for key, value in (data.pop("_meta", None) or {}).items() if key != "progressToken"}
    if meta:
        data["_meta"] = meta
    request = request_type.model_validate({"method": ctx.method, "params": data or None}, by_name=False)
    return await upstream.send(request, client_info=_client_info(ctx), progress=_progress_relay(ctx))


def _client_info(ctx: ServerRequestContext[Any]) -> types.Implementation | None:
    """The client that started the bridge, named to the endpoint as itself (the review a call
    opens names it)."""
    params = ctx.session.client_params
    return params.client_info if params is not None else None


def _progress_relay(ctx: ServerRequestContext[Any]) -> ProgressFnT | None:
    """Progress from the endpoint, passed back under the client's own token; None when the
    client asked for none (then the endpoint is not asked either)."""
    if progress_token_from_params(ctx.params) is None:
        return None

    async def relay(progress: float, total: float | None, message: str | None) -> None:
        await ctx.session.report_progress(progress, total, message)

    return relay


async def run_bridge(endpoint: Endpoint, log: Callable[[str], None]) -> None:
    """Serve over stdin and stdout until the client closes stdin."""
    async with http_client(endpoint) as http:
        upstream = Upstream(endpoint, http)
        problem = await upstream.greet()
        if problem is None:
            log(f"bridging MCP over stdio to {endpoint.url}")
        else:
            log(
                f"bridging MCP over stdio to {endpoint.url}; not reached yet, every request tries again: {problem}"
            )
        server = bridge_server(upstream)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())


def run(endpoint: Endpoint, log: Callable[[str], None]) -> None:
    anyio.run(run_bridge, endpoint, log)
