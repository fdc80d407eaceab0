"""What a command that only reads needs, without the graph or the servers: the policy (for the
secret names it hides), a check that the database is there, the review ledger and the audit log.

Kept apart from gatehouse/wiring.py, which builds everything (LangGraph, the MCP SDK, the
checkpointer), so that `gatehouse reviews list` starts in a fraction of the time: it imports
only the ledger, the policy model and the database it reads."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from gatehouse.errors import ConfigurationError

if TYPE_CHECKING:
    from gatehouse.settings import Settings
    from policies.model import PolicyFile
    from reviews.audit import AuditLog
    from reviews.ledger import ReviewLedger


def policy_file(settings: Settings) -> PolicyFile:
    """The configured policy file, or the shipped default, as the file says; ${GATEHOUSE_DATA}
    names the data folder (and the other helpers mean what they do in a servers file:
    Settings.file_variables). A bad policy raises PolicyError, which reports itself
    (mcp_host/reported.py). What a process runs on is the newest version in its database
    (changes approved in the app): wiring.py's build_services, from policy_text and policy_parser."""
    text, path = policy_text(settings)
    return policy_parser(settings)(text, str(path))


def policy_text(settings: Settings) -> tuple[str, Path]:
    """The policy file's text and where it is (the shipped default when none is configured)."""
    from policies.loader import DEFAULT_POLICY, read_policy_text

    path = settings.policy_path or DEFAULT_POLICY
    return read_policy_text(path), path


def policy_parser(settings: Settings) -> Callable[[str, str], PolicyFile]:
    """Check a policy's text (and name it in errors) as this process reads its file: with its
    environment's variables and Gatehouse's helper variables."""
    from policies.loader import parse_policy_text

    variables = {**os.environ, **settings.file_variables}

    def parse(text: str, source: str) -> PolicyFile:
        return parse_policy_text(text, source=source, variables=variables)

    return parse


def require_existing_database(settings: Settings) -> None:
    """For commands that only read: the database must be there; they never create one (an
    empty database would answer "no reviews", "0 events, chain intact")."""
    if settings.db_url is not None:
        from storage.postgres import unreachable

        problem = unreachable(settings.db_url)
        if problem is not None:
            raise ConfigurationError(f"database {settings.database}: {problem}")
    elif not settings.db_path.is_file():
        what = "not a file" if settings.db_path.exists() else "no such file"
        raise ConfigurationError(
            f"database {settings.db_path}: {what} (this command only reads a database;"
            " check --db or GATEHOUSE_DB)"
        )


def database_errors(settings: Settings, *, opening: bool) -> tuple[type[BaseException], ...]:
    """What this database raises when it cannot be used: a file that is not a database, and
    while ``opening`` also a folder in the way or an unreachable PostgreSQL database. Once it is
    open, an OSError is not the database's (a closed pipe while printing must stay exit 141).
    The PostgreSQL driver is imported only for a PostgreSQL database."""
    found: tuple[type[BaseException], ...] = (sqlite3.Error,)
    if settings.db_url is not None:
        import psycopg
        from psycopg_pool import PoolTimeout

        found += (psycopg.Error, PoolTimeout) if opening else (psycopg.Error,)
    return (*found, OSError) if opening else found


@contextmanager
def open_ledger_for_reading(settings: Settings) -> Iterator[ReviewLedger]:
    """The review ledger of an existing database, read as it is: nothing is expired or
    resumed on the way (that is `reviews sweep`'s job), so no graph is needed."""
    from reviews.ledger import ReviewLedger

    require_existing_database(settings)
    try:
        ledger = ReviewLedger(settings.open_database())
    except database_errors(settings, opening=True) as exc:
        raise ConfigurationError(f"database {settings.database}: cannot open it: {exc}") from exc
    try:
        yield ledger
    except database_errors(settings, opening=False) as exc:
        raise ConfigurationError(f"database {settings.database}: cannot read it: {exc}") from exc
    finally:
        ledger.close()


@contextmanager
def open_audit_log(settings: Settings) -> Iterator[AuditLog]:
    """The audit log of an existing database, for `audit verify`, `export` and `anchor`."""
    from reviews.audit import AuditLog

    require_existing_database(settings)
    keys = settings.audit_keys()  # a bad key is refused before the database is opened
    try:
        audit = AuditLog(settings.open_database(), keys=keys)
    except database_errors(settings, opening=True) as exc:
        raise ConfigurationError(f"database {settings.database}: cannot open it: {exc}") from exc
    try:
        yield audit
    except database_errors(settings, opening=False) as exc:
        raise ConfigurationError(f"database {settings.database}: cannot read it: {exc}") from exc
    finally:
        audit.close()
