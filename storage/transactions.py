"""Nested writes join the transaction their thread already has open on the same database.

A change to the ledger and the audit event that records it are written by two stores; written
in two transactions, a crash or an error between them leaves a decision, an execution start or a
request with no event in the audit log. So a service opens one write transaction
(``one_transaction``) and every store's ``write()`` inside it, on the same thread and the same
database, joins it: they commit together or not at all. Reads on that thread go through it too,
so they see what it wrote. It also costs the database one commit instead of several.

A joined write that fails dooms the whole transaction: if the caller catches the error and goes
on, the outermost write rolls back at its end and raises, instead of committing half of it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

from mcp_host.reported import InternalError
from storage.database import Connection, Database


class CaughtWriteError(InternalError, RuntimeError):
    """A write inside a shared transaction failed and its error was caught: nothing was committed."""


@dataclass
class _Open:
    connection: Connection
    doomed: BaseException | None = None


class ThreadTransactions:
    """The write transaction each thread has open on one database."""

    def __init__(self) -> None:
        self._local = threading.local()

    def current(self) -> Connection | None:
        """The connection of this thread's open write transaction, if it has one."""
        open_: _Open | None = getattr(self._local, "open", None)
        return open_.connection if open_ is not None else None

    @contextmanager
    def write(self, begin: Callable[[], AbstractContextManager[Connection]]) -> Iterator[Connection]:
        """Join this thread's open transaction, or open one with ``begin`` (which commits on a
        clean exit and rolls back on an exception)."""
        open_: _Open | None = getattr(self._local, "open", None)
        if open_ is not None:
            try:
                yield open_.connection
            except BaseException as exc:
                open_.doomed = open_.doomed or exc
                raise
            return
        with begin() as connection:
            state = _Open(connection)
            self._local.open = state
            try:
                yield connection
            finally:
                self._local.open = None
            if state.doomed is not None:
                # Raised inside begin()'s block: it rolls the transaction back.
                raise CaughtWriteError(
                    "a write inside a shared transaction failed and the error was caught; "
                    f"the transaction was rolled back ({type(state.doomed).__name__}: {state.doomed})"
                ) from state.doomed


def one_transaction(*databases: Database) -> AbstractContextManager[Connection]:
    """One write transaction for the writes of several stores: they commit together or not at all.

    Args:
        databases: the stores' databases (``store.database``); all must be the same one.

    Returns:
        The write transaction, as ``Database.write()`` gives it.

    Raises:
        ValueError: the stores are on different databases, so one transaction cannot hold
            their writes (a wiring mistake).
    """
    first = databases[0]
    if any(db is not first for db in databases[1:]):
        opened = {id(db): db.description for db in databases}
        raise ValueError(
            f"one transaction needs the stores on one open database; they are on {len(opened)}: "
            + ", ".join(opened.values())
            + " (open the database once and pass it to every store)"
        )
    return first.write()
