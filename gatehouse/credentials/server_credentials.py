"""Remote servers' OAuth tokens and client registrations, encrypted in Gatehouse's database.

Every replica reads the same rows, so a person who signs in once (from the app or with
``gatehouse servers login``) has signed in for all of them. Values are encrypted with Fernet
(AES-128-CBC with an HMAC-SHA256, from ``cryptography``) under a key from the environment or
Streamlit secrets (``GATEHOUSE_SECRET_KEY``); without a key nothing is stored, and the error
says which variable to set. Several keys, comma-separated, allow rotation: the first encrypts,
all decrypt. The server, its address and the kind of value are sealed inside the ciphertext, so
a row copied onto another server's cannot be used there.

Nothing here prints, logs or returns a secret except ``load``, which hands the value to the
OAuth flow that sends it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from gatehouse.errors import ConfigurationError
from gatehouse.settings import SECRET_KEY_ENV
from mcp_host.oauth import CredentialKind
from mcp_host.reported import UsageError
from storage import Database, open_database
from storage.database import migrate

_GENERATE = 'python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"'
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS server_credentials (
        server TEXT NOT NULL,
        kind TEXT NOT NULL,
        url TEXT NOT NULL,
        sealed TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (server, kind))""",
    ),
)


class CredentialKeyError(UsageError, RuntimeError):
    """No key, a malformed key, or a key that does not open what is stored."""


def credential_key(raw: str | None) -> MultiFernet | None:
    """The key from ``GATEHOUSE_SECRET_KEY`` (Settings.secret_key), or None when it is not set.
    A malformed key is an error naming the variable."""
    keys = [part.strip() for part in (raw or "").split(",") if part.strip()]
    if not keys:
        return None
    try:
        return MultiFernet([Fernet(key.encode()) for key in keys])
    except ValueError:
        raise ConfigurationError(
            f"{SECRET_KEY_ENV} is not a valid key (32 url-safe base64-encoded bytes each, comma-separated); "
            f"make one with: {_GENERATE}"
        ) from None


def required_key(raw: str | None) -> MultiFernet:
    """The key, for a command that is about to sign in: without one it stops before anything
    starts, saying which variable to set."""
    key = credential_key(raw)
    if key is None:
        raise ConfigurationError(
            f"{SECRET_KEY_ENV} is not set: sign-ins are kept encrypted in the database and need a key; "
            f"make one with: {_GENERATE}"
        )
    return key


class EncryptedCredentialStore:
    """mcp_host.oauth.CredentialStore on Gatehouse's database (SQLite file or PostgreSQL)."""

    def __init__(
        self,
        db: Database | Path | str,
        key: MultiFernet | None,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._db = open_database(db)
        self._key = key
        self._clock = clock
        migrate(self._db, "credentials", _MIGRATIONS)

    @property
    def database(self) -> Database:
        """Where the rows are: what storage/transactions.py one_transaction takes."""
        return self._db

    def close(self) -> None:
        self._db.close()

    @property
    def has_key(self) -> bool:
        return self._key is not None

    def load(self, server: str, url: str, kind: CredentialKind) -> str | None:
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT url, sealed FROM server_credentials WHERE server = ? AND kind = ?", (server, kind)
            ).fetchone()
        # Kept for another address: never sent to this one (the servers file changed).
        if row is None or row["url"] != url:
            return None
        key = self._required_key(f"read the stored sign-in of {server}")
        try:
            opened = json.loads(key.decrypt(row["sealed"].encode()))
        except InvalidToken:
            raise CredentialKeyError(
                f"{SECRET_KEY_ENV} does not open the stored sign-in of {server}: was the key changed? "
                "Put the new key first and the old one after it, comma-separated, or sign in again"
            ) from None
        if opened.get("server") != server or opened.get("url") != url or opened.get("kind") != kind:
            raise CredentialKeyError(
                f"the stored sign-in of {server} was sealed for another server; sign in again"
            )
        value = opened.get("value")
        return value if isinstance(value, str) else None

    def save(self, server: str, url: str, kind: CredentialKind, value: str) -> None:
        key = self._required_key(f"keep the sign-in of {server}")
        sealed = key.encrypt(
            json.dumps({"server": server, "url": url, "kind": kind, "value": value}).encode()
        )
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO server_credentials (server, kind, url, sealed, updated_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (server, kind) DO UPDATE SET url = excluded.url, sealed = excluded.sealed, "
                "updated_at = excluded.updated_at",
                (server, kind, url, sealed.decode(), self._clock().isoformat(timespec="seconds")),
            )

    def forget(self, server: str) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM server_credentials WHERE server = ?", (server,))

    def signed_in_at(self, server: str, url: str) -> str | None:
        """When tokens for this server at this address were last stored, without opening them."""
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT url, updated_at FROM server_credentials WHERE server = ? AND kind = 'tokens'",
                (server,),
            ).fetchone()
        return str(row["updated_at"]) if row is not None and row["url"] == url else None

    def _required_key(self, purpose: str) -> MultiFernet:
        if self._key is None:
            raise CredentialKeyError(
                f"cannot {purpose}: set {SECRET_KEY_ENV} (in the environment or Streamlit secrets) to a key "
                f"made with: {_GENERATE}"
            )
        return self._key
