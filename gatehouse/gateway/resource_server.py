"""`gatehouse serve` as an OAuth 2.1 resource server, when an authorization server is configured
(the MCP authorization spec, 2025-11-25 and 2026-07-28): what the environment says, and the
protected-resource metadata (RFC 9728) that tells a client where to get a token.

Configured by environment variables, not by the policy: they say where this deployment is
(its address behind whatever proxy, its identity provider), as GATEHOUSE_DB and
GATEHOUSE_PUBLIC_URL do, and they differ between a staging and a production copy of one policy.
``GATEHOUSE_OAUTH_ISSUER`` turns it on; without it only Gatehouse's own tokens are accepted, and
any other of these variables set alone is a mistake that is named rather than ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
from mcp.server.auth.routes import build_resource_metadata_url, cors_middleware
from mcp.shared.auth import ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.routing import Route

from gatehouse.credentials.oidc_identity import identity_claim
from gatehouse.errors import ConfigurationError
from gatehouse.settings import (
    OAUTH_AUDIENCE_ENV,
    OAUTH_CLAIM_ENV,
    OAUTH_ISSUER_ENV,
    OAUTH_RESOURCE_ENV,
    OAUTH_SCOPES_ENV,
)
from mcp_host.oauth_config import is_loopback

# Where a client that knows only the host looks first (RFC 9728 §3): served too, with the same
# document, beside the address the resource's own path gives.
ROOT_METADATA_PATH = "/.well-known/oauth-protected-resource"
_VARIABLES = (OAUTH_ISSUER_ENV, OAUTH_RESOURCE_ENV, OAUTH_AUDIENCE_ENV, OAUTH_CLAIM_ENV, OAUTH_SCOPES_ENV)


@dataclass(frozen=True)
class OAuthResource:
    """Access tokens ``issuer`` signs are accepted when issued for this endpoint."""

    # The authorization server's issuer identifier, exactly as its metadata spells it.
    issuer: str
    # This endpoint's canonical address as clients reach it (RFC 8707 / RFC 9728 ``resource``).
    resource: str
    # The ``aud`` values a token may carry, one of which it must: the resource unless set.
    audiences: tuple[str, ...]
    # The claim whose value is the caller's roster name (oidc_identity.py's rules).
    claim: str
    # Scopes every token must hold, advertised in the metadata; none: no scope is asked for.
    scopes: tuple[str, ...] = ()

    @property
    def metadata_url(self) -> str:
        """Where the protected-resource metadata is: ``/.well-known/oauth-protected-resource``
        followed by the resource's path, on its host (RFC 9728 §3.1)."""
        return str(build_resource_metadata_url(AnyHttpUrl(self.resource)))

    def metadata(self) -> ProtectedResourceMetadata:
        # Validated from strings, so that the model keeps an issuer without a path as written (a
        # client compares it with the issuer's own metadata character for character).
        return ProtectedResourceMetadata.model_validate(
            {
                "resource": self.resource,
                "authorization_servers": [self.issuer],
                "scopes_supported": list(self.scopes) or None,
                "resource_name": "Gatehouse",
            }
        )

    def routes(self) -> list[Route]:
        """The metadata document at its address and at the host's root address."""
        handler = cors_middleware(
            ProtectedResourceMetadataHandler(self.metadata()).handle, ["GET", "OPTIONS"]
        )
        paths = dict.fromkeys((urlsplit(self.metadata_url).path, ROOT_METADATA_PATH))
        return [Route(path, endpoint=handler, methods=["GET", "OPTIONS"]) for path in paths]


def oauth_resource_from(environ: Mapping[str, str]) -> OAuthResource | None:
    """The resource-server settings in ``environ``; None when ``GATEHOUSE_OAUTH_ISSUER`` is not
    set. Raises ConfigurationError naming the variable that is wrong, and why."""
    values = {name: (environ.get(name) or "").strip() for name in _VARIABLES}
    if not values[OAUTH_ISSUER_ENV]:
        stray = [name for name in _VARIABLES if values[name]]
        if stray:
            raise ConfigurationError(
                f"{stray[0]} is set but {OAUTH_ISSUER_ENV} is not: set the authorization server's "
                "issuer to accept its tokens, or unset it"
            )
        return None
    issuer = _url(values[OAUTH_ISSUER_ENV], OAUTH_ISSUER_ENV, "the authorization server's issuer")
    if not values[OAUTH_RESOURCE_ENV]:
        raise ConfigurationError(
            f"{OAUTH_RESOURCE_ENV}: required with {OAUTH_ISSUER_ENV}: this endpoint's address as "
            "clients reach it, e.g. https://gatehouse.example.com/mcp (tokens must be issued for it)"
        )
    resource = _url(values[OAUTH_RESOURCE_ENV], OAUTH_RESOURCE_ENV, "this endpoint's address")
    audiences = tuple(part.strip() for part in values[OAUTH_AUDIENCE_ENV].split(",") if part.strip())
    claim = identity_claim(values[OAUTH_CLAIM_ENV] or None, OAUTH_CLAIM_ENV)
    return OAuthResource(
        issuer=issuer,
        resource=resource,
        audiences=audiences or (resource,),
        claim=claim,
        scopes=tuple(values[OAUTH_SCOPES_ENV].split()),
    )


def _url(value: str, variable: str, what: str) -> str:
    try:
        parts = urlsplit(value)
        usable = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # a malformed host ("https://[abc")
        usable = False
    if not usable:
        raise ConfigurationError(f"{variable}: expected {what} as an https:// URL, got {value!r}")
    if parts.scheme != "https" and not is_loopback(value):
        raise ConfigurationError(
            f"{variable}: {value!r} is plain http on a host that is not this machine; OAuth "
            "allows http only on loopback (tokens would cross the network in clear)"
        )
    if parts.query or parts.fragment:
        raise ConfigurationError(
            f"{variable}: {what} has no query or fragment (RFC 8414, RFC 8707), got {value!r}"
        )
    return value
