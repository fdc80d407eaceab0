"""A remote server whose OAuth metadata leads elsewhere (tests/adversarial/rogue_authorization_server.py).

Gatehouse refuses, before the person is sent anywhere and before anything is registered or
exchanged: an issuer other than the one the metadata was fetched for, a protected resource
other than the server, a plain-http issuer or endpoint on a host that is not loopback, an
authorization, token or registration endpoint on another origin than the issuer (unless the
servers file lists that origin in ``oauth.endpointOrigins``), and an authorization server other
than the entry's ``oauth.issuer``. Each refusal is one sign-in error naming the reason, on
``servers login``, ``servers check`` and the Servers page, and the rogue host hears nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from cryptography.fernet import Fernet
from mcp.client.auth import OAuthFlowError
from mcp.shared.auth import OAuthMetadata
from pydantic import SecretStr

from conformance.client import HeadlessAuthorizer
from gatehouse.display.server_words import state_words
from mcp_host.config import HttpServer
from mcp_host.health import ServerHealth
from mcp_host.oauth import MemoryCredentialStore, SignIn
from mcp_host.oauth_config import DEFAULT, OAuthConfigError, OAuthSettings, parse_oauth
from mcp_host.oauth_metadata import check_metadata
from mcp_host.sdk_client import SdkMcpClient
from tests.adversarial.harness import gatehouse_with
from tests.http_servers import free_port, serving

Lying = Callable[[str], AbstractContextManager["RogueServer"]]

# What each lie is refused with.
REFUSED = {
    "issuer": "issuer mismatch",
    "token-endpoint": "puts its token endpoint on http://127.0.0.2:",
    "authorization-endpoint": "puts its authorization endpoint on http://127.0.0.2:",
    "registration-endpoint": "puts its registration endpoint on http://127.0.0.2:",
    "plain-http": "token endpoint http://token.gatehouse-rogue.test:80 is plain http",
    "resource": "does not match",
}


@dataclass(frozen=True)
class RogueServer:
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def rogue_heard(self) -> list[dict[str, Any]]:
        heard: list[dict[str, Any]] = httpx2.get(f"http://127.0.0.1:{self.port}/test/rogue").json()
        return heard


@pytest.fixture(scope="module")
def rogue_server() -> Iterator[RogueServer]:
    with serving("tests.adversarial.rogue_authorization_server") as port:
        yield RogueServer(port)


@pytest.fixture
def lying(rogue_server: RogueServer) -> Callable[[str], AbstractContextManager[RogueServer]]:
    """``lying(LIE)``: the server telling that lie, with nothing heard by the rogue yet."""

    @contextmanager
    def tell(lie: str) -> Iterator[RogueServer]:
        answer = httpx2.put(f"http://127.0.0.1:{rogue_server.port}/test/lie/{lie}")
        assert answer.status_code == 200, answer.text
        yield rogue_server

    return tell


def _health(
    server: RogueServer, oauth: OAuthSettings = DEFAULT
) -> tuple[ServerHealth, MemoryCredentialStore]:
    """The server's health after a person who approves at once tried to sign in."""
    store = MemoryCredentialStore()
    entry = HttpServer(name="rogue", url=server.url, oauth=oauth)
    with SdkMcpClient(
        {"rogue": entry}, connect_timeout=20, sign_in=SignIn(store, HeadlessAuthorizer())
    ) as pool:
        (health,) = pool.health()
    return health, store


@pytest.mark.processes
@pytest.mark.parametrize("lie", sorted(REFUSED))
def test_metadata_that_leads_elsewhere_is_refused_before_anything_is_sent_there(
    lie: str, lying: Lying
) -> None:
    with lying(lie) as server:
        health, store = _health(server)
        heard = server.rogue_heard()

    assert not health.connected and health.error is not None
    assert health.error.kind == "auth"
    assert health.error.message.startswith("signing in failed: ")
    assert REFUSED[lie] in health.error.message, health.error.message
    assert heard == []  # no code, verifier, secret or registration reached the rogue host
    assert store.load("rogue", server.url, "tokens") is None


@pytest.mark.processes
def test_the_same_server_without_a_lie_signs_in_and_the_rogue_hears_nothing(lying: Lying) -> None:
    with lying("none") as server:
        health, store = _health(server)
        heard = server.rogue_heard()

    assert health.connected, health.error
    assert heard == []
    assert store.load("rogue", server.url, "tokens") is not None


@pytest.mark.processes
def test_an_origin_listed_in_endpoint_origins_may_hold_the_token_endpoint(lying: Lying) -> None:
    with lying("token-endpoint") as server:
        allowed = OAuthSettings(endpoint_origins=frozenset({f"http://127.0.0.2:{server.port}"}))
        _health(server, allowed)
        heard = server.rogue_heard()

    # Listed, so trusted: the code and the verifier went there (this is the operator's choice).
    token_requests = [request for request in heard if request["path"] == "/token"]
    assert token_requests and "code_verifier=" in token_requests[0]["body"]


