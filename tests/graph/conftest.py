"""Graph fixtures: the real bundled servers in-process, an in-memory checkpointer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from graph.builder import CompiledGraph, compile_graph
from graph.context import GraphContext, Limits
from graph.runner import RunOutcome, start_request
from mcp_host.client import McpClient
from mcp_host.sdk_client import SdkMcpClient
from policies.high_impact_rule import HighImpactRule
from servers.catalog import build_all
from servers.filesystem import build_server as build_filesystem
from tests.fakes import FaultInjectingClient


@pytest.fixture
def demo_servers(data_dir: Path) -> Iterator[SdkMcpClient]:
    with SdkMcpClient(build_all(data_dir)) as client:
        yield client


@pytest.fixture
def client(demo_servers: SdkMcpClient) -> FaultInjectingClient:
    return FaultInjectingClient(demo_servers)


@pytest.fixture
def mirrored_client(data_dir: Path) -> Iterator[FaultInjectingClient]:
    """Two filesystem servers on the same folder, so a request has two equal candidates."""
    targets = {"filesystem": build_filesystem(data_dir), "mirror": build_filesystem(data_dir)}
    with SdkMcpClient(targets) as inner:
        yield FaultInjectingClient(inner)


@pytest.fixture
def graph() -> CompiledGraph:
    return compile_graph(InMemorySaver())


def context_for(mcp: McpClient, **limits: float) -> GraphContext:
    return GraphContext(mcp=mcp, policy=HighImpactRule(), limits=Limits(**limits))  # type: ignore[arg-type]


def ask(graph: CompiledGraph, mcp: McpClient, text: str, **options: object) -> RunOutcome:
    return start_request(graph, context_for(mcp), text, **options)  # type: ignore[arg-type]
