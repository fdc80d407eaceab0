"""SQLite: one connection per database file, shared by threads and by the stores on it, writes
serialised by the database.

WAL lets readers go on while one writer writes; ``BEGIN IMMEDIATE`` takes the write lock at
the start of a transaction, so a read-check-write (decide once, append to the audit chain) is
atomic across threads and processes, not only inside one process.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from storage.database import Connection, Dialect
from storage.transactions import ThreadTransactions

SQLITE = Dialect(name="sqlite", lock_rows="")


class SqliteDatabase:
    dialect = SQLITE

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.description = str(path)
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE ... COMMIT).
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA busy_timeout=30000")
        self._lock = threading.RLock()
        self._transactions = ThreadTransactions()

    def write(self) -> AbstractContextManager[Connection]:
        """A write transaction holding the database's write lock from its first statement; inside
        another write on this thread, that one (storage/transactions.py)."""
        return self._transactions.write(self._begin)

    @contextmanager
    def _begin(self) -> Iterator[Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
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
            self._conn.execute("BEGIN DEFERRED")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def migrating(self) -> Iterator[None]:
        # The write transaction's database lock already makes migrations one at a time.
        yield

    def close(self) -> None:
        with self._lock:
            self._conn.close()