@pytest.mark.processes
def test_an_authorization_server_other_than_the_configured_issuer_never_gets_the_client_secret(
    lying: Lying,
) -> None:
    with lying("foreign-authorization-server") as server:
        oauth = OAuthSettings(client_id="gatehouse", client_secret=SecretStr("s3cret"), issuer=server.issuer)
        health, _ = _health(server, oauth)
        heard = server.rogue_heard()

    assert health.error is not None and "not the issuer" in health.error.message, health.error
    assert server.issuer in health.error.message and "oauth.issuer" in health.error.message
    assert heard == []


@pytest.mark.processes
def test_a_machine_identitys_secret_never_goes_to_a_token_endpoint_on_another_origin(lying: Lying) -> None:
    with lying("token-endpoint") as server:
        oauth = OAuthSettings(
            grant="client_credentials",
            client_id="gatehouse",
            client_secret=SecretStr("s3cret"),
            issuer=server.issuer,
        )
        health, _ = _health(server, oauth)
        heard = server.rogue_heard()

    assert health.error is not None and REFUSED["token-endpoint"] in health.error.message, health.error
    assert heard == []


@pytest.mark.processes
def test_the_servers_page_shows_the_refusal_with_its_reason(lying: Lying) -> None:
    with lying("token-endpoint") as server:
        health, _ = _health(server)

    line = state_words(health)
    assert line.startswith("not connected: signing in failed: ")
    assert REFUSED["token-endpoint"] in line


@pytest.fixture
def cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], lying: Lying
) -> Iterator[Any]:
    """The CLI, with a servers file naming the token-endpoint liar as ``rogue``."""
    monkeypatch.setenv("GATEHOUSE_SECRET_KEY", Fernet.generate_key().decode())
    with lying("token-endpoint") as server:
        gatehouse = gatehouse_with(tmp_path, monkeypatch, capsys, {})
        entry = {"type": "http", "url": server.url, "oauth": {"callbackPort": free_port()}}
        (tmp_path / "servers.json").write_text(json.dumps({"mcpServers": {"rogue": entry}}), encoding="utf-8")
        yield gatehouse, server


@pytest.mark.processes
def test_servers_login_refuses_with_the_reason_and_shows_no_address_to_open(cli: Any) -> None:
    gatehouse, server = cli

    printed = gatehouse.run("servers", "login", "rogue", "--timeout", "20")

    assert printed.code == 2
    assert printed.err.startswith("gatehouse: rogue: signing in failed: "), printed.err
    assert REFUSED["token-endpoint"] in printed.err
    assert "Open this address" not in printed.out  # nobody was sent to sign in
    assert "Traceback" not in printed.out + printed.err
    assert server.rogue_heard() == []


@pytest.mark.processes
def test_servers_check_refuses_with_the_reason_in_one_line(cli: Any) -> None:
    gatehouse, server = cli

    printed = gatehouse.run("servers", "check")

    (line,) = [line for line in printed.out.splitlines() if line.startswith("  FAIL  rogue")]
    assert "auth: signing in failed: " in line
    assert REFUSED["token-endpoint"] in line
    assert "Traceback" not in printed.out + printed.err
    assert server.rogue_heard() == []


def _metadata(issuer: str, **endpoints: str) -> OAuthMetadata:
    values = {"authorization_endpoint": f"{issuer}/authorize", "token_endpoint": f"{issuer}/token"}
    return OAuthMetadata.model_validate({"issuer": issuer} | values | endpoints)


@pytest.mark.parametrize(
    ("metadata", "refused"),
    [
        (_metadata("https://as.example.com"), None),
        (_metadata("https://as.example.com", token_endpoint="https://AS.example.com:443/t"), None),
        (_metadata("http://127.0.0.1:9000"), None),
        (_metadata("http://localhost:9000"), None),
        (_metadata("http://[::1]:9000"), None),
        (_metadata("https://as.example.com", token_endpoint="http://as.example.com/token"), "plain http"),
        (_metadata("http://as.example.com"), "plain http"),
        (
            _metadata("https://as.example.com", token_endpoint="https://as.example.com:8443/t"),
            "another origin",
        ),
        (
            _metadata("https://as.example.com", authorization_endpoint="https://login.example.net/a"),
            "another origin",
        ),
        (
            _metadata("https://as.example.com", registration_endpoint="https://evil.example/r"),
            "another origin",
        ),
    ],
)
def test_endpoints_must_be_on_the_issuers_origin_and_https_off_this_machine(
    metadata: OAuthMetadata, refused: str | None
) -> None:
    if refused is None:
        check_metadata(metadata, frozenset(), None)
    else:
        with pytest.raises(OAuthFlowError, match=refused):
            check_metadata(metadata, frozenset(), None)


def test_endpoint_origins_in_the_servers_file_must_be_https_origins() -> None:
    def parse(value: object) -> OAuthSettings:
        return parse_oauth(
            {"endpointOrigins": value}, "servers.json: mcpServers.crm.oauth", lambda text, _: text
        )

    assert parse(["https://OAuth2.googleapis.com"]).endpoint_origins == {"https://oauth2.googleapis.com:443"}
    for bad, reason in [
        ("https://x.example", "non-empty list"),
        (["https://x.example/token"], "no path"),
        (["http://x.example"], "must be https://"),
    ]:
        with pytest.raises(OAuthConfigError, match=reason) as caught:
            parse(bad)
        assert caught.value.where.startswith("servers.json: mcpServers.crm.oauth.endpointOrigins")
