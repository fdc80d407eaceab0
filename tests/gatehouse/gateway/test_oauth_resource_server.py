"""`gatehouse serve` as an OAuth 2.1 resource server (the MCP authorization spec) beside its own
tokens, with a stand-in authorization server on 127.0.0.1 (stand_in_issuer.py) that signs JWT
access tokens:

- its protected-resource metadata (RFC 9728) names the authorization server, at the address
  a 401's ``WWW-Authenticate: Bearer resource_metadata="..."`` gives and at the host's root;
- a token issued for this endpoint calls as the roster member its verified e-mail names (the
  requester of the review a send opens), and Gatehouse's own tokens keep working;
- a token for another audience, expired, forged, from another issuer, by a symmetric or no
  algorithm, or naming a key the issuer never published is refused with 401 and the metadata's
  address, without the issuer being asked again for its keys each time; one without the scope
  the endpoint asks for, 403 ``insufficient_scope``; a valid one for someone off the roster,
  or whose e-mail is not verified, 403 ``access_denied``;
- the client's token never reaches a server behind Gatehouse.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import jwt
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from gatehouse.gateway.resource_server import OAuthResource, oauth_resource_from
from gatehouse.settings import OAUTH_ISSUER_ENV, OAUTH_RESOURCE_ENV, OAUTH_SCOPES_ENV
from gatehouse.wiring import Services, open_services
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from tests.gatehouse.gateway.gateway_support import Gateway, serving_app, serving_gateway
from tests.gatehouse.gateway.stand_in_endpoint import recording_authorization, stand_in
from tests.gatehouse.gateway.stand_in_issuer import StandInIssuer, serving_issuer
from tests.http_servers import free_port
from tests.reviews.review_support import policy_file, settings_for

GRACE = "grace@example.com"
SCOPE = "mcp:tools"
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "filesystem__list_directory"}}


@dataclass
class Served:
    gateway: Gateway
    issuer: StandInIssuer
    services: Services
    oauth: OAuthResource

    def claims(self, **changes: Any) -> dict[str, Any]:
        """What the issuer puts in a token it issues to Grace for this endpoint, and ``changes``."""
        return {
            "aud": self.oauth.resource,
            "sub": "f3c1-grace",
            "email": GRACE,
            "email_verified": True,
            "scope": f"openid {SCOPE}",
            "azp": "vscode",
        } | changes


@pytest.fixture
def served(data_dir: Path) -> Iterator[Served]:
    roster = ("\n[users]\n", f'\n[users]\n"{GRACE}" = "operator"\n')
    policy = policy_file(data_dir, "policy.toml", roster)
    with (
        serving_issuer() as issuer,
        SdkMcpClient(build_all(data_dir)) as mcp,
        open_services(settings_for(data_dir, policy=policy), mcp=mcp) as services,
    ):
        port = free_port()
        oauth = oauth_resource_from(
            {
                OAUTH_ISSUER_ENV: issuer.url,
                OAUTH_RESOURCE_ENV: f"http://127.0.0.1:{port}/mcp",
                OAUTH_SCOPES_ENV: SCOPE,
            }
        )
        assert oauth is not None
        with serving_gateway(services, port=port, oauth=oauth, wait_seconds=1) as gateway:
            yield Served(gateway, issuer, services, oauth)


def post(url: str, token: str | None, message: dict[str, Any] = LIST) -> httpx.Response:
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(url, json=message, headers=headers, timeout=60)


def challenge(response: httpx.Response) -> str:
    return response.headers["www-authenticate"]


def test_the_protected_resource_metadata_names_the_authorization_server_where_a_401_points(
    served: Served,
) -> None:
    refused = post(served.gateway.url, None)
    assert refused.status_code == 401
    metadata_url = f"{served.oauth.resource.removesuffix('/mcp')}/.well-known/oauth-protected-resource/mcp"
    assert challenge(refused).startswith("Bearer ")
    assert f'resource_metadata="{metadata_url}"' in challenge(refused)

    root = metadata_url.removesuffix("/mcp")
    for url in (metadata_url, root):
        answer = httpx.get(url, timeout=10)
        assert answer.status_code == 200
        assert answer.json() == {
            "resource": served.oauth.resource,
            "authorization_servers": [served.issuer.url],
            "scopes_supported": [SCOPE],
            "bearer_methods_supported": ["header"],
            "resource_name": "Gatehouse",
        }


def test_a_token_issued_for_this_endpoint_calls_as_the_roster_member_its_verified_email_names(
    served: Served,
) -> None:
    token = served.issuer.token(served.claims())

    async def as_agent() -> tuple[list[str], bool]:
        with anyio.fail_after(120):
            async with (
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
                Client(streamable_http_client(served.gateway.url, http_client=http)) as client,
            ):
                tools = await client.list_tools()
                send = await client.call_tool("email__send_email", {"to": "bob@example.com", "body": "hi"})
        return [tool.name for tool in tools.tools], send.is_error

    names, waiting = anyio.run(as_agent)
    assert "email__send_email" in names and waiting
    [review] = served.services.ledger.queue("pending")
    assert review.requester == GRACE

    # Gatehouse's own tokens work beside the issuer's.
    assert post(served.gateway.url, served.gateway.token("operator")).status_code == 200


def _not_for_this_endpoint(served: Served) -> dict[str, str]:
    issuer, claims = served.issuer, served.claims
    return {
        "another audience": issuer.token(claims(aud="https://crm.example.com/mcp")),
        "no audience": issuer.token(claims(aud=None)),
        "expired": issuer.token(claims(), lifetime=-120),
        "no expiry": issuer.token(claims(exp=None)),
        "signed with a key nobody published": issuer.token(claims(), key=issuer.forger),
        "naming a key the issuer never had": issuer.token(claims(), key=issuer.forger, kid="made-up"),
        "from another issuer": issuer.token(claims(iss="http://127.0.0.1:1")),
        "signed with a shared secret": jwt.encode(claims(iss=issuer.url, exp=2**31), "secret" * 8, "HS256"),
        "not signed at all": jwt.encode(claims(iss=issuer.url, exp=2**31), "", algorithm="none"),
        "not a JWT": "opaque-token-from-somewhere",
    }


def test_tokens_not_issued_for_this_endpoint_by_its_issuer_are_refused_with_401_and_the_metadata(
    served: Served,
) -> None:
    assert post(served.gateway.url, served.issuer.token(served.claims())).status_code == 200
    for why, token in _not_for_this_endpoint(served).items():
        refused = post(served.gateway.url, token)
        assert refused.status_code == 401, why
        assert 'error="invalid_token"' in challenge(refused), why
        assert f'resource_metadata="{served.oauth.metadata_url}"' in challenge(refused), why
    # Made-up key ids did not send Gatehouse to the issuer for its keys again.
    assert served.issuer.key_set_fetches == 1
    assert served.services.ledger.queue() == []


def test_a_valid_token_without_the_scope_is_403_insufficient_scope(served: Served) -> None:
    refused = post(served.gateway.url, served.issuer.token(served.claims(scope="openid")))
    assert refused.status_code == 403
    assert 'error="insufficient_scope"' in challenge(refused)


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"email": "mallory@example.com"}, id="someone off the roster"),
        pytest.param({"email_verified": False}, id="an e-mail address the issuer did not verify"),
        pytest.param({"email": None}, id="no e-mail address"),
    ],
)
def test_a_valid_token_that_names_nobody_on_the_roster_is_refused_with_403(
    served: Served, changes: dict[str, Any]
) -> None:
    refused = post(served.gateway.url, served.issuer.token(served.claims(**changes)))
    assert refused.status_code == 403
    assert challenge(refused).startswith('Bearer error="access_denied"')
    assert f'resource_metadata="{served.oauth.metadata_url}"' in challenge(refused)
    assert refused.json()["error"] == "access_denied"
    assert served.services.ledger.queue() == []


def test_the_clients_token_never_reaches_a_server_behind_gatehouse(data_dir: Path) -> None:
    upstream = data_dir / "upstream"
    upstream.mkdir()
    app = recording_authorization(stand_in(upstream).streamable_http_app(stateless_http=True), upstream)
    with serving_issuer() as issuer, serving_app(app) as memo_port:
        targets: dict[str, Any] = build_all(data_dir) | {"memo": f"http://127.0.0.1:{memo_port}/mcp"}
        with (
            SdkMcpClient(targets) as mcp,
            open_services(
                settings_for(data_dir, policy=policy_file(data_dir, "policy.toml")), mcp=mcp
            ) as services,
        ):
            port = free_port()
            resource = f"http://127.0.0.1:{port}/mcp"
            oauth = oauth_resource_from(
                {OAUTH_ISSUER_ENV: issuer.url, OAUTH_RESOURCE_ENV: resource, "GATEHOUSE_OAUTH_CLAIM": "sub"}
            )
            with serving_gateway(services, port=port, oauth=oauth) as gateway:
                token = issuer.token({"aud": resource, "sub": "operator"})
                listed = post(gateway.url, token, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
                assert listed.status_code == 200 and "memo__wait_for_reviewer" in listed.text
    seen = (upstream / "authorization").read_text(encoding="utf-8").splitlines()
    assert seen and token not in "\n".join(seen)
    assert set(seen) == {""}  # Gatehouse called it with no credentials: its entry names none
