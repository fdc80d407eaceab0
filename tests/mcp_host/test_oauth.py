"""Signing in to a remote server behind OAuth, against a real authorization server on 127.0.0.1
(tests/oauth_server.py): what the pool says when nobody can sign in, what it keeps when
someone does, and that tokens never go to another address."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from mcp.shared.auth import AuthorizationCodeResult
from pydantic import SecretStr

from conformance.client import HeadlessAuthorizer
from mcp_host.config import HttpServer
from mcp_host.oauth import DEFAULT_CALLBACK_PORT, MemoryCredentialStore, SignIn, _OriginIssuer
from mcp_host.oauth_config import DISABLED, OAuthSettings
from mcp_host.sdk_client import SdkMcpClient
from tests.http_servers import serving


@pytest.fixture(scope="module")
def notes_url() -> Iterator[str]:
    with serving("tests.oauth_server") as port:
        yield f"http://127.0.0.1:{port}/mcp"


class NobodyThere:
    """An authorizer that must not be asked (the stored tokens should do)."""

    redirect_uri = f"http://127.0.0.1:{DEFAULT_CALLBACK_PORT}/callback"

    async def authorize(self, server: str, authorization_url: str) -> AuthorizationCodeResult:
        raise AssertionError("asked a person to sign in although tokens were stored")


def _error_of(pool: SdkMcpClient) -> str:
    manifest = pool.discover()
    server = manifest.servers[0]
    assert not server.ok and server.error is not None
    assert server.error.kind == "auth"
    return server.error.message


@pytest.mark.processes
def test_a_server_that_needs_sign_in_says_so_and_how(notes_url: str) -> None:
    entry = HttpServer(name="notes", url=notes_url)
    with SdkMcpClient({"notes": entry}, connect_timeout=20, sign_in=SignIn(MemoryCredentialStore())) as pool:
        message = _error_of(pool)

    assert "needs sign-in" in message
    assert "gatehouse servers login notes" in message
    assert "refused" not in message


@pytest.mark.processes
def test_with_oauth_off_a_401_without_credentials_is_needs_sign_in_not_refused(notes_url: str) -> None:
    entry = HttpServer(name="notes", url=notes_url, oauth=DISABLED)
    with SdkMcpClient({"notes": entry}, connect_timeout=20, sign_in=SignIn(MemoryCredentialStore())) as pool:
        message = _error_of(pool)

    assert "needs sign-in (HTTP 401)" in message
    assert "refused" not in message


@pytest.mark.processes
def test_a_wrong_configured_token_is_still_refused_credentials(notes_url: str) -> None:
    entry = HttpServer(name="notes", url=notes_url, headers={"Authorization": SecretStr("Bearer wrong")})
    with SdkMcpClient({"notes": entry}, connect_timeout=20, sign_in=SignIn(MemoryCredentialStore())) as pool:
        message = _error_of(pool)

    assert "refused the credentials (HTTP 401)" in message


@pytest.mark.processes
def test_signing_in_once_keeps_the_tokens_for_the_next_start(notes_url: str) -> None:
    store = MemoryCredentialStore()
    entry = HttpServer(name="notes", url=notes_url)
    with SdkMcpClient(
        {"notes": entry}, connect_timeout=20, sign_in=SignIn(store, HeadlessAuthorizer())
    ) as pool:
        first = pool.call_tool("notes", "whoami", {})
    client = store.load("notes", notes_url, "client")
    tokens = store.load("notes", notes_url, "tokens")

    # A new process (another replica, a restart) with the same store: nobody is asked again.
    with SdkMcpClient({"notes": entry}, connect_timeout=20, sign_in=SignIn(store, NobodyThere())) as pool:
        again = pool.call_tool("notes", "whoami", {})

    assert first.success and again.success, (first.error, again.error)
    assert client is not None and tokens is not None
    registered = json.loads(client)["client_id"]
    assert first.content[0].text == again.content[0].text == f"signed in as {registered}"
    assert "refresh_token" in tokens


@pytest.mark.processes
def test_tokens_are_kept_per_address_and_never_sent_to_another(notes_url: str) -> None:
    store = MemoryCredentialStore()
    entry = HttpServer(name="notes", url=notes_url)
    with SdkMcpClient(
        {"notes": entry}, connect_timeout=20, sign_in=SignIn(store, HeadlessAuthorizer())
    ) as pool:
        assert pool.call_tool("notes", "whoami", {}).success

    moved = HttpServer(name="notes", url=notes_url.replace("127.0.0.1", "localhost"))
    with SdkMcpClient({"notes": moved}, connect_timeout=20, sign_in=SignIn(store)) as pool:
        message = _error_of(pool)

    # The server's metadata names its own address, so the flow stops before any token is
    # sent; either way nothing issued for the first address is used for the second.
    assert "needs sign-in" in message or "does not match" in message
    assert store.load("notes", moved.url, "tokens") is None


@pytest.mark.processes
def test_a_configured_client_id_is_used_instead_of_registering(notes_url: str) -> None:
    # The test server registers nothing under this id, so the sign-in must fail at its
    # authorization endpoint: the point is that no registration happened.
    store = MemoryCredentialStore()
    entry = HttpServer(name="notes", url=notes_url, oauth=OAuthSettings(client_id="handmade"))
    with SdkMcpClient(
        {"notes": entry}, connect_timeout=20, sign_in=SignIn(store, HeadlessAuthorizer())
    ) as pool:
        message = _error_of(pool)

    assert store.load("notes", notes_url, "client") is None
    assert "signing in failed" in message


@pytest.mark.parametrize(
    ("issuer", "accepted"),
    [
        ("https://mcp.example.com", True),
        ("https://mcp.example.com/", True),
        ("https://mcp.example.com/oauth", True),
        ("https://other.example.com", False),
        ("https://mcp.example.com:8443/oauth", False),
        ("http://mcp.example.com/oauth", False),
    ],
)
def test_on_the_2025_03_26_path_only_the_servers_own_origin_may_be_the_issuer(
    issuer: str, accepted: bool
) -> None:
    expected = _OriginIssuer("https://mcp.example.com")
    assert (issuer == expected) is accepted
    assert (issuer != expected) is not accepted
