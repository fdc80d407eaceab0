"""Where Gatehouse keeps its own tables (reviews, audit log, conversations, pins): one seam, a
SQLite file by default or a PostgreSQL database shared by several replicas."""

from __future__ import annotations

from pathlib import Path

from storage.database import Database, Dialect, is_postgres_url
from storage.sqlite import SqliteDatabase


def open_database(target: str | Path | Database) -> Database:
    """A database for a file path, a postgresql:// URL, or one already open (returned as is)."""
    if isinstance(target, Path):
        return SqliteDatabase(target)
    if isinstance(target, str):
        if is_postgres_url(target):
            from storage.postgres import PostgresDatabase

            return PostgresDatabase(target)
        return SqliteDatabase(Path(target))
    return target


__all__ = ["Database", "Dialect", "SqliteDatabase", "is_postgres_url", "open_database"]
