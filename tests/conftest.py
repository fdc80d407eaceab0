"""Shared fixtures: every test gets its own data folder; async tests run on asyncio."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

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


# What a test does, as markers (pyproject.toml): `make quick` leaves out every test that starts
# a process, drives a browser, needs PostgreSQL or a third-party peer server; `make test` and CI
# run everything. Folders whose every test does one of those are marked here; other modules
# say it themselves (pytestmark), and the quick lane holds them to it (below).
_FOLDER_MARKERS = {
    "browser": ("browser", "processes"),
    "replicas": ("processes", "postgres"),
    "interop": ("peers", "processes"),
}
# Set by `make quick`: a test not marked `processes` that starts one fails, naming the marker.
QUICK_LANE_ENV = "GATEHOUSE_QUICK_LANE"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks by folder (_FOLDER_MARKERS), and ``postgres`` on every test run on PostgreSQL (the
    ``backend`` fixture's second parameter): its SQLite twin runs in the quick lane."""
    tests = Path(__file__).resolve().parent
    for item in items:
        parts = item.path.resolve().relative_to(tests).parts if item.path.is_relative_to(tests) else ()
        for marker in _FOLDER_MARKERS.get(parts[0] if parts else "", ()):
            item.add_marker(marker)
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("backend") == "postgres":
            item.add_marker(pytest.mark.postgres)


@pytest.fixture(autouse=True)
def _quick_lane_starts_no_process(request: pytest.FixtureRequest) -> Iterator[None]:
    """In the quick lane, a test that starts a process (a server, the CLI, a replica) without
    saying so fails: the lane stays quick, and the markers stay true to what tests do."""
    if os.environ.get(QUICK_LANE_ENV) != "1" or request.node.get_closest_marker("processes"):
        yield
        return
    started: list[object] = []
    popen_init: Callable[..., None] = subprocess.Popen.__init__

    def noting(self: subprocess.Popen[Any], args: object, *rest: Any, **options: Any) -> None:
        started.append(args)
        popen_init(self, args, *rest, **options)

    with mock.patch.object(subprocess.Popen, "__init__", noting):
        yield
    if started:
        pytest.fail(
            f"{request.node.nodeid} starts a process ({started[0]!r}): mark it processes"
            " (pytestmark = pytest.mark.processes in its module), so `make quick` leaves it out"
        )
