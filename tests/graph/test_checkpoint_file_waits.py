"""The checkpoint file is shared with the review ledger and with other processes on the same
database: a checkpoint write that meets another writer's lock waits as long as every other
writer on the file does, not SQLite's default five seconds. Under load (several replicas, a
busy machine) the default gave "database is locked" in the middle of a run."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import empty_checkpoint

from graph.builder import open_sqlite_checkpointer
from storage.database import Connection
from storage.sqlite import BUSY_TIMEOUT_SECONDS, SqliteDatabase


def _busy_timeout_ms(connection: sqlite3.Connection | Connection) -> int:
    return int(connection.execute("PRAGMA busy_timeout").fetchone()[0])


def test_checkpointer_waits_as_long_as_the_ledger_on_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "gatehouse.db"
    saver = open_sqlite_checkpointer(path)
    database = SqliteDatabase(path)
    try:
        with database.read() as connection:
            ledger_wait = _busy_timeout_ms(connection)
        assert ledger_wait == BUSY_TIMEOUT_SECONDS * 1000
        assert _busy_timeout_ms(saver.conn) == ledger_wait
    finally:
        saver.conn.close()


def test_checkpoint_write_waits_for_another_writer_instead_of_failing(tmp_path: Path) -> None:
    path = tmp_path / "gatehouse.db"
    saver = open_sqlite_checkpointer(path)
    other = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process's write, holding the lock
        threading.Timer(0.5, lambda: other.execute("COMMIT")).start()
        started = time.monotonic()
        config: RunnableConfig = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
        saver.put(config, empty_checkpoint(), {"source": "input", "step": -1, "parents": {}}, {})
        assert time.monotonic() - started >= 0.4  # it waited for the lock, then wrote
        assert saver.get_tuple(config) is not None
    finally:
        saver.conn.close()
        other.close()
