"""What Gatehouse accepts from an authorization server's metadata before it sends anything there.

The MCP SDK already refuses authorization-server metadata whose ``issuer`` is not the one it
was fetched for (RFC 8414 §3.3) and protected-resource metadata whose ``resource`` is not the
server's address (RFC 9728 §3.3). It accepts any endpoints the metadata names, though, and the
token endpoint receives the authorization code, the PKCE verifier and the client's secret; the
authorization endpoint is where the person types their password. So, before the flow uses a
metadata document (``GuardedContext``):

- **Plain http only on this machine.** An issuer or endpoint over http is refused unless its
  host is loopback (127.0.0.0/8, ::1, localhost): OAuth 2.1 requires TLS everywhere else, and
  on the network anyone on the path reads the code and the secret.
- **Endpoints on the issuer's origin.** The authorization, token and registration endpoints
  must be on the issuer's own origin, unless the servers file lists theirs in
  ``oauth.endpointOrigins``. RFC 8414 allows them elsewhere, and a few providers do that
  (Google's token endpoint is on oauth2.googleapis.com), but the issuer is the only name the
  flow has checked: a metadata document that was tampered with, or served by a host that shares
  the issuer's address, would otherwise send the code, the verifier and the secret to any host
  it names. The SDK's cross-app access provider makes the same rule for its token endpoint.
  Refusing by default and allowing by name keeps the exception visible in the servers file.
- **The configured issuer.** An entry's ``oauth.issuer`` names the authorization server its
  credentials belong to (a pre-registered client's secret among them): a server that names
  another one is refused instead of being sent them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from urllib.parse import urlsplit

from mcp.client.auth import OAuthFlowError
from mcp.client.auth.oauth2 import OAuthContext
from mcp.client.auth.utils import issuers_match
from mcp.shared.auth import OAuthMetadata

from mcp_host.oauth_config import is_loopback, origin


def check_transport(what: str, url: str) -> None:
    """Refuse ``url`` when it is plain http to a host other than this machine."""
    if urlsplit(url).scheme.lower() != "https" and not is_loopback(url):
        raise OAuthFlowError(
            f"the {what} {origin(url)} is plain http on a host that is not this machine; "
            "OAuth allows http only on loopback, so nothing was sent to it"
        )


def check_authorization_server(url: str, configured_issuer: str | None) -> None:
    """An authorization server named by the protected resource, before anything is fetched from it."""
    check_transport("authorization server", url)
    if configured_issuer is not None and not issuers_match(url, configured_issuer):
        raise OAuthFlowError(
            f"the server names the authorization server {url}, not the issuer {configured_issuer} "
            "that oauth.issuer in the servers file names; nothing was sent to it"
        )


def check_metadata(
    metadata: OAuthMetadata, endpoint_origins: frozenset[str], configured_issuer: str | None
) -> None:
    """Refuse a metadata document whose endpoints would take the code or a secret somewhere
    the issuer does not vouch for (see the module's docstring)."""
    issuer = str(metadata.issuer)
    check_transport("authorization server", issuer)
    if configured_issuer is not None and not issuers_match(issuer, configured_issuer):
        raise OAuthFlowError(
            f"the authorization server's metadata names the issuer {issuer}, not {configured_issuer} "
            "that oauth.issuer in the servers file names; nothing was sent to it"
        )
    endpoints = (
        ("authorization endpoint", metadata.authorization_endpoint),
        ("token endpoint", metadata.token_endpoint),
        ("registration endpoint", metadata.registration_endpoint),
    )
    for what, endpoint in endpoints:
        if endpoint is None:
            continue
        url = str(endpoint)
        check_transport(f"authorization server's {what}", url)
        if origin(url) != origin(issuer) and origin(url) not in endpoint_origins:
            raise OAuthFlowError(
                f"the authorization server's metadata puts its {what} on {origin(url)}, another origin "
                f"than its issuer {origin(issuer)}; refused, nothing was sent there (if that host "
                "really is the authorization server's, list it in oauth.endpointOrigins)"
            )


@dataclass
class GuardedContext(OAuthContext):
    """The SDK flow's context, checking each authorization-server metadata document as the flow
    takes it up: before the person is sent anywhere and before any registration or token
    request is built from it."""

    endpoint_origins: frozenset[str] = field(default_factory=frozenset)
    configured_issuer: str | None = None

    def __setattr__(self, name: str, value: object) -> None:
        if name == "oauth_metadata" and isinstance(value, OAuthMetadata):
            check_metadata(value, self.endpoint_origins, self.configured_issuer)
        super().__setattr__(name, value)


def guarded(
    context: OAuthContext, endpoint_origins: frozenset[str], configured_issuer: str | None
) -> GuardedContext:
    """``context`` with the checks above."""
    values = {item.name: getattr(context, item.name) for item in fields(context)}
    return GuardedContext(**values, endpoint_origins=endpoint_origins, configured_issuer=configured_issuer)
