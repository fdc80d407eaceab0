"""Shared fixtures: every test gets its own data folder; async tests run on asyncio."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
from tests.in_process_servers import serve_bundled_in_process, serve_test_servers_in_process


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
def bundled_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Servers-file entries that start a bundled server as the shipped file does are served in
    this process for the test (tests/in_process_servers.py): the same servers, the host's own
    pool and client, no process to start. For tests whose subject is not the stdio transport
    or a server process's life; those start processes and are marked ``processes``."""
    serve_bundled_in_process(monkeypatch)


@pytest.fixture
def test_servers_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Servers-file entries that run one of the stdio test servers defined in tests/
    (``python -m tests.questions_server ...``; TEST_SERVERS in tests/in_process_servers.py) are
    served in this process for the test, built from the entry's arguments and environment."""
    serve_test_servers_in_process(monkeypatch)


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


# Where the quick lane notes what a test started (one list per test, over all its phases).
_STARTED = pytest.StashKey[list[object]]()


@contextmanager
def _noting_starts(item: pytest.Item) -> Iterator[None]:
    """In the quick lane, note every process ``item`` starts while this lasts (unless it is
    marked ``processes``); the process still starts."""
    if os.environ.get(QUICK_LANE_ENV) != "1" or item.get_closest_marker("processes"):
        yield
        return
    started = item.stash.setdefault(_STARTED, [])
    popen_init: Callable[..., None] = subprocess.Popen.__init__

    def noting(self: subprocess.Popen[Any], args: object, *rest: Any, **options: Any) -> None:
        started.append(args)
        popen_init(self, args, *rest, **options)

    with mock.patch.object(subprocess.Popen, "__init__", noting):
        yield


def _fail_if_started(item: pytest.Item) -> None:
    started = item.stash.get(_STARTED, [])
    if started:
        item.stash[_STARTED] = []  # one failure per test, not one per phase
        pytest.fail(
            f"{item.nodeid} starts a process ({started[0]!r}): mark it processes"
            " (pytestmark = pytest.mark.processes in its module), so `make quick` leaves it out"
        )


# In the quick lane, a test that starts a process (a server, the CLI, a replica) without saying
# so fails: the lane stays quick, and the markers stay true to what tests do. Watched in every
# phase, not from a fixture: a module-scoped fixture is set up before any function-scoped one
# could watch it, and the processes it starts count for the test that first needs it.
@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with _noting_starts(item):
        yield
    _fail_if_started(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with _noting_starts(item):
        yield
    _fail_if_started(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    with _noting_starts(item):
        yield
    _fail_if_started(item)
