"""The boundary the graph talks to. Everything behind it is the MCP host's business."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mcp_host.manifest import Manifest
    from mcp_host.results import McpResult


class McpClient(Protocol):
    """Discover what servers offer and use it. Calls never raise for server failures: they
    return an McpResult whose ``error`` names the kind, so one failing server never breaks
    a request that could be served by another. An unknown server name raises
    UnknownServerError, because that is the caller's mistake, not the server's."""

    def discover(self, *, fresh: bool = False, only: list[str] | None = None) -> Manifest:
        """What every server offers. ``fresh`` bypasses the cache, for every server or only
        for the ones named in ``only`` (the others may still come from the cache)."""
        ...

    def call_tool(self, server: str, name: str, arguments: dict[str, Any]) -> McpResult: ...

    def read_resource(self, server: str, uri: str) -> McpResult: ...

    def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> McpResult: ...

    def server_names(self) -> list[str]: ...

    def close(self) -> None: ...
