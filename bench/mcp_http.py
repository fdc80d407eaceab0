"""MCP over Streamable HTTP on 127.0.0.1 in this process, for the gateway's figures: an ASGI app
served by uvicorn on a thread of its own (as `gatehouse serve` serves it, on a free port), a
bare SDK server whose one tool answers at once (what the transport alone costs a call), and the
MCP Python SDK's client on an event loop thread of its own, each call timed inside that loop."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from typing import Any

import httpx2
import mcp_types as types
import uvicorn
from anyio.from_thread import start_blocking_portal
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from starlette.applications import Starlette
from starlette.routing import Route

from gatehouse.gateway.server import MCP_PATH

START_SECONDS = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free port of 127.0.0.1 on a thread of its own; yields the
    MCP endpoint's URL (``/mcp`` on it), stops the server."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + START_SECONDS
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the server on port {port} did not start")
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}{MCP_PATH}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


def bare_app(tool: str, answer: types.CallToolResult) -> Starlette:
    """The SDK's own stateless Streamable HTTP server at ``/mcp`` with one tool, ``tool``, that
    answers ``answer`` at once: a call to it costs the HTTP request, the SDK's JSON-RPC handling
    on both sides and the answer's encoding, and nothing else."""

    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name=tool, input_schema={"type": "object"})])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return answer

    manager = StreamableHTTPSessionManager(
        app=Server("bare", on_list_tools=list_tools, on_call_tool=call_tool), stateless=True
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return Starlette(routes=[Route(MCP_PATH, endpoint=StreamableHTTPASGIApp(manager))], lifespan=lifespan)


class TimedClient:
    """One open SDK client session to an MCP endpoint over Streamable HTTP, on its own event loop
    thread, with a bearer token. Each call is timed inside the loop: the hop from the caller's
    thread to it is not counted."""

    def __init__(self, url: str, token: str) -> None:
        self._stack = ExitStack()
        self._portal = self._stack.enter_context(start_blocking_portal(backend="asyncio"))
        http = self._stack.enter_context(
            self._portal.wrap_async_context_manager(
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
            )
        )
        self._client: Client = self._stack.enter_context(
            self._portal.wrap_async_context_manager(Client(streamable_http_client(url, http_client=http)))
        )

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[float, types.CallToolResult]:
        """The call's seconds, from sending it to its result parsed, and the result."""

        async def timed() -> tuple[float, types.CallToolResult]:
            began = time.perf_counter()
            result = await self._client.call_tool(tool, arguments)
            return time.perf_counter() - began, result

        return self._portal.call(timed)

    def close(self) -> None:
        self._stack.close()
