"""Shared fixtures: every test gets its own data folder; async tests run on asyncio."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver

from graph.builder import CompiledGraph, compile_graph, open_postgres_checkpointer, open_sqlite_checkpointer
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from servers.filesystem import build_server as build_filesystem
from tests.backends import postgres_schema
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


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | Path]:
    """Where a test's data lives: a SQLite file, or a PostgreSQL URL (a schema of its own)."""
    if request.param == "sqlite":
        yield tmp_path / "gatehouse.db"
    else:
        with postgres_schema() as url:
            yield url


@pytest.fixture
def graph(backend: str | Path) -> Iterator[CompiledGraph]:
    """The graph compiled with the backend's checkpointer (SqliteSaver or PostgresSaver)."""
    if isinstance(backend, Path):
        saver: BaseCheckpointSaver[Any] = open_sqlite_checkpointer(backend)
    else:
        saver = open_postgres_checkpointer(backend, pool_size=4)
    try:
        yield compile_graph(saver)
    finally:
        saver.conn.close()  # type: ignore[attr-defined]


_SLOW_FOLDERS = ("browser", "replicas")
_BROWSER_FOLDER = "browser"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser and multi-process tests are marked ``slow``: still run by `make test` and CI,
    left out by ``pytest -m "not slow"``. Browser tests are marked ``browser`` too: `make
    pytest` runs them on their own, after the rest has run on several workers."""
    tests = Path(__file__).resolve().parent
    for item in items:
        parts = item.path.resolve().relative_to(tests).parts if item.path.is_relative_to(tests) else ()
        if parts and parts[0] in _SLOW_FOLDERS:
            item.add_marker(pytest.mark.slow)
        if parts and parts[0] == _BROWSER_FOLDER:
            item.add_marker(pytest.mark.browser)
