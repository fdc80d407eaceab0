"""An McpClient that times what the servers take, so a figure can leave tool time out."""

from __future__ import annotations

import time
from typing import Any

from mcp_host.client import McpClient
from mcp_host.manifest import Manifest
from mcp_host.results import McpResult


class TimingClient:
    """Delegates to a real pool; adds up the seconds spent in calls and in listings."""

    def __init__(self, inner: McpClient) -> None:
        self.inner = inner
        self.call_seconds = 0.0
        self.list_seconds = 0.0

    def reset(self) -> None:
        self.call_seconds = 0.0
        self.list_seconds = 0.0

    def discover(self, *, fresh: bool = False, only: list[str] | None = None) -> Manifest:
        began = time.perf_counter()
        try:
            return self.inner.discover(fresh=fresh, only=only)
        finally:
            self.list_seconds += time.perf_counter() - began

    def _timed(self, result: McpResult, began: float) -> McpResult:
        self.call_seconds += time.perf_counter() - began
        return result

    def call_tool(self, server: str, name: str, arguments: dict[str, Any]) -> McpResult:
        began = time.perf_counter()
        return self._timed(self.inner.call_tool(server, name, arguments), began)

    def read_resource(self, server: str, uri: str) -> McpResult:
        began = time.perf_counter()
        return self._timed(self.inner.read_resource(server, uri), began)

    def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> McpResult:
        began = time.perf_counter()
        return self._timed(self.inner.get_prompt(server, name, arguments), began)

    def server_names(self) -> list[str]:
        return self.inner.server_names()

    def close(self) -> None:
        self.inner.close()
