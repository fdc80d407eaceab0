"""A stand-in authorization server for the tests, in this process on 127.0.0.1: its metadata
(RFC 8414) at the root issuer's well-known address, naming its key set, and access tokens signed
with its key (RS256), as Keycloak, Entra ID or Auth0 issue them; and a second key nobody
published, to forge with."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.gatehouse.gateway.gateway_support import serving_app

KEY_ID = "test-key-1"


class StandInIssuer:
    """Signs access tokens for ``url``; counts how often its key set was fetched."""

    def __init__(self) -> None:
        self.url = ""
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.forger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.key_set_fetches = 0

    def token(
        self,
        claims: dict[str, Any],
        *,
        lifetime: float = 300,
        key: rsa.RSAPrivateKey | None = None,
        kid: str = KEY_ID,
        algorithm: str = "RS256",
    ) -> str:
        """A token with ``claims`` on top of this issuer's ``iss``, ``iat``, ``exp`` and ``jti``
        (a claim set to None is left out)."""
        now = int(time.time())
        payload = {"iss": self.url, "iat": now, "exp": now + lifetime, "jti": uuid.uuid4().hex} | claims
        signing = key or self.key
        return jwt.encode(
            {name: value for name, value in payload.items() if value is not None},
            signing,
            algorithm=algorithm,
            headers={"kid": kid},
        )

    def app(self) -> Starlette:
        async def metadata(request: Request) -> JSONResponse:
            return JSONResponse(
                {
                    "issuer": self.url,
                    "authorization_endpoint": f"{self.url}/authorize",
                    "token_endpoint": f"{self.url}/token",
                    "jwks_uri": f"{self.url}/jwks",
                    "response_types_supported": ["code"],
                    "code_challenge_methods_supported": ["S256"],
                }
            )

        async def key_set(request: Request) -> JSONResponse:
            self.key_set_fetches += 1
            public = RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
            return JSONResponse({"keys": [public | {"kid": KEY_ID, "use": "sig", "alg": "RS256"}]})

        return Starlette(
            routes=[
                Route("/.well-known/oauth-authorization-server", metadata),
                Route("/jwks", key_set),
            ]
        )


@contextmanager
def serving_issuer() -> Iterator[StandInIssuer]:
    issuer = StandInIssuer()
    with serving_app(issuer.app()) as port:
        issuer.url = f"http://127.0.0.1:{port}"
        yield issuer
