"""A sign-in started on the Servers page, finished by the browser's return, on either database:
the return is recorded by another process's store (another replica) and still reaches the flow
that waits, which stores the tokens and connects."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from cryptography.fernet import Fernet

from gatehouse.credentials.app_sign_in import Attempt, SignInAttempts, start_connect
from gatehouse.credentials.server_credentials import EncryptedCredentialStore, credential_key
from gatehouse.errors import ConfigurationError
from gatehouse.settings import Settings
from mcp_host.config import parse_servers_config
from tests.http_servers import serving

KEY = Fernet.generate_key().decode()


@pytest.fixture
def notes_port() -> Iterator[int]:
    with serving("tests.oauth_server") as port:
        yield port


def _settings(backend: str | Path, tmp_path: Path, key: str | None = KEY) -> Settings:
    if isinstance(backend, Path):
        return Settings(
            data_dir=tmp_path, db_path=backend, secret_key=key, public_url="http://127.0.0.1:8501"
        )
    return Settings(
        data_dir=tmp_path,
        db_path=tmp_path / "x.db",
        db_url=backend,
        secret_key=key,
        public_url="http://127.0.0.1:8501",
    )


def _wait(attempts: SignInAttempts, server: str, condition: str, timeout: float = 30) -> Attempt:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        latest = attempts.latest(server)
        if latest is not None and (
            (condition == "url" and latest.authorization_url) or latest.status == condition
        ):
            return latest
        time.sleep(0.1)
    raise AssertionError(f"no {condition} for {server}: {attempts.latest(server)}")


@pytest.mark.processes
def test_the_return_reaches_the_waiting_flow_through_the_database(
    backend: str | Path, tmp_path: Path, notes_port: int
) -> None:
    settings = _settings(backend, tmp_path)
    url = f"http://127.0.0.1:{notes_port}/mcp"
    config = parse_servers_config(
        {"mcpServers": {"notes": {"type": "http", "url": url}}}, source="servers.json"
    )
    connected: list[str] = []
    start_connect(settings, config, "notes", "admin", on_connected=connected.append)
    # The page the person sees (any replica): where to sign in.
    page = SignInAttempts(settings.open_database(), credential_key(KEY))
    waiting = _wait(page, "notes", "url")
    assert waiting.started_by == "admin" and waiting.authorization_url is not None
    assert waiting.authorization_url.startswith(f"http://127.0.0.1:{notes_port}/authorize")
    assert "redirect_uri=http%3A%2F%2F127.0.0.1%3A8501%2Fservers" in waiting.authorization_url

    # The authorization server approves and sends the browser back to the Servers page.
    back = httpx2.get(waiting.authorization_url, follow_redirects=False).headers["location"]
    query = {key: values[0] for key, values in parse_qs(urlsplit(back).query).items()}
    assert page.returned(query["state"], query["code"], None, None) == "notes"
    assert page.returned(query["state"], query["code"], None, None) is None  # only once

    done = _wait(page, "notes", "connected")
    page.close()
    store = EncryptedCredentialStore(settings.open_database(), credential_key(KEY))
    tokens = store.load("notes", url, "tokens")
    store.close()
    assert done.detail == "1 tool, 0 prompts, 0 resources"
    assert connected == ["notes"]
    assert tokens is not None and "access_token" in tokens


@pytest.mark.processes
def test_a_refused_sign_in_is_the_attempts_outcome(tmp_path: Path, notes_port: int) -> None:
    settings = _settings(tmp_path / "g.db", tmp_path)
    url = f"http://127.0.0.1:{notes_port}/mcp"
    config = parse_servers_config(
        {"mcpServers": {"notes": {"type": "http", "url": url}}}, source="servers.json"
    )
    start_connect(settings, config, "notes", "admin")
    page = SignInAttempts(settings.open_database(), credential_key(KEY))
    waiting = _wait(page, "notes", "url")
    assert waiting.authorization_url is not None
    state = parse_qs(urlsplit(waiting.authorization_url).query)["state"][0]

    page.returned(state, None, None, "access_denied")
    failed = _wait(page, "notes", "failed")
    page.close()
    assert failed.detail is not None and "access_denied" in failed.detail


def test_connect_without_a_key_stops_before_anything_starts(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "g.db", tmp_path, key=None)
    config = parse_servers_config(
        {"mcpServers": {"notes": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}, source="servers.json"
    )
    with pytest.raises(ConfigurationError, match="GATEHOUSE_SECRET_KEY is not set"):
        start_connect(settings, config, "notes", "admin")
