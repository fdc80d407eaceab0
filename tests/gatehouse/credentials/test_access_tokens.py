"""Bearer tokens for MCP clients: shown once, kept hashed, refused once expired or revoked, on
SQLite and PostgreSQL alike."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gatehouse.credentials.access_tokens import AccessTokenStore, UnknownTokenError
from mcp_host.reported import UsageError


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(backend: str | Path, clock: Clock) -> Iterator[AccessTokenStore]:
    opened = AccessTokenStore(backend, clock=clock)
    yield opened
    opened.close()


def test_an_issued_token_names_its_user_until_it_expires(store: AccessTokenStore, clock: Clock) -> None:
    issued = store.issue("alice", days=7)
    found = store.verify(issued.token)
    assert found is not None and found.user == "alice" and found.id == issued.record.id
    assert found.expires_at == clock.now + timedelta(days=7)
    clock.now += timedelta(days=7)
    assert store.verify(issued.token) is None
    assert store.list()[0].state(clock.now) == "expired"


def test_a_revoked_token_is_refused_by_every_store_on_the_database(
    backend: str | Path, store: AccessTokenStore, clock: Clock
) -> None:
    kept, revoked = store.issue("alice"), store.issue("bob")
    store.revoke(revoked.record.id)
    other = AccessTokenStore(backend, clock=clock)
    try:
        assert other.verify(revoked.token) is None
        found = other.verify(kept.token)
        assert found is not None and found.user == "alice"
    finally:
        other.close()
    states = {record.user: record.state(clock.now) for record in store.list()}
    assert states == {"alice": "active", "bob": "revoked"}


def test_a_made_up_or_altered_token_is_refused(store: AccessTokenStore) -> None:
    issued = store.issue("alice")
    assert store.verify(issued.token[:-1] + ("A" if issued.token[-1] != "A" else "B")) is None
    assert store.verify("not-a-gatehouse-token") is None
    assert store.verify("") is None


def test_revoking_an_unknown_id_says_so_and_a_lifetime_must_be_positive(store: AccessTokenStore) -> None:
    with pytest.raises(UnknownTokenError, match="tok_nothing"):
        store.revoke("tok_nothing")
    with pytest.raises(UsageError, match="positive"):
        store.issue("alice", days=0)


def test_the_database_keeps_no_token_in_the_clear(tmp_path: Path) -> None:
    path = tmp_path / "gatehouse.db"
    store = AccessTokenStore(path)
    issued = store.issue("alice")
    store.close()
    assert issued.token.encode() not in path.read_bytes()
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT * FROM access_tokens").fetchall()
    assert rows and all(issued.token not in str(row) for row in rows)
