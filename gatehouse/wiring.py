"""Build the process-wide services once: MCP sessions, the checkpointer and the compiled graph."""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gatehouse.errors import ConfigurationError
from graph.builder import CompiledGraph, compile_graph, open_sqlite_checkpointer
from graph.context import GraphContext, Limits
from mcp_host.config import ConfigError, ServersConfig, load_servers_config
from mcp_host.sdk_client import SdkMcpClient
from policies.high_impact_rule import HighImpactRule
from servers.catalog import BUNDLED_CONFIG

if TYPE_CHECKING:
    from langgraph.checkpoint.sqlite import SqliteSaver

    from gatehouse.settings import Settings
    from mcp_host.client import McpClient


@dataclass
class Services:
    graph: CompiledGraph
    context: GraphContext
    checkpointer: SqliteSaver
    owns_mcp: bool = True

    @property
    def mcp(self) -> McpClient:
        return self.context.mcp

    def close(self) -> None:
        if self.owns_mcp:
            self.mcp.close()
        self.checkpointer.conn.close()


def servers_config(settings: Settings) -> ServersConfig:
    """The configured servers file, or the shipped one that runs the bundled demo servers."""
    if settings.servers_path is not None:
        return load_servers_config(settings.servers_path)
    variables = {
        "GATEHOUSE_PYTHON": sys.executable,
        "GATEHOUSE_DEMO_DATA": str(settings.demo_data_dir.resolve()),
    }
    return load_servers_config(BUNDLED_CONFIG, environ={**os.environ, **variables})


def server_pool(settings: Settings) -> SdkMcpClient:
    """One long-lived session per configured server."""
    try:
        config = servers_config(settings)
    except ConfigError as exc:
        raise ConfigurationError(str(exc)) from exc
    targets = {entry.name: entry for entry in config.servers}
    return SdkMcpClient(targets, log_dir=settings.server_log_dir)


def build_services(
    settings: Settings, *, mcp: McpClient | None = None, limits: Limits | None = None
) -> Services:
    """Open the database and the MCP sessions. The caller closes them (Services.close)."""
    try:
        checkpointer = open_sqlite_checkpointer(settings.db_path)
    except (sqlite3.Error, OSError) as exc:
        raise ConfigurationError(f"database {settings.db_path}: cannot open it: {exc}") from exc
    try:
        client = mcp if mcp is not None else server_pool(settings)
    except BaseException:
        checkpointer.conn.close()
        raise
    context = GraphContext(mcp=client, policy=HighImpactRule(), limits=limits or Limits())
    return Services(
        graph=compile_graph(checkpointer), context=context, checkpointer=checkpointer, owns_mcp=mcp is None
    )


@contextmanager
def open_services(
    settings: Settings, *, mcp: McpClient | None = None, limits: Limits | None = None
) -> Iterator[Services]:
    services = build_services(settings, mcp=mcp, limits=limits)
    try:
        yield services
    finally:
        services.close()
