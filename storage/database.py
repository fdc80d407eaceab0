"""The seam: a database hands out transactions; the stores write one SQL text for both
backends, with ``?`` placeholders, and ask the dialect only for what the two really differ in."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
# Connections per PostgreSQL pool a process opens (GATEHOUSE_DB_POOL_SIZE overrides it).
DEFAULT_POOL_SIZE = 10


def is_postgres_url(value: str) -> bool:
    return value.startswith(POSTGRES_SCHEMES)


@dataclass(frozen=True)
class Dialect:
    name: str
    # Appended to a SELECT that reads a row the transaction will change: PostgreSQL locks the
    # row until commit; SQLite needs nothing (a write transaction holds the database's lock).
    lock_rows: str


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """Rows come back as mappings (``row["column"]``) on both backends."""

    def execute(self, sql: str, params: Sequence[Any] = (), /) -> Cursor: ...


class Database(Protocol):
    dialect: Dialect
    # Where it is, without credentials (for messages).
    description: str

    def write(self) -> AbstractContextManager[Connection]:
        """A transaction that holds what it reads until it commits (see Dialect.lock_rows).
        Inside another write on the same thread it joins that one (storage/transactions.py)."""
        ...

    def read(self) -> AbstractContextManager[Connection]:
        """A connection for reading; on a thread with a write open, that write's."""
        ...

    def snapshot(self) -> AbstractContextManager[Connection]:
        """A read-only transaction whose every statement sees the database as of one moment,
        whatever other connections commit meanwhile: for a reader that holds one read against
        another (audit verify holds each chain's rows against its head), where separate
        statements would each see a different moment and a commit between them would read as
        an inconsistency. Reads only."""
        ...

    def migrating(self) -> AbstractContextManager[None]:
        """Held while tables are created or migrated (one process at a time)."""
        ...

    def close(self) -> None: ...


def migrate(db: Database, store: str, steps: Sequence[Sequence[str]]) -> int:
    """Bring ``store``'s tables to the newest schema: run the steps it has not run yet, each
    in the transaction that records it, so two processes starting together run each once.
    Returns the version reached."""
    with db.migrating(), db.write() as conn:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS gatehouse_schema (store TEXT PRIMARY KEY, version INTEGER NOT NULL)"
        )
    with db.write() as conn:
        row = conn.execute(
            f"SELECT version FROM gatehouse_schema WHERE store = ?{db.dialect.lock_rows}", (store,)
        ).fetchone()
        if row is None:
            conn.execute(
                "INSERT INTO gatehouse_schema (store, version) VALUES (?, 0) ON CONFLICT (store) DO NOTHING",
                (store,),
            )
            row = conn.execute(
                f"SELECT version FROM gatehouse_schema WHERE store = ?{db.dialect.lock_rows}", (store,)
            ).fetchone()
        version = int(row["version"])
        for number, statements in enumerate(steps[version:], start=version + 1):
            for statement in statements:
                conn.execute(statement)
            conn.execute("UPDATE gatehouse_schema SET version = ? WHERE store = ?", (number, store))
            version = number
    return version
