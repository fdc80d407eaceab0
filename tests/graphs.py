"""Graph fixtures for tests whose subject is not where checkpoints are kept (what the planner
chooses, what a model proposes): one compiled graph, without the SQLite/PostgreSQL
parametrisation of tests/conftest.py's ``graph``. A module takes one as its own ``graph``:
``graph = sqlite_graph`` (a checkpoint file per test) or ``graph = memory_graph`` (one in-memory
graph for the module)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from graph.builder import CompiledGraph, compile_graph, open_sqlite_checkpointer


@pytest.fixture
def sqlite_graph(tmp_path: Path) -> Iterator[CompiledGraph]:
    """The graph on a SQLite checkpoint file of the test's own."""
    saver = open_sqlite_checkpointer(tmp_path / "graph.db")
    try:
        yield compile_graph(saver)
    finally:
        saver.conn.close()


@pytest.fixture(scope="module")
def memory_graph() -> CompiledGraph:
    """One graph on an in-memory checkpointer for the whole module (each request is a thread
    of its own)."""
    return compile_graph(InMemorySaver())
