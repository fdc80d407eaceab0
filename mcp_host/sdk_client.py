"""McpClient on the official SDK: one long-lived session per server on one background loop.

Opening a session costs a process start for stdio servers (hundreds of milliseconds) against
about a millisecond per call on an open one, so sessions are opened once, in parallel, and
shared by every request and thread. They live on a single event loop owned by an anyio
blocking portal: the graph, the CLI and Streamlit are synchronous and call in through it,
never with ``asyncio.run`` per call.

Each session is held open by a keeper task, because an SDK client must be entered and left
in the same task; callers from other tasks only borrow it.
"""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.types import Implementation

from mcp_host.convert import prompt_result, resource_result, tool_result
from mcp_host.discovery import CapabilityCollector
from mcp_host.errors import (
    ClientClosedError,
    ErrorInfo,
    PaginationError,
    UnknownServerError,
    error_from_exception,
)
from mcp_host.manifest import Manifest, ServerManifest
from mcp_host.results import DEFAULT_OUTPUT_CAP_BYTES, McpResult

ServerTarget = MCPServer | Server[Any] | StdioServerParameters | str
"""An in-process server instance, a stdio command, or a Streamable HTTP URL."""

_T = TypeVar("_T")

# A server that keeps handing out cursors must not hang discovery.
MAX_LIST_PAGES = 1000
CLIENT_INFO = Implementation(name="gatehouse", version="0.1.0")


@dataclass
class _Session:
    name: str
    target: ServerTarget
    client: Client | None = None
    error: ErrorInfo | None = None
    stop: anyio.Event | None = None
    keeper: concurrent.futures.Future[None] | None = field(default=None, repr=False)


class SdkMcpClient:
    """Holds one open SDK session per configured server until close()."""

    def __init__(
        self,
        targets: Mapping[str, ServerTarget],
        *,
        call_timeout: float = 30.0,
        connect_timeout: float = 30.0,
        output_cap_bytes: int = DEFAULT_OUTPUT_CAP_BYTES,
    ) -> None:
        self._call_timeout = call_timeout
        self._output_cap = output_cap_bytes
        self._closed = False
        self._portal_cm: AbstractContextManager[BlockingPortal] = start_blocking_portal(backend="asyncio")
        self._portal = self._portal_cm.__enter__()
        self._sessions = {name: _Session(name=name, target=target) for name, target in targets.items()}
        self._connect_all(connect_timeout)

    # -- lifecycle -------------------------------------------------------------------------

    def _connect_all(self, timeout: float) -> None:
        ready: list[concurrent.futures.Future[None]] = []
        for session in self._sessions.values():
            opened: concurrent.futures.Future[None] = concurrent.futures.Future()
            session.keeper = self._portal.start_task_soon(self._keep_open, session, opened)
            ready.append(opened)
        concurrent.futures.wait(ready, timeout=timeout)
        for session, opened in zip(self._sessions.values(), ready, strict=True):
            if not opened.done():
                session.error = ErrorInfo(kind="timeout", message=f"no session within {timeout:g} s")
                if session.keeper is not None:
                    session.keeper.cancel()

    async def _keep_open(self, session: _Session, opened: concurrent.futures.Future[None]) -> None:
        session.stop = anyio.Event()
        try:
            # The SDK's response cache is off: the host decides when a manifest is fresh.
            async with Client(session.target, cache=None, client_info=CLIENT_INFO) as client:
                session.client = client
                session.error = None
                opened.set_result(None)
                await session.stop.wait()
        except anyio.get_cancelled_exc_class():
            raise
        except BaseException as exc:  # noqa: BLE001 - any failure of one server is that server's error
            session.error = error_from_exception(exc)
        finally:
            session.client = None
            if not opened.done():
                opened.set_result(None)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for session in self._sessions.values():
            if session.stop is not None:
                self._portal.call(session.stop.set)
        keepers = [s.keeper for s in self._sessions.values() if s.keeper is not None]
        concurrent.futures.wait(keepers, timeout=10)
        self._portal_cm.__exit__(None, None, None)

    def __enter__(self) -> SdkMcpClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- discovery -------------------------------------------------------------------------

    def server_names(self) -> list[str]:
        return list(self._sessions)

    def discover(self) -> Manifest:
        self._check_open()
        return self._portal.call(self._discover_all)

    async def _discover_all(self) -> Manifest:
        results: dict[str, ServerManifest] = {}

        async def one(session: _Session) -> None:
            results[session.name] = await self._discover_one(session)

        async with anyio.create_task_group() as group:
            for session in self._sessions.values():
                group.start_soon(one, session)
        return Manifest(servers=[results[name] for name in self._sessions])

    async def _discover_one(self, session: _Session) -> ServerManifest:
        client = session.client
        if client is None:
            error = session.error or ErrorInfo(kind="unavailable", message="no open session")
            return ServerManifest(name=session.name, ok=False, error=error)
        collector = CapabilityCollector(session.name)
        declared = client.server_capabilities
        try:
            with anyio.fail_after(self._call_timeout):
                # Ask only for what the server declares: others answer "Method not found".
                if declared.tools is not None:
                    for tool in await _all_pages(client.list_tools, "tools"):
                        collector.add_tool(tool)
                if declared.resources is not None:
                    for resource in await _all_pages(client.list_resources, "resources"):
                        collector.add_resource(resource)
                    for template in await _all_pages(client.list_resource_templates, "resource_templates"):
                        collector.add_template(template)
                if declared.prompts is not None:
                    for prompt in await _all_pages(client.list_prompts, "prompts"):
                        collector.add_prompt(prompt)
        except Exception as exc:  # noqa: BLE001 - recorded on the manifest; other servers go on
            return ServerManifest(name=session.name, ok=False, error=error_from_exception(exc))
        server_info = client.server_info
        return ServerManifest(
            name=session.name,
            ok=True,
            protocol_version=client.protocol_version,
            server_version=server_info.version if server_info else None,
            capabilities=collector.capabilities,
            rejected=collector.rejected,
        )

    # -- calls -----------------------------------------------------------------------------

    def call_tool(self, server: str, name: str, arguments: dict[str, Any]) -> McpResult:
        return self._call(
            server,
            "tool",
            name,
            lambda client: client.call_tool(name, arguments),
            lambda raw, ms: tool_result(server, name, raw, self._output_cap, ms),
        )

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
        client = session.client
        if client is None:
            error = session.error or ErrorInfo(kind="unavailable", message="no open session")
            return McpResult.failure(server, capability_type, name, error)
        started = time.perf_counter()
        try:
            raw = self._portal.call(self._bounded, send, client)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a classified result
            return McpResult.failure(server, capability_type, name, error_from_exception(exc))
        return convert(raw, (time.perf_counter() - started) * 1000)

    async def _bounded(self, send: Callable[[Client], Awaitable[_T]], client: Client) -> _T:
        with anyio.fail_after(self._call_timeout):
            return await send(client)

    def _check_open(self) -> None:
        if self._closed:
            raise ClientClosedError("the MCP client is closed")


async def _all_pages(fetch: Callable[..., Awaitable[Any]], field_name: str) -> list[Any]:
    """Every item of a paginated listing; only a missing next_cursor ends it."""
    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_LIST_PAGES):
        page = await fetch(cursor=cursor)
        items.extend(getattr(page, field_name))
        cursor = page.next_cursor
        if cursor is None:
            return items
        if cursor in seen:
            raise PaginationError(f"{field_name} listing repeated cursor {cursor!r}")
        seen.add(cursor)
    raise PaginationError(f"{field_name} listing exceeded {MAX_LIST_PAGES} pages")
