"""Remembered approvals (grants): a reviewer's approval extended beyond the one call.

A grant covers later calls of one capability (the same server and definition) whose arguments
stay within its bounds (policies/grant_bounds.py), in one scope: a thread, a requester, or
everyone for a time window; it expires, may cap its uses, and may be revoked. Its rows live in
the Gatehouse database beside the review ledger, on SQLite or PostgreSQL alike.

A use is consumed once: one UPDATE that also checks the grant is live and has a use left, so of
any number of replicas racing for its last use exactly one gets it; and a use is recorded under
the key of the step that consumed it, so a step re-run after a crash uses the same use again
instead of a second one.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel

from policies.grant_bounds import Bounds, describe
from reviews.clock import iso, utc_now
from storage import Database
from storage.database import migrate

GrantScope = Literal["thread", "requester", "window"]
GrantState = Literal["active", "expired", "revoked", "used_up"]

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS grants (
        id TEXT PRIMARY KEY,
        review_id TEXT NOT NULL,
        capability_key TEXT NOT NULL,
        server TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        capability TEXT NOT NULL,
        arguments TEXT NOT NULL,
        bounds TEXT NOT NULL,
        flag_codes TEXT NOT NULL,
        scope TEXT NOT NULL,
        thread_id TEXT,
        requester TEXT,
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        uses_max INTEGER,
        uses_left INTEGER,
        use_count INTEGER NOT NULL DEFAULT 0,
        policy_version INTEGER,
        revoked_at TEXT,
        revoked_by TEXT,
        revoke_reason TEXT)""",
        "CREATE INDEX IF NOT EXISTS grants_by_capability ON grants (capability_key, expires_at)",
        """CREATE TABLE IF NOT EXISTS grant_uses (
        grant_id TEXT NOT NULL REFERENCES grants (id),
        use_key TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        call_hash TEXT NOT NULL,
        used_at TEXT NOT NULL,
        PRIMARY KEY (grant_id, use_key))""",
    ),
)
# Who ends a grant that a new version of the policy would no longer allow.
POLICY_REVOKER = "gatehouse"


class Grant(BaseModel):
    id: str
    review_id: str
    capability_key: str
    server: str
    fingerprint: str
    # The definition approved (mcp_host.manifest.Capability as JSON) and the approved call's
    # arguments: what a new version of the policy is asked about. None: not read (live_for
    # leaves them out; get reads them).
    capability: dict[str, Any] | None
    arguments: dict[str, Any] | None
    bounds: Bounds
    # The codes of the flags the approved call was shown with: a later call raising any other
    # (a new concern nobody saw) is not covered.
    flag_codes: list[str]
    scope: GrantScope
    thread_id: str | None = None
    requester: str | None = None
    created_by: str
    created_at: str
    expires_at: str
    uses_max: int | None = None
    uses_left: int | None = None
    use_count: int = 0
    policy_version: int | None = None
    revoked_at: str | None = None
    revoked_by: str | None = None
    revoke_reason: str | None = None

    def state(self, now: datetime) -> GrantState:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at <= iso(now):
            return "expired"
        if self.uses_left is not None and self.uses_left <= 0:
            return "used_up"
        return "active"

    def scope_words(self) -> str:
        if self.scope == "thread":
            return f"thread {self.thread_id}"
        if self.scope == "requester":
            return f"requests by {self.requester}"
        return "anyone's requests"

    def summary(self) -> dict[str, Any]:
        """What a call that ran under it carries (its result, trace and audit event): a stable
        id others refer to it by, and who approved what for whom, until when."""
        return {
            "id": self.id,
            "by": self.created_by,
            "review_id": self.review_id,
            "scope": self.scope_words(),
            "bounds": describe(self.bounds),
            "expires_at": self.expires_at,
            "uses_left": self.uses_left,
        }


@dataclass(frozen=True)
class Used:
    """A use a call runs under: the uses left after it (None: no cap), and whether the step
    had taken it before (it ran again after a crash: no second use)."""

    uses_left: int | None
    again: bool


def new_grant_id() -> str:
    """A grant's id: short enough to type, random, and never reused."""
    return f"g-{secrets.token_hex(6)}"


def _row_to_grant(row: Any) -> Grant:
    data = dict(row)
    for name in ("capability", "arguments", "bounds", "flag_codes"):
        data[name] = json.loads(data[name]) if name in data else None
    return Grant.model_validate(data)


# What deciding whether a grant covers a call reads: every column but the approved definition
# and arguments (read only when a new policy version asks about them), for the hot path.
_COVER_COLUMNS = (
    "id, review_id, capability_key, server, fingerprint, bounds, flag_codes, scope, thread_id, requester,"
    " created_by, created_at, expires_at, uses_max, uses_left, use_count, policy_version, revoked_at,"
    " revoked_by, revoke_reason"
)


