"""Where Gatehouse keeps its own tables (reviews, audit log, conversations, pins): one seam, a
SQLite file by default or a PostgreSQL database shared by several replicas."""

from __future__ import annotations

from pathlib import Path

from storage.database import DEFAULT_POOL_SIZE, Database, Dialect, is_postgres_url
from storage.sqlite import SqliteDatabase


def open_database(
    target: str | Path | Database, *, pool_size: int = DEFAULT_POOL_SIZE, prepared_statements: bool = True
) -> Database:
    """A database for a file path, a postgresql:// URL, or one already open (returned as is).
    ``pool_size`` and ``prepared_statements`` apply to a PostgreSQL pool (storage/postgres.py)."""
    if isinstance(target, Path):
        return SqliteDatabase(target)
    if isinstance(target, str):
        if is_postgres_url(target):
            from storage.postgres import PostgresDatabase

            return PostgresDatabase(target, pool_size=pool_size, prepared_statements=prepared_statements)
        return SqliteDatabase(Path(target))
    return target


__all__ = ["Database", "Dialect", "SqliteDatabase", "is_postgres_url", "open_database"]
