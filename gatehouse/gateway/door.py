"""Who comes in at Gatehouse's MCP endpoint, and how often: everything the endpoint checks
before an MCP message is read, assembled from the MCP SDK's own pieces.

- **The bearer token.** Gatehouse's own tokens (``gth_...``, gatehouse/credentials/
  access_tokens.py) always; where an authorization server is configured
  (resource_server.py), its access tokens too (issuer_tokens.py). A request without a valid
  one is answered 401 with ``WWW-Authenticate: Bearer``, naming the protected-resource
  metadata (``resource_metadata="..."``) when there is some; a valid token whose person is not
  on the roster, 403.
- **The rate limit** (rate_limit.py): each caller's requests a minute, from the policy.
- **The metadata** (RFC 9728), served beside the endpoint when an authorization server is
  configured.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import AccessToken, TokenVerifier
from pydantic import AnyHttpUrl
from starlette.authentication import AuthenticationError
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.routing import Route

from gatehouse.credentials.access_tokens import TOKEN_PREFIX
from gatehouse.gateway.issuer_tokens import IssuerTokens
from gatehouse.gateway.rate_limit import RateLimited
from gatehouse.gateway.request_counts import RequestCounts

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from gatehouse.gateway.resource_server import OAuthResource
    from gatehouse.wiring import Services


class EitherToken:
    """The TokenVerifier the SDK's bearer backend asks: Gatehouse's own tokens by their prefix,
    an authorization server's otherwise (when one is configured). A Gatehouse token is issued by
    an admin for the whole endpoint, so it holds whatever scopes the endpoint asks for."""

    def __init__(self, own: TokenVerifier, issued: IssuerTokens | None, scopes: Sequence[str] = ()) -> None:
        self._own = own
        self._issued = issued
        self._scopes = list(scopes)

    async def verify_token(self, token: str) -> AccessToken | None:
        if token.startswith(TOKEN_PREFIX):
            found = await self._own.verify_token(token)
            return found.model_copy(update={"scopes": self._scopes}) if found is not None else None
        return await self._issued.verify_token(token) if self._issued is not None else None


@dataclass(frozen=True)
class Door:
    """What the app adds around its MCP endpoint: routes, middleware and the endpoint's guard."""

    routes: list[Route]
    middleware: list[Middleware]
    counts: RequestCounts
    services: Services
    oauth: OAuthResource | None

    def guard(self, endpoint: ASGIApp) -> ASGIApp:
        """``endpoint`` behind the bearer check (401, or 403 for a missing scope) and the rate limit."""
        limited = RateLimited(endpoint, self.counts, self.services.policy.gateway_rate_limit)
        return RequireAuthMiddleware(
            limited,
            required_scopes=list(self.oauth.scopes) if self.oauth else [],
            resource_metadata_url=AnyHttpUrl(self.oauth.metadata_url) if self.oauth else None,
        )


def door(services: Services, own_tokens: TokenVerifier, oauth: OAuthResource | None) -> Door:
    """The door for ``services``' endpoint: ``own_tokens`` checks Gatehouse's tokens, ``oauth``
    (None: not configured) an authorization server's."""
    issued = None
    if oauth is not None:
        issued = IssuerTokens(oauth, lambda name: services.policy.role_of(name) is not None)
    verifier = EitherToken(own_tokens, issued, oauth.scopes if oauth else ())
    metadata_url = oauth.metadata_url if oauth else None

    def not_on_roster(conn: HTTPConnection, exc: AuthenticationError) -> Response:
        return _forbidden(str(exc), metadata_url)

    return Door(
        routes=oauth.routes() if oauth else [],
        middleware=[
            Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier), on_error=not_on_roster),
            Middleware(AuthContextMiddleware),
        ],
        counts=RequestCounts(services.ledger.database),
        services=services,
        oauth=oauth,
    )


def _forbidden(why: str, metadata_url: str | None) -> Response:
    """403 for a valid token whose person may not come in. Not ``insufficient_scope``: a client
    hearing that asks the authorization server for more scope, which cannot change who it is."""
    challenge = 'Bearer error="access_denied", error_description="Not on Gatehouse\'s roster"'
    if metadata_url is not None:
        challenge += f', resource_metadata="{metadata_url}"'
    body = json.dumps({"error": "access_denied", "error_description": why})
    return Response(
        body, status_code=403, media_type="application/json", headers={"WWW-Authenticate": challenge}
    )
