"""The calls MCP clients make through `gatehouse serve`, kept so that a call answered later
(it waits for a reviewer) is the same call however the client comes back for it.

A call is *open* from the moment it is claimed until its answer reached the client (or the
client cancelled it). While it is open, the same call again (same caller, same tool, same
arguments) is not a new call: it joins the open one, on whichever replica it arrives, so an
approved call runs once however often a client retries or reconnects. The open call's id is
also its task handle (the tasks extension, gatehouse/gateway/tasks.py): a client with tasks
asks for the result by it.

Claiming is one insert under a unique index on the open calls' identity: two replicas
claiming the same call at once cannot both win, and the loser reads the winner's row.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from gatehouse_verify.canonical import canonical_json
from storage import Database, open_database
from storage.database import migrate

# How an open call ended: its answer reached the client; the client cancelled it; or its answer
# was never fetched and a later call of the same (after JOIN_WINDOW) started afresh.
ClosedHow = Literal["delivered", "cancelled", "unclaimed"]

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS client_calls (
        id TEXT PRIMARY KEY,
        requester TEXT NOT NULL,
        capability_key TEXT NOT NULL,
        arguments_hash TEXT NOT NULL,
        client TEXT,
        thread_id TEXT NOT NULL,
        opened_at TEXT NOT NULL,
        closed_at TEXT,
        closed_how TEXT)""",
        # At most one open call per identity: the claim's insert is what decides who runs it.
        "CREATE UNIQUE INDEX IF NOT EXISTS client_calls_open"
        " ON client_calls (requester, capability_key, arguments_hash) WHERE closed_at IS NULL",
    ),
)


def arguments_hash(arguments: dict[str, Any]) -> str:
    """The arguments' identity: equal JSON, equal hash (key order and spacing do not count)."""
    return hashlib.sha256(canonical_json(arguments).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ClientCall:
    id: str
    requester: str
    capability_key: str
    arguments_hash: str
    client: str | None
    thread_id: str
    opened_at: datetime
    closed_at: datetime | None
    closed_how: ClosedHow | None

    @property
    def open(self) -> bool:
        return self.closed_at is None


@dataclass(frozen=True)
class Claim:
    call: ClientCall
    # True: this claim opened the call, and its caller runs it. False: it joined an open one.
    opened: bool


class ClientCalls:
    """Claim, find and close client calls, on Gatehouse's database (SQLite or PostgreSQL)."""

    def __init__(
        self, db: Database | Path | str, *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        self._db = open_database(db)
        self._clock = clock
        migrate(self._db, "client_calls", _MIGRATIONS)

    def close_database(self) -> None:
        self._db.close()

    def claim(
        self, requester: str, key: str, arguments: dict[str, Any], *, client: str | None, thread_id: str
    ) -> Claim:
        """Open this call on ``thread_id``, or join the open call with its identity."""
        identity = (requester, key, arguments_hash(arguments))
        new_id = f"call_{uuid.uuid4().hex}"
        with self._db.write() as conn:
            inserted = conn.execute(
                "INSERT INTO client_calls"
                " (id, requester, capability_key, arguments_hash, client, thread_id, opened_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (new_id, *identity, client, thread_id, self._now()),
            ).rowcount
            row = conn.execute(
                "SELECT * FROM client_calls WHERE requester = ? AND capability_key = ? AND arguments_hash = ?"
                " AND closed_at IS NULL",
                identity,
            ).fetchone()
        return Claim(self._record(row), opened=inserted == 1)

    def get(self, call_id: str) -> ClientCall | None:
        with self._db.read() as conn:
            row = conn.execute("SELECT * FROM client_calls WHERE id = ?", (call_id,)).fetchone()
        return self._record(row) if row is not None else None

    def close(self, call_id: str, how: ClosedHow) -> bool:
        """Close an open call; False when it was closed already (its first closing stands)."""
        with self._db.write() as conn:
            return (
                conn.execute(
                    "UPDATE client_calls SET closed_at = ?, closed_how = ? WHERE id = ? AND closed_at IS NULL",
                    (self._now(), how, call_id),
                ).rowcount
                == 1
            )

    def _now(self) -> str:
        return self._clock().isoformat()

    @staticmethod
    def _record(row: Any) -> ClientCall:
        closed = row["closed_at"]
        return ClientCall(
            id=row["id"],
            requester=row["requester"],
            capability_key=row["capability_key"],
            arguments_hash=row["arguments_hash"],
            client=row["client"],
            thread_id=row["thread_id"],
            opened_at=datetime.fromisoformat(row["opened_at"]),
            closed_at=datetime.fromisoformat(closed) if closed else None,
            closed_how=row["closed_how"],
        )
