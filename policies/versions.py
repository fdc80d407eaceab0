"""Every version of the policy a Gatehouse database has run on, and which is current.

The policy file is read when a process starts; a change approved in the app is applied here,
in the database every replica shares, so each replica picks it up (policies/live.py) without
a restart, and a replica on another machine, with its own copy of the file, too. A version is
the policy's text (variables unexpanded: each process fills in its own), its digest and where
it came from: a file a process started on, or an approved change (reviews/policy_changes.py).

One head row names the current version. Whoever records a version locks it first, so two
changes applied at once are applied one after the other, and a poll is one indexed read.

``policy_files`` remembers each text a file has held (adopted from it, or written into it when
a change was applied) and the newest version it was seen at: a process starting on a file
holding one of those texts, with only changes approved in the app since, keeps those changes
(a replica on another machine whose copy of the file is older, or this file after a restart);
a file holding a text never seen in it (someone edited it), or a file chosen after another
file was adopted, is adopted as the newest version (``PolicyVersions.reconcile``). So going
back to an earlier text by hand is not seen as an edit: propose it in the app instead (or
change anything in the file, a comment will do).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from storage import Database
from storage.database import Connection, migrate

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS policy_versions (
        seq INTEGER PRIMARY KEY,
        hash TEXT NOT NULL,
        text TEXT NOT NULL,
        source TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        recorded_by TEXT,
        change_id TEXT)""",
        "CREATE TABLE IF NOT EXISTS policy_head (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)",
        "INSERT INTO policy_head (id, seq) VALUES (1, 0) ON CONFLICT (id) DO NOTHING",
        """CREATE TABLE IF NOT EXISTS policy_files (
        source TEXT NOT NULL,
        hash TEXT NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (source, hash))""",
    ),
)

FILE_SOURCE = "file:"
CHANGE_SOURCE = "change:"


def _now() -> datetime:
    return datetime.now(UTC)


