"""Several processes opening one new database file at once: every one of them gets a working
connection. Two replicas (or the app and `gatehouse serve`) started together on a fresh data
folder did not: switching the new file to WAL takes a lock SQLite does not wait for, so a
process that lost the race failed with "database is locked" at start."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from storage.sqlite import connect_sqlite

pytestmark = pytest.mark.processes

PROCESSES = 6
ROUNDS = 8


def _open_and_write(path: str, start: Any) -> str | None:
    start.wait()
    try:
        connection = connect_sqlite(Path(path))
        connection.execute("CREATE TABLE IF NOT EXISTS opened (pid INTEGER)")
        connection.execute("INSERT INTO opened VALUES (1)")
        connection.commit()
        mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
        connection.close()
    except Exception as exc:  # noqa: BLE001 - the failure is what the test reports
        return repr(exc)
    return None if mode == "wal" else f"journal mode {mode}"


def test_processes_opening_a_new_file_together_all_get_a_connection_in_wal_mode(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    failures: list[str] = []
    with context.Pool(PROCESSES) as pool:
        for round_number in range(ROUNDS):
            path = tmp_path / f"round-{round_number}" / "gatehouse.db"
            with context.Manager() as manager:
                start = manager.Barrier(PROCESSES)
                results = pool.starmap(_open_and_write, [(str(path), start)] * PROCESSES)
            failures += [result for result in results if result is not None]
    assert failures == []
