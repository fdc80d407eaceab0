"""Bearer tokens Gatehouse issues to people of the roster, for MCP clients calling through
`gatehouse serve` (docs/mcp-gateway.md).

A token is shown once, when it is issued; the database keeps only its SHA-256 hash, whose it
is, when it expires and whether it was revoked. A token is 32 random bytes, so a plain
hash is enough (there is nothing to guess a password from, unlike a person's password, which
would need a slow hash). Every replica reads the same rows: a token revoked on one is refused
by all of them on the next request.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from mcp_host.reported import UsageError
from storage import Database, open_database
from storage.database import migrate

# What a Gatehouse token starts with: a reader of a log or a leaked file tells it from others.
TOKEN_PREFIX = "gth_"
DEFAULT_EXPIRY_DAYS = 90
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS access_tokens (
        id TEXT PRIMARY KEY,
        user_name TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        revoked_at TEXT)""",
    ),
)


class UnknownTokenError(UsageError):
    """``tokens revoke ID`` named no token that was issued."""


@dataclass(frozen=True)
class TokenRecord:
    """A token as the database keeps it: never the token itself."""

    id: str
    user: str
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None

    def state(self, now: datetime) -> str:
        if self.revoked_at is not None:
            return "revoked"
        return "expired" if now >= self.expires_at else "active"


@dataclass(frozen=True)
class IssuedToken:
    """A token just issued: ``token`` is the only time anyone sees it."""

    record: TokenRecord
    token: str


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _when(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


class AccessTokenStore:
    """Issue, check, list and revoke bearer tokens, on Gatehouse's database (SQLite or PostgreSQL)."""

    def __init__(
        self, db: Database | Path | str, *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        self._db = open_database(db)
        self._clock = clock
        migrate(self._db, "access_tokens", _MIGRATIONS)

    @property
    def database(self) -> Database:
        return self._db

    def close(self) -> None:
        self._db.close()

    def issue(self, user: str, *, days: float = DEFAULT_EXPIRY_DAYS) -> IssuedToken:
        """A new token for ``user`` that stops working after ``days``. Whether ``user`` may
        have one (the roster) is the caller's check: this store knows no policy."""
        if days <= 0:
            raise UsageError(f"--expires: {days:g} days: a token must live for a positive number of days")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        now = self._clock().replace(microsecond=0)
        record = TokenRecord(
            id=f"tok_{secrets.token_hex(4)}",
            user=user,
            created_at=now,
            expires_at=now + timedelta(days=days),
            revoked_at=None,
        )
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO access_tokens (id, user_name, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                (
                    record.id,
                    user,
                    token_hash(token),
                    record.created_at.isoformat(),
                    record.expires_at.isoformat(),
                ),
            )
        return IssuedToken(record, token)

    def verify(self, token: str) -> TokenRecord | None:
        """The token's record when it is one Gatehouse issued, unrevoked and unexpired; else None."""
        if not token.startswith(TOKEN_PREFIX):
            return None
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT * FROM access_tokens WHERE token_hash = ?", (token_hash(token),)
            ).fetchone()
        if row is None:
            return None
        record = self._record(row)
        return record if record.state(self._clock()) == "active" else None

    def list(self) -> list[TokenRecord]:
        """Every token issued, newest first (revoked and expired ones too: an admin reads why
        a client is refused)."""
        with self._db.read() as conn:
            rows = conn.execute("SELECT * FROM access_tokens ORDER BY created_at DESC, id").fetchall()
        return [self._record(row) for row in rows]

    def revoke(self, token_id: str) -> TokenRecord:
        """End a token now; revoking one already revoked keeps its first time. Raises
        UnknownTokenError for an id never issued."""
        with self._db.write() as conn:
            conn.execute(
                "UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                (self._clock().replace(microsecond=0).isoformat(), token_id),
            )
            row = conn.execute("SELECT * FROM access_tokens WHERE id = ?", (token_id,)).fetchone()
        if row is None:
            raise UnknownTokenError(f"no token {token_id!r} was issued (see gatehouse tokens list)")
        return self._record(row)

    @staticmethod
    def _record(row: Any) -> TokenRecord:
        return TokenRecord(
            id=row["id"],
            user=row["user_name"],
            created_at=datetime.fromisoformat(row["created_at"]),
            expires_at=datetime.fromisoformat(row["expires_at"]),
            revoked_at=_when(row["revoked_at"]),
        )
