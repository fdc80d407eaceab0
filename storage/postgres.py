"""PostgreSQL: a connection pool shared by every store of the process (psycopg 3).

The stores write their SQL once, with ``?`` placeholders; this adapter turns them into
psycopg's ``%s``. A write transaction runs in READ COMMITTED; the stores lock the rows a
read-check-write depends on with ``SELECT ... FOR UPDATE`` (Dialect.lock_rows), which is what
makes decide-once, run-once and the audit chain hold across processes and machines.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any
from urllib.parse import quote

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from policies.secrets import DEFAULT_REDACTOR
from storage.database import DEFAULT_POOL_SIZE, Connection, Cursor, Dialect
from storage.transactions import ThreadTransactions

POSTGRES = Dialect(name="postgresql", lock_rows=" FOR UPDATE")
_PLACEHOLDER = re.compile(r"\?")


def redacted(url: str) -> str:
    """The URL without its password (user:***@, ?password=***), for messages and logs."""
    return DEFAULT_REDACTOR.text(url)


class _Translating:
    """A psycopg connection that takes the stores' ``?`` placeholders."""

    def __init__(self, conn: psycopg.Connection[dict[str, Any]]) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        # The stores' SQL has no literal "?" or "%": a plain substitution is exact.
        return self._conn.execute(_PLACEHOLDER.sub("%s", sql), tuple(params))


class PostgresDatabase:
    dialect = POSTGRES

    def __init__(
        self, url: str, *, pool_size: int = DEFAULT_POOL_SIZE, prepared_statements: bool = True
    ) -> None:
        self.url = url
        self.description = redacted(url)
        self.pool = checkpointer_pool(url, pool_size=pool_size, prepared_statements=prepared_statements)
        self._transactions = ThreadTransactions()

    def write(self) -> AbstractContextManager[Connection]:
        """A transaction on a connection of the pool; inside another write on this thread, that
        one (storage/transactions.py)."""
        return self._transactions.write(self._begin)

    @contextmanager
    def _begin(self) -> Iterator[Connection]:
        with self.pool.connection() as conn, conn.transaction():
            yield _Translating(conn)

    @contextmanager
    def read(self) -> Iterator[Connection]:
        # On a thread with a write open, read through it: it sees what that write wrote.
        joined = self._transactions.current()
        if joined is not None:
            yield joined
            return
        with self.pool.connection() as conn:
            yield _Translating(conn)

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        # REPEATABLE READ takes one snapshot at the first query and keeps it for the whole
        # transaction; READ COMMITTED (and autocommit, as read() runs) takes one per statement,
        # so a replica's commit between two statements would be seen by the second only. Not
        # SERIALIZABLE DEFERRABLE: the writers run in READ COMMITTED, so it would add nothing
        # but a possible wait. Always a connection of its own, even on a thread with a write
        # open: that write runs in READ COMMITTED, so joining it would not hold one moment.
        with self.pool.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield _Translating(conn)

    def migrating(self) -> AbstractContextManager[None]:
        return migration_lock(self.url)

    def close(self) -> None:
        self.pool.close()


# Any fixed number: every Gatehouse process takes the same lock to create or migrate tables.
_MIGRATION_LOCK_KEY = 0x6761_7465  # "gate"
MIGRATION_LOCK_SECONDS = 120.0
MIGRATION_LOCK_POLL_SECONDS = 0.05


@contextmanager
def migration_lock(url: str, *, timeout: float = MIGRATION_LOCK_SECONDS) -> Iterator[None]:
    """Held while one process creates or migrates tables: replicas starting together would
    otherwise race on CREATE TABLE IF NOT EXISTS (which is not atomic in PostgreSQL).

    The lock is tried, not waited for: a session blocked in pg_advisory_lock keeps a snapshot
    open, and LangGraph's CREATE INDEX CONCURRENTLY in the session holding the lock waits for
    every open snapshot, so a blocking wait deadlocks two replicas that start together."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(url, autocommit=True) as conn:
        while not _locked(conn):
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"another Gatehouse process held the migration lock for over {timeout:g} s"
                )
            time.sleep(MIGRATION_LOCK_POLL_SECONDS)
        try:
            yield
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK_KEY,))


def _locked(conn: psycopg.Connection[Any]) -> bool:
    row = conn.execute("SELECT pg_try_advisory_lock(%s)", (_MIGRATION_LOCK_KEY,)).fetchone()
    return bool(row and row[0])


def checkpointer_pool(
    url: str, *, pool_size: int = DEFAULT_POOL_SIZE, prepared_statements: bool = True
) -> ConnectionPool[psycopg.Connection[dict[str, Any]]]:
    """The pool LangGraph's PostgresSaver needs: autocommit, rows as dicts.

    With ``prepared_statements`` a statement a connection runs often (psycopg's threshold: five
    times) is prepared on the server and from then on neither parsed nor planned again: the
    same few dozen statements make up every request, and preparing them cut the server's CPU
    per request by about a quarter (bench figure 8). Without it nothing is prepared, for a
    transaction-pooling proxy that cannot keep prepared statements (PgBouncer before 1.21, or
    with max_prepared_statements = 0), where a prepared statement may be asked for on a server
    connection that never saw it."""
    settings: dict[str, Any] = {"autocommit": True, "row_factory": dict_row}
    if not prepared_statements:
        settings["prepare_threshold"] = None
    pool: ConnectionPool[psycopg.Connection[dict[str, Any]]] = ConnectionPool(
        url, min_size=1, max_size=pool_size, kwargs=settings, open=False
    )
    pool.open(wait=True, timeout=30)
    return pool


def unreachable(url: str) -> str | None:
    """Why the server at ``url`` cannot be used (one line, no password), or None."""
    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return redacted(f"PostgreSQL at {url} is not reachable: {' '.join(str(exc).split())}")
    return None


@contextmanager
def scratch_schema(server: str, *, prefix: str) -> Iterator[str]:
    """A URL whose connections work in a fresh schema of ``server``'s database, dropped
    afterwards: what the tests and the benchmark use to keep each run's tables apart."""
    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in server else "?"
    try:
        yield f"{server}{separator}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
