"""Connecting a remote server from the app: the sign-in's round trip through the browser.

An administrator presses Connect on the Servers page. A background thread starts the server's
OAuth flow (the SDK's, in a one-server pool like ``gatehouse servers login``); when the flow
needs the person, ``AppAuthorizer`` records the attempt in the database under its ``state`` and
waits. The page shows the starter a link to the authorization page; the authorization server
sends the browser back to the Servers page with ``code`` and ``state``, and the page writes them
onto the attempt (a compare-and-set: only a waiting attempt, only once). The waiting flow picks
the code up and finishes, the tokens land in the database, encrypted, and the app's own session
to that server is opened again. The return may reach another replica than the one that waits:
the database carries it.

The code is useless without the PKCE verifier, which never leaves the waiting flow's memory;
it is still kept encrypted and cleared once taken.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qs, urlsplit

import anyio
from cryptography.fernet import MultiFernet
from mcp.shared.auth import AuthorizationCodeResult

from gatehouse.credentials.server_credentials import required_key
from gatehouse.credentials.server_login import remote_entry
from gatehouse.display.server_words import offer_words
from gatehouse.settings import Settings
from gatehouse.wiring import server_pool
from mcp_host.config import ServersConfig
from storage import Database, open_database
from storage.database import migrate

AttemptStatus = Literal["waiting", "returned", "connected", "failed"]
# How long the app waits for a person to finish signing in.
SIGN_IN_SECONDS = 600.0
_POLL_SECONDS = 0.5
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS sign_in_attempts (
        id TEXT PRIMARY KEY,
        server TEXT NOT NULL,
        started_by TEXT NOT NULL,
        state TEXT,
        authorization_url TEXT,
        status TEXT NOT NULL,
        sealed_code TEXT,
        detail TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS sign_in_attempts_state ON sign_in_attempts (state)",
    ),
)


@dataclass(frozen=True)
class Attempt:
    id: str
    server: str
    started_by: str
    status: AttemptStatus
    authorization_url: str | None
    detail: str | None
    created_at: str


class SignInAttempts:
    """The sign-ins started from the app, shared by every replica through the database."""

    def __init__(self, db: Database | Path | str, key: MultiFernet | None) -> None:
        self._db = open_database(db)
        self._key = key
        migrate(self._db, "sign_in_attempts", _MIGRATIONS)

    @property
    def database(self) -> Database:
        """Where the rows are: what storage/transactions.py one_transaction takes."""
        return self._db

    def close(self) -> None:
        self._db.close()

    def start(self, server: str, started_by: str) -> str:
        attempt = uuid.uuid4().hex
        now = _now()
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO sign_in_attempts (id, server, started_by, status, created_at, updated_at) "
                "VALUES (?, ?, ?, 'waiting', ?, ?)",
                (attempt, server, started_by, now, now),
            )
        return attempt

    def waiting_at(self, attempt: str, authorization_url: str) -> None:
        """The flow needs the person: this is where they go (its ``state`` finds the attempt)."""
        state = {key: values[0] for key, values in parse_qs(urlsplit(authorization_url).query).items()}.get(
            "state"
        )
        with self._db.write() as conn:
            conn.execute(
                "UPDATE sign_in_attempts SET authorization_url = ?, state = ?, updated_at = ? WHERE id = ?",
                (authorization_url, state, _now(), attempt),
            )

    def returned(self, state: str, code: str | None, iss: str | None, error: str | None) -> str | None:
        """The browser came back with ``state``: record the code (or the refusal) on the waiting
        attempt. Returns the server's name, or None when no attempt waits for this state."""
        if self._key is None:
            return None
        sealed = self._key.encrypt(f"{code or ''}\n{iss or ''}".encode()).decode() if code else None
        with self._db.write() as conn:
            row = conn.execute(
                f"SELECT id, server FROM sign_in_attempts WHERE state = ? AND status = 'waiting'"
                f"{self._db.dialect.lock_rows}",
                (state,),
            ).fetchone()
            if row is None:
                return None
            conn.execute(
                "UPDATE sign_in_attempts SET status = 'returned', sealed_code = ?, detail = ?, updated_at = ? "
                "WHERE id = ? AND status = 'waiting'",
                (sealed, error, _now(), row["id"]),
            )
        return str(row["server"])

    def take_code(self, attempt: str) -> AuthorizationCodeResult | str | None:
        """The code the browser brought back (cleared once taken), the refusal's text, or None
        while the person has not come back."""
        with self._db.write() as conn:
            row = conn.execute(
                f"SELECT status, sealed_code, detail, state FROM sign_in_attempts WHERE id = ?{self._db.dialect.lock_rows}",
                (attempt,),
            ).fetchone()
            if row is None or row["status"] != "returned":
                return None
            conn.execute("UPDATE sign_in_attempts SET sealed_code = NULL WHERE id = ?", (attempt,))
        if row["sealed_code"] is None or self._key is None:
            return str(row["detail"] or "the sign-in was refused")
        code, _, iss = self._key.decrypt(str(row["sealed_code"]).encode()).decode().partition("\n")
        return AuthorizationCodeResult(code=code, state=row["state"], iss=iss or None)

    def finish(self, attempt: str, status: AttemptStatus, detail: str) -> None:
        with self._db.write() as conn:
            conn.execute(
                "UPDATE sign_in_attempts SET status = ?, detail = ?, sealed_code = NULL, updated_at = ? WHERE id = ?",
                (status, detail, _now(), attempt),
            )

    def latest(self, server: str) -> Attempt | None:
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT id, server, started_by, status, authorization_url, detail, created_at "
                "FROM sign_in_attempts WHERE server = ? ORDER BY created_at DESC, id DESC LIMIT 1",
                (server,),
            ).fetchone()
        if row is None:
            return None
        return Attempt(
            id=row["id"],
            server=row["server"],
            started_by=row["started_by"],
            status=row["status"],
            authorization_url=row["authorization_url"],
            detail=row["detail"],
            created_at=row["created_at"],
        )


