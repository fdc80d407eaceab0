"""Sign-ins kept in Gatehouse's database: encrypted at rest, refused without a key, shared by
every replica, and never readable in the file."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from conformance.client import HeadlessAuthorizer
from gatehouse.credentials.server_credentials import (
    CredentialKeyError,
    EncryptedCredentialStore,
    credential_key,
)
from gatehouse.errors import ConfigurationError
from gatehouse.settings import SECRET_KEY_ENV
from mcp_host.config import HttpServer
from mcp_host.oauth import SignIn
from mcp_host.sdk_client import SdkMcpClient
from tests.http_servers import serving

KEY = Fernet.generate_key().decode()
TOKEN = '{"access_token": "at-very-secret-123", "token_type": "Bearer", "refresh_token": "rt-secret-456"}'


@pytest.fixture
def store(backend: str | Path) -> Iterator[EncryptedCredentialStore]:
    opened = EncryptedCredentialStore(backend, credential_key(KEY))
    yield opened
    opened.close()


def test_a_stored_token_comes_back_and_is_kept_per_address(store: EncryptedCredentialStore) -> None:
    store.save("crm", "https://crm.example.com/mcp", "tokens", TOKEN)

    assert store.load("crm", "https://crm.example.com/mcp", "tokens") == TOKEN
    assert store.load("crm", "https://evil.example.com/mcp", "tokens") is None
    assert store.load("crm", "https://crm.example.com/mcp", "client") is None
    assert store.signed_in_at("crm", "https://crm.example.com/mcp") is not None
    store.forget("crm")
    assert store.load("crm", "https://crm.example.com/mcp", "tokens") is None


def test_another_replica_reads_what_one_stored(backend: str | Path, store: EncryptedCredentialStore) -> None:
    store.save("crm", "https://crm.example.com/mcp", "tokens", TOKEN)
    other = EncryptedCredentialStore(backend, credential_key(KEY))
    try:
        assert other.load("crm", "https://crm.example.com/mcp", "tokens") == TOKEN
    finally:
        other.close()


def test_nothing_is_stored_without_a_key_and_the_error_names_the_variable(tmp_path: Path) -> None:
    keyless = EncryptedCredentialStore(tmp_path / "g.db", credential_key(None))
    with pytest.raises(CredentialKeyError, match=SECRET_KEY_ENV):
        keyless.save("crm", "https://crm.example.com/mcp", "tokens", TOKEN)
    keyless.close()
    rows = sqlite3.connect(tmp_path / "g.db").execute("SELECT count(*) FROM server_credentials").fetchone()
    assert rows == (0,)


def test_the_database_file_holds_no_token_in_the_clear(tmp_path: Path) -> None:
    store = EncryptedCredentialStore(tmp_path / "g.db", credential_key(KEY))
    store.save("crm", "https://crm.example.com/mcp", "tokens", TOKEN)
    store.close()
    raw = b"".join(path.read_bytes() for path in tmp_path.glob("g.db*"))
    assert b"at-very-secret-123" not in raw and b"rt-secret-456" not in raw


def test_a_changed_key_says_how_to_rotate_and_an_old_key_after_the_new_still_opens(tmp_path: Path) -> None:
    store = EncryptedCredentialStore(tmp_path / "g.db", credential_key(KEY))
    store.save("crm", "https://crm.example.com/mcp", "tokens", TOKEN)
    store.close()
    new = Fernet.generate_key().decode()

    wrong = EncryptedCredentialStore(tmp_path / "g.db", credential_key(new))
    with pytest.raises(CredentialKeyError, match="was the key changed"):
        wrong.load("crm", "https://crm.example.com/mcp", "tokens")
    wrong.close()
    rotated = EncryptedCredentialStore(tmp_path / "g.db", credential_key(f"{new},{KEY}"))
    assert rotated.load("crm", "https://crm.example.com/mcp", "tokens") == TOKEN
    rotated.close()


def test_a_row_moved_onto_another_server_does_not_open(tmp_path: Path) -> None:
    store = EncryptedCredentialStore(tmp_path / "g.db", credential_key(KEY))
    store.save("crm", "https://crm.example.com/mcp", "tokens", TOKEN)
    store.close()
    with sqlite3.connect(tmp_path / "g.db") as conn:
        conn.execute("UPDATE server_credentials SET server = 'wiki', url = 'https://wiki.example.com/mcp'")
    store = EncryptedCredentialStore(tmp_path / "g.db", credential_key(KEY))
    with pytest.raises(CredentialKeyError, match="sealed for another server"):
        store.load("wiki", "https://wiki.example.com/mcp", "tokens")
    store.close()


def test_a_malformed_key_is_named() -> None:
    with pytest.raises(ConfigurationError, match=f"{SECRET_KEY_ENV} is not a valid key"):
        credential_key("hunter2")
    assert credential_key(f" {KEY} , ") is not None


@pytest.mark.processes
def test_a_sign_in_through_the_pool_lands_encrypted_in_the_database(tmp_path: Path) -> None:
    store = EncryptedCredentialStore(tmp_path / "g.db", credential_key(KEY))
    with serving("tests.oauth_server") as port:
        entry = HttpServer(name="notes", url=f"http://127.0.0.1:{port}/mcp")
        with SdkMcpClient(
            {"notes": entry}, connect_timeout=20, sign_in=SignIn(store, HeadlessAuthorizer())
        ) as pool:
            result = pool.call_tool("notes", "whoami", {})
        tokens = store.load("notes", entry.url, "tokens")
    store.close()

    assert result.success, result.error
    assert tokens is not None
    access = json.loads(tokens)["access_token"]
    raw = b"".join(path.read_bytes() for path in tmp_path.glob("g.db*"))
    assert access.encode() not in raw


@pytest.mark.processes
def test_without_a_key_signing_in_fails_saying_which_variable_to_set(tmp_path: Path) -> None:
    store = EncryptedCredentialStore(tmp_path / "g.db", None)
    with serving("tests.oauth_server") as port:
        entry = HttpServer(name="notes", url=f"http://127.0.0.1:{port}/mcp")
        with SdkMcpClient(
            {"notes": entry}, connect_timeout=20, sign_in=SignIn(store, HeadlessAuthorizer())
        ) as pool:
            manifest = pool.discover()
    store.close()

    error = manifest.servers[0].error
    assert error is not None and error.kind == "auth"
    assert SECRET_KEY_ENV in error.message