class GrantStore:
    """The grants table and its uses, in the Gatehouse database."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utc_now) -> None:
        self._db = db
        # Where its time comes from: what expiry is judged against (a test sets its own).
        self.clock = clock
        migrate(db, "grants", _MIGRATIONS)

    @property
    def database(self) -> Database:
        return self._db

    def now(self) -> datetime:
        return self.clock()

    def add(self, grant: Grant) -> None:
        """Record a new grant (inside the decision's transaction, when there is one)."""
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO grants (id, review_id, capability_key, server, fingerprint, capability, arguments,"
                " bounds, flag_codes, scope, thread_id, requester, created_by, created_at, expires_at,"
                " uses_max, uses_left, use_count, policy_version)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)",
                (
                    grant.id,
                    grant.review_id,
                    grant.capability_key,
                    grant.server,
                    grant.fingerprint,
                    json.dumps(grant.capability),
                    json.dumps(grant.arguments),
                    json.dumps(grant.bounds),
                    json.dumps(grant.flag_codes),
                    grant.scope,
                    grant.thread_id,
                    grant.requester,
                    grant.created_by,
                    grant.created_at,
                    grant.expires_at,
                    grant.uses_max,
                    grant.uses_left,
                    grant.policy_version,
                ),
            )

    def get(self, grant_id: str) -> Grant | None:
        with self._db.read() as conn:
            row = conn.execute("SELECT * FROM grants WHERE id = ?", (grant_id,)).fetchone()
        return _row_to_grant(row) if row is not None else None

    def all(self) -> list[Grant]:
        """Every grant, newest first."""
        with self._db.read() as conn:
            rows = conn.execute("SELECT * FROM grants ORDER BY created_at DESC, id DESC").fetchall()
        return [_row_to_grant(row) for row in rows]

    def live(self) -> list[Grant]:
        """Every grant that may still cover a call now, oldest first."""
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM grants WHERE expires_at > ? AND revoked_at IS NULL"
                " AND (uses_left IS NULL OR uses_left > 0) ORDER BY created_at, id",
                (iso(self.clock()),),
            ).fetchall()
        return [_row_to_grant(row) for row in rows]

    def live_for(self, capability_key: str) -> list[Grant]:
        """The grants of a capability that may still cover a call now (not revoked, not
        expired, a use left), oldest first: one indexed read."""
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT {_COVER_COLUMNS} FROM grants WHERE capability_key = ? AND expires_at > ?"
                " AND revoked_at IS NULL"
                " AND (uses_left IS NULL OR uses_left > 0) ORDER BY created_at, id",
                (capability_key, iso(self.clock())),
            ).fetchall()
        return [_row_to_grant(row) for row in rows]

    def use(self, grant_id: str, *, use_key: str, thread_id: str, call_hash: str) -> Used | None:
        """Consume one use of a grant for the step ``use_key``, exactly once.

        A step that used it before (re-run after a crash) gets True without a second use. Else
        one UPDATE takes a use only while the grant is live and has one left: of replicas
        racing for the last use, the database lets exactly one through.

        Returns:
            The uses left after it when the call may run under the grant; None when it may not
            (revoked, expired or used up meanwhile).
        """
        now = iso(self.clock())
        with self._db.write() as conn:
            before = conn.execute(
                "SELECT g.uses_left FROM grant_uses u JOIN grants g ON g.id = u.grant_id"
                " WHERE u.grant_id = ? AND u.use_key = ?",
                (grant_id, use_key),
            ).fetchone()
            if before is not None:
                return Used(before["uses_left"], again=True)
            taken = conn.execute(
                "UPDATE grants SET use_count = use_count + 1,"
                " uses_left = CASE WHEN uses_left IS NULL THEN NULL ELSE uses_left - 1 END"
                " WHERE id = ? AND revoked_at IS NULL AND expires_at > ?"
                " AND (uses_left IS NULL OR uses_left > 0) RETURNING uses_left",
                (grant_id, now),
            ).fetchone()
            if taken is None:
                return None
            recorded = conn.execute(
                "INSERT INTO grant_uses (grant_id, use_key, thread_id, call_hash, used_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (grant_id, use_key) DO NOTHING",
                (grant_id, use_key, thread_id, call_hash, now),
            ).rowcount
            if recorded != 1:
                # The same step committed its use while this one waited for the row: give
                # back the use taken twice.
                conn.execute(
                    "UPDATE grants SET use_count = use_count - 1,"
                    " uses_left = CASE WHEN uses_left IS NULL THEN NULL ELSE uses_left + 1 END WHERE id = ?",
                    (grant_id,),
                )
                return Used(None if taken["uses_left"] is None else taken["uses_left"] + 1, again=True)
        return Used(taken["uses_left"], again=False)

    def revoke(self, grant_id: str, *, by: str, reason: str) -> bool:
        """End a grant now. True when this call ended it; False if it was ended before (or no
        grant has that id)."""
        with self._db.write() as conn:
            return (
                conn.execute(
                    "UPDATE grants SET revoked_at = ?, revoked_by = ?, revoke_reason = ?"
                    " WHERE id = ? AND revoked_at IS NULL",
                    (iso(self.clock()), by, reason, grant_id),
                ).rowcount
                == 1
            )

    def mark_checked(self, grant_id: str, policy_version: int | None) -> None:
        """The grant was checked against this version of the policy and still holds."""
        with self._db.write() as conn:
            conn.execute("UPDATE grants SET policy_version = ? WHERE id = ?", (policy_version, grant_id))
