"""Fingerprints of every capability definition the host has seen (trust on first use).

When a server changes a definition after the host first saw it (a "rug pull"), the next call
goes to review, showing old and new. The new definition is pinned only when a reviewer
approves a call to it, so silence never turns into acceptance.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from storage import Database, open_database
from storage.database import migrate

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE IF NOT EXISTS capability_pins ("
        " key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, definition TEXT NOT NULL, pinned_at TEXT NOT NULL)",
    ),
)

PINNED_FIELDS = ("description", "input_schema", "output_schema", "annotations")


@dataclass(frozen=True)
class Pin:
    fingerprint: str
    definition: dict[str, Any]


def definition_of(capability: Capability) -> dict[str, Any]:
    return {name: getattr(capability, name) for name in PINNED_FIELDS}


class PinStore(Protocol):
    def get(self, key: str) -> Pin | None: ...

    def put(self, key: str, pin: Pin) -> None: ...


class MemoryPinStore:
    def __init__(self) -> None:
        self._pins: dict[str, Pin] = {}

    def get(self, key: str) -> Pin | None:
        return self._pins.get(key)

    def put(self, key: str, pin: Pin) -> None:
        self._pins[key] = pin


class DatabasePinStore:
    """Pins in the Gatehouse database, beside the checkpoints (shared by replicas)."""

    def __init__(self, db: Database | Path | str) -> None:
        self._db = open_database(db)
        migrate(self._db, "pins", _MIGRATIONS)

    @property
    def database(self) -> Database:
        """Where the rows are: what storage/transactions.py one_transaction takes."""
        return self._db

    def get(self, key: str) -> Pin | None:
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT fingerprint, definition FROM capability_pins WHERE key = ?", (key,)
            ).fetchone()
        return Pin(fingerprint=row["fingerprint"], definition=json.loads(row["definition"])) if row else None

    def put(self, key: str, pin: Pin) -> None:
        now = datetime.now(UTC).isoformat()
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO capability_pins (key, fingerprint, definition, pinned_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint,"
                " definition = excluded.definition, pinned_at = excluded.pinned_at",
                (key, pin.fingerprint, json.dumps(pin.definition, sort_keys=True), now),
            )

    def close(self) -> None:
        self._db.close()


def changed_fields(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    return [name for name in PINNED_FIELDS if old.get(name) != new.get(name)]
