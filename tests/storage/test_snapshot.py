"""``Database.snapshot()`` (storage/database.py), on both backends: every statement in it sees
the database as of one moment while another connection (another replica or process) commits,
and what committed meanwhile is seen once it ends."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from storage import Database, open_database
from storage.database import Connection


@pytest.fixture
def databases(backend: str | Path) -> Iterator[tuple[Database, Database]]:
    """Two connections (pools, files opened twice) to one database: a reader and a writer."""
    reader, writer = open_database(backend), open_database(backend)
    with writer.write() as conn:
        conn.execute("CREATE TABLE snap (n INTEGER PRIMARY KEY)")
        conn.execute("INSERT INTO snap (n) VALUES (1)")
    yield reader, writer
    reader.close()
    writer.close()


def _count(conn: Connection) -> int:
    row = conn.execute("SELECT COUNT(*) AS n FROM snap").fetchone()
    return int(row["n"])


def _commit_one(writer: Database, n: int) -> None:
    with writer.write() as conn:
        conn.execute("INSERT INTO snap (n) VALUES (?)", (n,))


def test_every_statement_of_a_snapshot_sees_one_moment_while_another_connection_commits(
    databases: tuple[Database, Database],
) -> None:
    reader, writer = databases
    with reader.snapshot() as conn:
        assert _count(conn) == 1
        _commit_one(writer, 2)  # committed between the snapshot's two statements
        assert _count(conn) == 1
    with reader.read() as conn:
        assert _count(conn) == 2


def test_a_read_outside_a_snapshot_sees_each_commit_as_it_lands(databases: tuple[Database, Database]) -> None:
    # What a snapshot is for: two plain reads each see their own moment.
    reader, writer = databases
    with reader.read() as conn:
        assert _count(conn) == 1
        _commit_one(writer, 2)
        assert _count(conn) == 2


def test_a_snapshot_on_a_thread_with_a_write_open_on_sqlite_sees_that_writes_rows(tmp_path: Path) -> None:
    # The write holds SQLite's database lock, so nothing else commits until it does. (On
    # PostgreSQL a snapshot is a transaction of its own: the write runs in READ COMMITTED.)
    db = open_database(tmp_path / "snap.db")
    try:
        with db.write() as write:
            write.execute("CREATE TABLE snap (n INTEGER PRIMARY KEY)")
            write.execute("INSERT INTO snap (n) VALUES (1)")
            with db.snapshot() as conn:
                assert _count(conn) == 1
        with db.read() as conn:
            assert _count(conn) == 1
    finally:
        db.close()
