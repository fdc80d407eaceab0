"""OAuth ``state`` reused and forged, against a real authorization server on 127.0.0.1
(tests/oauth_server.py), in the app's Connect flow and the CLI's loopback.

The attacks: the browser's return replayed once the sign-in finished; a return carrying a
``state`` nobody issued; a code from another authorization (one the attacker started with the
same client and their own PKCE challenge, or one issued for another server) brought back under
a waiting sign-in's ``state``, so that Gatehouse would store tokens for the attacker's account.
For the CLI, the same return sent again after the loopback took it.

First tried: held. A return finds its sign-in only by a ``state`` that waits (compare-and-set,
once); a foreign code fails at the token endpoint (PKCE and the client it was issued to), so no
tokens are stored and the sign-in fails with the reason; the loopback stops listening once it
has its return. These stay as regression tests.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest

from gatehouse.credentials.app_sign_in import SignInAttempts, start_connect
from gatehouse.credentials.server_credentials import EncryptedCredentialStore, credential_key
from gatehouse.settings import Settings
from mcp_host.config import HttpServer, parse_servers_config
from mcp_host.oauth import MemoryCredentialStore, SignIn
from mcp_host.oauth_loopback import LoopbackAuthorizer
from mcp_host.sdk_client import SdkMcpClient
from tests.gatehouse.credentials.test_app_sign_in import KEY, _settings, _wait
from tests.http_servers import free_port, serving

# Starts processes of its own (servers over stdio, the CLI): not in `make quick`.
pytestmark = pytest.mark.processes


@pytest.fixture
def notes_url() -> Iterator[str]:
    with serving("tests.oauth_server") as port:
        yield f"http://127.0.0.1:{port}/mcp"


def _query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def _approved(authorization_url: str) -> dict[str, str]:
    """What the authorization server sends the browser back with (it approves at once)."""
    location = httpx2.get(authorization_url, follow_redirects=False, timeout=20).headers["location"]
    return _query(location)


def _connect(settings: Settings, url: str, *servers: str) -> SignInAttempts:
    config = parse_servers_config(
        {"mcpServers": {name: {"type": "http", "url": url} for name in servers}}, source="servers.json"
    )
    for server in servers:
        start_connect(settings, config, server, "admin")
    return SignInAttempts(settings.open_database(), credential_key(KEY))


def _tokens(settings: Settings, server: str, url: str) -> str | None:
    store = EncryptedCredentialStore(settings.open_database(), credential_key(KEY))
    try:
        return store.load(server, url, "tokens")
    finally:
        store.close()


def test_a_return_with_a_state_never_issued_finds_no_sign_in_and_the_real_return_still_connects(
    tmp_path: Path, notes_url: str
) -> None:
    settings = _settings(tmp_path / "g.db", tmp_path)
    page = _connect(settings, notes_url, "notes")
    waiting = _wait(page, "notes", "url")
    assert waiting.authorization_url is not None
    state = _query(waiting.authorization_url)["state"]

    for forged in (secrets.token_urlsafe(32), state[:-1], state.upper(), ""):
        assert page.returned(forged, "attackers-code", None, None) is None
    assert page.returned(state[:-1], None, None, "access_denied") is None  # nor a forged refusal
    still = page.latest("notes")
    assert still is not None and still.status == "waiting"

    back = _approved(waiting.authorization_url)
    assert page.returned(back["state"], back["code"], None, None) == "notes"
    assert _wait(page, "notes", "connected").detail == "1 tool, 0 prompts, 0 resources"
    page.close()


def test_a_return_replayed_after_the_sign_in_finished_changes_nothing(tmp_path: Path, notes_url: str) -> None:
    settings = _settings(tmp_path / "g.db", tmp_path)
    page = _connect(settings, notes_url, "notes")
    waiting = _wait(page, "notes", "url")
    assert waiting.authorization_url is not None
    back = _approved(waiting.authorization_url)
    assert page.returned(back["state"], back["code"], None, None) == "notes"
    _wait(page, "notes", "connected")
    tokens = _tokens(settings, "notes", notes_url)

    replayed = page.returned(back["state"], back["code"], None, None)
    refused = page.returned(back["state"], None, None, "access_denied")

    assert replayed is None and refused is None
    latest = page.latest("notes")
    assert latest is not None and (latest.id, latest.status) == (waiting.id, "connected")
    assert tokens is not None and _tokens(settings, "notes", notes_url) == tokens
    page.close()


def test_a_code_the_attacker_got_with_their_own_challenge_stores_no_tokens(
    tmp_path: Path, notes_url: str
) -> None:
    settings = _settings(tmp_path / "g.db", tmp_path)
    page = _connect(settings, notes_url, "notes")
    waiting = _wait(page, "notes", "url")
    assert waiting.authorization_url is not None
    # The attacker signs in with the same client and state, but a PKCE challenge of their own:
    # the code they get is bound to a verifier the waiting flow does not have.
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    theirs = _query(waiting.authorization_url) | {"code_challenge": challenge}
    attackers = _approved(f"{waiting.authorization_url.split('?')[0]}?{urlencode(theirs)}")

    assert page.returned(attackers["state"], attackers["code"], None, None) == "notes"

    failed = _wait(page, "notes", "failed")
    page.close()
    assert failed.detail is not None and "Token exchange failed" in failed.detail
    assert _tokens(settings, "notes", notes_url) is None


def test_a_code_issued_for_another_server_brought_back_under_this_state_stores_no_tokens(
    tmp_path: Path, notes_url: str
) -> None:
    settings = _settings(tmp_path / "g.db", tmp_path)
    # Two entries for the authorization server: each registers a client of its own.
    page = _connect(settings, notes_url, "notes", "crm")
    notes = _wait(page, "notes", "url")
    crm = _wait(page, "crm", "url")
    assert notes.authorization_url is not None and crm.authorization_url is not None
    crm_back = _approved(crm.authorization_url)
    notes_state = _query(notes.authorization_url)["state"]

    assert page.returned(notes_state, crm_back["code"], None, None) == "notes"
    failed = _wait(page, "notes", "failed")
    # The sign-in the code was issued for still waits for its own return, and finishes.
    assert page.returned(crm_back["state"], crm_back["code"], None, None) == "crm"
    connected = _wait(page, "crm", "connected")
    page.close()

    assert failed.detail is not None and "Token exchange failed" in failed.detail
    assert _tokens(settings, "notes", notes_url) is None
    assert (
        connected.detail == "1 tool, 0 prompts, 0 resources"
        and _tokens(settings, "crm", notes_url) is not None
    )


class _Browser:
    """A person's browser: opens the authorization URL (on a thread of its own, as the loopback
    waits on the event loop) and follows the redirect to 127.0.0.1; keeps the return's URL."""

    def __init__(self) -> None:
        self.returned_to: str | None = None
        self.answer: int | None = None
        self.done = threading.Event()

    def show(self, server: str, authorization_url: str) -> None:
        threading.Thread(target=self._open, args=(authorization_url,), daemon=True).start()

    def _open(self, authorization_url: str) -> None:
        try:
            self.returned_to = httpx2.get(authorization_url, follow_redirects=False, timeout=20).headers[
                "location"
            ]
            self.answer = httpx2.get(self.returned_to, timeout=20).status_code
        finally:
            self.done.set()


def test_the_cli_loopback_takes_its_return_once_and_a_replay_reaches_nothing(notes_url: str) -> None:
    store = MemoryCredentialStore()
    browser = _Browser()
    loopback = LoopbackAuthorizer(free_port(), browser.show, timeout=60)
    entry = HttpServer(name="notes", url=notes_url)
    with SdkMcpClient({"notes": entry}, connect_timeout=60, sign_in=SignIn(store, loopback)) as pool:
        signed_in = pool.call_tool("notes", "whoami", {})
        assert browser.done.wait(timeout=30)
        tokens = store.load("notes", notes_url, "tokens")
        assert browser.returned_to is not None
        assert browser.returned_to.startswith(f"{loopback.redirect_uri}?")

        # The same return again: the listener is gone, nothing takes it.
        with pytest.raises(httpx2.ConnectError):
            httpx2.get(browser.returned_to, timeout=5)
        again = pool.call_tool("notes", "whoami", {})

    assert signed_in.success and again.success, (signed_in.error, again.error)
    assert browser.answer == 200
    assert tokens is not None and store.load("notes", notes_url, "tokens") == tokens
    assert json.loads(tokens)["access_token"]
