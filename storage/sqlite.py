"""SQLite: one connection per database file, shared by threads and by the stores on it, writes
serialised by the database.

WAL lets readers go on while one writer writes; ``BEGIN IMMEDIATE`` takes the write lock at
the start of a transaction, so a read-check-write (decide once, append to the audit chain) is
atomic across threads and processes, not only inside one process.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Literal

from storage.database import Connection, Dialect
from storage.transactions import ThreadTransactions

SQLITE = Dialect(name="sqlite", lock_rows="")
IsolationLevel = Literal["DEFERRED", "EXCLUSIVE", "IMMEDIATE"] | None
# How long a write waits for another writer's lock before "database is locked". Every
# connection to a Gatehouse file waits this long (connect_sqlite): the ledger, the audit log and
# LangGraph's checkpoints share the file, and replicas share it across processes, so one
# connection that gave up sooner (SQLite's default is 5 s) failed runs on a busy machine.
BUSY_TIMEOUT_SECONDS = 30


def connect_sqlite(path: Path, *, isolation_level: IsolationLevel = "DEFERRED") -> sqlite3.Connection:
    """A connection to a Gatehouse SQLite file, shareable across threads, in WAL mode (readers
    go on while one writer writes), waiting BUSY_TIMEOUT_SECONDS for a writer's lock.
    ``isolation_level`` as sqlite3's (its default is DEFERRED): None for explicit transactions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(
        str(path), check_same_thread=False, isolation_level=isolation_level, timeout=BUSY_TIMEOUT_SECONDS
    )
    _switch_to_wal(connection)
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_SECONDS * 1000}")
    return connection


def _switch_to_wal(connection: sqlite3.Connection) -> None:
    """Put the file in WAL mode, waiting like any write for another process that holds it.

    Switching a new file to WAL takes a lock SQLite does not wait for (its busy handler is not
    called there): processes opening one fresh file together (replicas started at once, the
    app beside `gatehouse serve`) failed with "database is locked" at start. A file already in
    WAL mode answers at once."""
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    pause = 0.005
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


class SqliteDatabase:
    dialect = SQLITE

    def __init__(self, path: Path) -> None:
        self.path = path
        self.description = str(path)
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE ... COMMIT).
        self._conn = connect_sqlite(path, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._transactions = ThreadTransactions()

    def write(self) -> AbstractContextManager[Connection]:
        """A write transaction holding the database's write lock from its first statement; inside
        another write on this thread, that one (storage/transactions.py)."""
        return self._transactions.write(self._begin)

    @contextmanager
    def _begin(self) -> Iterator[Connection]:
        with self._lock, self._transaction("BEGIN IMMEDIATE") as conn:
            yield conn

    @contextmanager
    def _transaction(self, begin: str) -> Iterator[Connection]:
        """A transaction opened with ``begin`` on the one connection (the caller holds the
        lock): committed when the block ends, rolled back when it raises."""
        self._conn.execute(begin)
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    @contextmanager
    def read(self) -> Iterator[Connection]:
        # The one connection: on a thread with a write open (the lock is re-entrant) the read
        # sees what that write wrote.
        with self._lock:
            yield self._conn

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        with self._lock:
            if self._transactions.current() is not None:
                # This thread's write (the lock is re-entrant): it holds the database's write
                # lock, so nothing commits until it does, and it sees its own writes.
                yield self._conn
                return
            # In autocommit each statement is a read transaction of its own, so another
            # process's commit between two statements would be seen by the second only. In WAL
            # a transaction's reads all see the database as of its first read, while other
            # processes go on writing (a deferred BEGIN takes no lock).
            with self._transaction("BEGIN DEFERRED") as conn:
                yield conn

    @contextmanager
    def migrating(self) -> Iterator[None]:
        # The write transaction's database lock already makes migrations one at a time.
        yield

    def close(self) -> None:
        with self._lock:
            self._conn.close()