def policy_digest(text: str) -> str:
    """The version's name: the sha256 of its text, as the file holds it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_source(path: str) -> str:
    return f"{FILE_SOURCE}{path}"


@dataclass(frozen=True)
class PolicyVersion:
    seq: int
    hash: str
    text: str
    # "file:<path>" (a process started on it) or "change:<id>" (approved in the app).
    source: str
    recorded_at: str
    recorded_by: str | None = None
    change_id: str | None = None

    @property
    def short(self) -> str:
        return self.hash[:12]

    @property
    def origin(self) -> str:
        """Where it came from, in words."""
        if self.source.startswith(CHANGE_SOURCE):
            return f"change {self.change_id}, approved by {self.recorded_by or 'someone'}"
        return f"the file {self.source.removeprefix(FILE_SOURCE)}"


Reconciled = Literal["adopted", "current", "kept_newer"]


@dataclass(frozen=True)
class Reconciliation:
    """What a process starting on a file runs on: ``version``, and why: the file was
    ``adopted`` (the first, or edited since), is the ``current`` version already, or is older
    than changes approved since (``kept_newer``: the database's version, not the file's)."""

    version: PolicyVersion
    outcome: Reconciled
    # The version the database had before, when the file replaced it.
    replaced: PolicyVersion | None = None


def _version(row: Any) -> PolicyVersion:
    data = dict(row)
    return PolicyVersion(
        seq=int(data["seq"]),
        hash=data["hash"],
        text=data["text"],
        source=data["source"],
        recorded_at=data["recorded_at"],
        recorded_by=data["recorded_by"],
        change_id=data["change_id"],
    )


def standing_version(db: Database, text: str, source: str) -> PolicyVersion | None:
    """For a command that only reads: the version a process starting on the file ``source``
    (holding ``text``) would run on instead of the file's text; None when the file's text
    stands or the database keeps no versions (it is not changed: nothing is created)."""
    with db.read() as conn:
        kept = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'gatehouse_schema'"
            if db.dialect.name == "sqlite"
            else "SELECT 1 FROM information_schema.tables WHERE table_name = 'gatehouse_schema'"
        ).fetchone()
        if (
            kept is None
            or conn.execute("SELECT 1 FROM gatehouse_schema WHERE store = 'policy_versions'").fetchone()
            is None
        ):
            return None
        current = PolicyVersions._current(conn)
        standing = PolicyVersions._standing(conn, current, source, policy_digest(text))
    return standing.version if standing is not None else None


class PolicyVersions:
    """The versions table. Writes take ``conn``, an open write transaction, so that a version
    and the audit event or change that records it are committed together."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = _now) -> None:
        self._db = db
        self._clock = clock
        migrate(db, "policy_versions", _MIGRATIONS)

    @property
    def database(self) -> Database:
        return self._db

    def head_seq(self) -> int:
        """The current version's number (0: none recorded yet): what a replica polls."""
        with self._db.read() as conn:
            row = conn.execute("SELECT seq FROM policy_head WHERE id = 1").fetchone()
        return int(row["seq"]) if row is not None else 0

    def current(self) -> PolicyVersion | None:
        with self._db.read() as conn:
            return self._current(conn)

    def get(self, seq: int) -> PolicyVersion | None:
        with self._db.read() as conn:
            row = conn.execute("SELECT * FROM policy_versions WHERE seq = ?", (seq,)).fetchone()
        return _version(row) if row is not None else None

    def history(self, limit: int = 50) -> list[PolicyVersion]:
        """The newest versions first."""
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM policy_versions ORDER BY seq DESC LIMIT ?", (limit,)
            ).fetchall()
        return [_version(row) for row in rows]

    @staticmethod
    def _current(conn: Connection) -> PolicyVersion | None:
        row = conn.execute(
            "SELECT v.* FROM policy_versions v JOIN policy_head h ON v.seq = h.seq WHERE h.id = 1"
        ).fetchone()
        return _version(row) if row is not None else None

    def lock_current(self, conn: Connection) -> PolicyVersion | None:
        """The current version, with the head locked until ``conn`` commits: nothing else
        records a version meanwhile."""
        # PostgreSQL locks the row; SQLite's write transaction holds the database already.
        conn.execute(f"SELECT seq FROM policy_head WHERE id = 1{self._db.dialect.lock_rows}").fetchone()
        return self._current(conn)

    def record(
        self,
        conn: Connection,
        text: str,
        *,
        source: str,
        by: str | None = None,
        change_id: str | None = None,
    ) -> PolicyVersion:
        """Make ``text`` the current version (the head must be locked: lock_current)."""
        row = conn.execute("SELECT seq FROM policy_head WHERE id = 1").fetchone()
        version = PolicyVersion(
            seq=int(row["seq"]) + 1,
            hash=policy_digest(text),
            text=text,
            source=source,
            recorded_at=self._clock().astimezone(UTC).isoformat(timespec="milliseconds"),
            recorded_by=by,
            change_id=change_id,
        )
        conn.execute(
            "INSERT INTO policy_versions (seq, hash, text, source, recorded_at, recorded_by, change_id)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                version.seq,
                version.hash,
                version.text,
                version.source,
                version.recorded_at,
                version.recorded_by,
                version.change_id,
            ),
        )
        conn.execute("UPDATE policy_head SET seq = ? WHERE id = 1", (version.seq,))
        return version

    def remember_file(self, conn: Connection, source: str, digest: str, seq: int) -> None:
        """``source`` holds the text ``digest`` as of version ``seq`` (adopted from it, or
        written into it when a change was applied)."""
        conn.execute(
            "INSERT INTO policy_files (source, hash, seq) VALUES (?, ?, ?)"
            " ON CONFLICT (source, hash) DO UPDATE SET seq = excluded.seq",
            (source, digest, seq),
        )

    def reconcile(self, conn: Connection, text: str, source: str) -> Reconciliation:
        """Which version a process starting on the file ``source`` (holding ``text``) runs on.

        The file is adopted, as a new version, when the database has none, or when the file
        holds a text it never held before, or when another file was adopted since it was last
        seen (someone chose or edited a file: that is the newest intent). A file holding a
        text it held before, with only changes approved in the app since, is older than they
        are: the database's current version stands. Locks the head (lock_current)."""
        current = self.lock_current(conn)
        digest = policy_digest(text)
        standing = self._standing(conn, current, source, digest)
        if standing is not None:
            if standing.outcome == "current":
                self.remember_file(conn, source, digest, standing.version.seq)
            return standing
        version = self.record(conn, text, source=source)
        self.remember_file(conn, source, digest, version.seq)
        return Reconciliation(version, "adopted", replaced=current)

    @staticmethod
    def _standing(
        conn: Connection, current: PolicyVersion | None, source: str, digest: str
    ) -> Reconciliation | None:
        if current is not None and current.hash == digest:
            return Reconciliation(current, "current")
        if current is not None and PolicyVersions._untouched_since(conn, source, digest):
            return Reconciliation(current, "kept_newer")
        return None

    @staticmethod
    def _untouched_since(conn: Connection, source: str, digest: str) -> bool:
        seen = conn.execute(
            "SELECT seq FROM policy_files WHERE source = ? AND hash = ?", (source, digest)
        ).fetchone()
        if seen is None:
            return False
        other_file = conn.execute(
            "SELECT 1 FROM policy_versions WHERE seq > ? AND source NOT LIKE ?",
            (int(seen["seq"]), f"{CHANGE_SOURCE}%"),
        ).fetchone()
        return other_file is None