class AppAuthorizer:
    """mcp_host.oauth.Authorizer for a sign-in started on the Servers page."""

    def __init__(self, attempts: SignInAttempts, attempt: str, redirect_uri: str, *, timeout: float) -> None:
        self._attempts = attempts
        self._attempt = attempt
        self._redirect_uri = redirect_uri
        self._timeout = timeout

    @property
    def redirect_uri(self) -> str:
        return self._redirect_uri

    async def authorize(self, server: str, authorization_url: str) -> AuthorizationCodeResult:
        await anyio.to_thread.run_sync(self._attempts.waiting_at, self._attempt, authorization_url)
        deadline = time.monotonic() + self._timeout
        while time.monotonic() < deadline:
            taken = await anyio.to_thread.run_sync(self._attempts.take_code, self._attempt)
            if isinstance(taken, AuthorizationCodeResult):
                return taken
            if isinstance(taken, str):
                raise RuntimeError(f"the authorization server refused the sign-in: {taken}")
            await anyio.sleep(_POLL_SECONDS)
        raise RuntimeError(f"nobody finished signing in to {server} within {self._timeout:g} seconds")


def start_connect(
    settings: Settings,
    config: ServersConfig,
    server: str,
    started_by: str,
    on_connected: Callable[[str], None] | None = None,
    *,
    timeout: float = SIGN_IN_SECONDS,
) -> str:
    """Start signing in to ``server`` on a background thread; returns the attempt's id at once.
    ``on_connected(server)`` runs once the tokens are stored (the app re-opens its session)."""
    entry = remote_entry(config, server)
    key = required_key(settings.secret_key)
    attempts = SignInAttempts(settings.open_database(), key)
    attempt = attempts.start(server, started_by)

    def run() -> None:
        try:
            authorizer = AppAuthorizer(attempts, attempt, settings.sign_in_return_url, timeout=timeout)
            only = ServersConfig(source=config.source, servers=[entry])
            with server_pool(
                settings,
                config=only,
                authorizer=authorizer,
                connect_timeout=timeout + 30,
                database=attempts.database,
            ) as pool:
                found = pool.discover(fresh=True).servers[0]
            if not found.ok:
                attempts.finish(attempt, "failed", found.error.message if found.error else "no session")
                return
            # What it offers, in the Servers page's words ("1 tool, 0 prompts, 0 resources").
            attempts.finish(attempt, "connected", offer_words(Counter(c.type for c in found.capabilities)))
            if on_connected is not None:
                on_connected(server)
        except Exception as exc:  # noqa: BLE001 - whatever went wrong is the attempt's outcome
            attempts.finish(attempt, "failed", f"{type(exc).__name__}: {exc}")
        finally:
            attempts.close()

    threading.Thread(target=run, name=f"sign-in to {server}", daemon=True).start()
    return attempt


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
