"""Access tokens an authorization server issued, checked as `gatehouse serve` is their resource
server (the MCP authorization spec): JWTs signed with one of the issuer's published keys
(issuer_keys.py), by an asymmetric algorithm, from that issuer, unexpired, and issued for this
endpoint: their ``aud`` names it. A token issued for another resource is refused, whoever
signed it: accepting it would let any service the person signed in to call Gatehouse as them
(the spec's "token passthrough" and confused-deputy warnings). The token itself never goes
further than this check: Gatehouse calls its servers with its own sessions and credentials.

JWTs, not introspection (RFC 7662): Keycloak, Microsoft Entra ID, Auth0, Okta and Cognito all
issue JWT access tokens and publish their keys, while introspection needs a client secret of
Gatehouse's own at each provider and a round trip per request; the MCP SDK leaves the choice to
the resource server (its TokenVerifier). The caller is the roster member a claim names, by the
rules the app's sign-in uses (gatehouse/credentials/oidc_identity.py): the verified e-mail
address unless GATEHOUSE_OAUTH_CLAIM names a claim the provider assigns. A valid token that
names nobody on the roster is refused with 403 (an AuthenticationError the app answers as such),
not 401: signing in again would not change who the person is.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio.to_thread
import jwt
from mcp.server.auth.provider import AccessToken
from starlette.authentication import AuthenticationError

from gatehouse.credentials.access_tokens import TOKEN_PREFIX
from gatehouse.credentials.oidc_identity import SignInRefused, signed_in_user
from gatehouse.gateway.issuer_keys import IssuerKeys
from gatehouse.gateway.resource_server import OAuthResource
from gatehouse.settings import OAUTH_AUDIENCE_ENV, OAUTH_CLAIM_ENV

log = logging.getLogger(__name__)

# Public-key algorithms only: with an HMAC one the issuer's public key would be the secret.
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
# Clocks disagree a little: a token is taken for this long after its exp (and before its nbf).
LEEWAY_SECONDS = 30


class IssuerTokens:
    """The MCP SDK's TokenVerifier for ``config``'s issuer; ``on_roster(name)`` says whether a
    name is the policy's (it may read the database: it is called on a worker thread)."""

    def __init__(
        self, config: OAuthResource, on_roster: Callable[[str], bool], *, keys: IssuerKeys | None = None
    ) -> None:
        self._config = config
        self._on_roster = on_roster
        self._keys = keys or IssuerKeys(config.issuer)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's caller when it is valid for this endpoint; None (401) when it is not.

        Raises:
            AuthenticationError: the token is valid, but names nobody on the roster (403).
        """
        if token.startswith(TOKEN_PREFIX):
            return None  # Gatehouse's own: never a JWT, and checked by its own table
        claims = await self._verified_claims(token)
        if claims is None:
            return None
        name = await self._caller(claims)
        scope = claims.get("scope", claims.get("scp", ""))
        scopes = scope.split() if isinstance(scope, str) else [str(s) for s in scope if isinstance(s, str)]
        client = claims.get("client_id", claims.get("azp"))
        return AccessToken(
            token=token,
            client_id=name,
            subject=str(claims["sub"]) if "sub" in claims else None,
            scopes=scopes,
            expires_at=int(claims["exp"]),
            resource=self._config.resource,
            claims={"iss": claims["iss"]} | ({"oauth_client": client} if isinstance(client, str) else {}),
        )

    async def _verified_claims(self, token: str) -> dict[str, Any] | None:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            return None  # not a JWT: nothing of this issuer's
        alg, kid = header.get("alg"), header.get("kid")
        if alg not in ALGORITHMS:
            log.warning(
                "refused an access token signed with %r: only %s are accepted", alg, ", ".join(ALGORITHMS)
            )
            return None
        key = await self._keys.key(kid if isinstance(kid, str) else None, alg)
        if key is None:
            log.warning("refused an access token: no key %r of %s's signs it", kid, self._config.issuer)
            return None
        try:
            return jwt.decode(
                token,
                key.key,
                algorithms=[alg],
                audience=list(self._config.audiences),
                issuer=self._keys.named_issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.ExpiredSignatureError:
            log.info("refused an expired access token (the client refreshes it)")
        except jwt.InvalidAudienceError:
            log.warning(
                "refused an access token issued for another resource: its audience is not %s (%s)",
                ", ".join(self._config.audiences),
                OAUTH_AUDIENCE_ENV,
            )
        except jwt.PyJWTError as exc:
            log.warning("refused an access token from %s: %s", self._config.issuer, exc)
        return None

    async def _caller(self, claims: dict[str, Any]) -> str:
        try:
            name = signed_in_user(claims, self._config.claim, OAUTH_CLAIM_ENV)
        except SignInRefused as exc:
            log.warning("refused an access token that names nobody: %s", exc)
            raise AuthenticationError(f"the access token names nobody: {exc}") from exc
        if not await anyio.to_thread.run_sync(self._on_roster, name):
            log.warning("refused an access token for %r, who is not on the policy's roster", name)
            raise AuthenticationError(f"the access token names {name!r}, who is not on Gatehouse's roster")
        return name
