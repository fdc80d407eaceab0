"""Shared fixtures: every test gets its own data folder; async tests run on asyncio."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from graph.builder import CompiledGraph, compile_graph
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from servers.filesystem import build_server as build_filesystem
from tests.fakes import FaultInjectingClient


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    return folder


@pytest.fixture
def demo_servers(data_dir: Path) -> Iterator[SdkMcpClient]:
    """The real bundled servers, in-process, through the SDK client."""
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
    """The graph compiled with an in-memory checkpointer."""
    return compile_graph(InMemorySaver())
