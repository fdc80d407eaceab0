"""A remote MCP server behind OAuth 2.1, with its own authorization server, for sign-in tests.

Run as ``python -m tests.oauth_server PORT``; serves on 127.0.0.1 until killed. The SDK's
server side does the protocol (protected-resource metadata, RFC 8414 metadata, dynamic
registration, PKCE, token and refresh endpoints); the provider below keeps everything in memory
and approves every authorization request at once, like the conformance suite's server: the
person "signs in" by following the redirect.

Tools: ``whoami`` says which client the token was issued to. ``GET /test/revoke`` forgets
every token, so the next request needs a new sign-in.
"""

from __future__ import annotations

import secrets
import sys
import time
from typing import Any

import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    OAuthAuthorizationServerProvider,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

SCOPE = "notes"


class ApproveEverything(OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]):
    """An authorization server that registers any client and approves any request."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[authorization_code.code]
        return self._issue(client.client_id or "", authorization_code.scopes)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]
        return self._issue(client.client_id or "", scopes or refresh_token.scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=int(time.time()) + 3600
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=3600,
            refresh_token=refresh,
            scope=" ".join(scopes),
        )


def build(port: int) -> Any:
    base = f"http://127.0.0.1:{port}"
    provider = ApproveEverything()
    server = MCPServer(
        "notes",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=AnyHttpUrl(base),
            resource_server_url=AnyHttpUrl(f"{base}/mcp"),
            client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=[SCOPE]),
            required_scopes=[SCOPE],
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Which client the request's token was issued to."""
        token = get_access_token()
        return f"signed in as {token.client_id if token else 'nobody'}"

    async def revoke(request: Request) -> Response:
        provider.access.clear()
        provider.refresh.clear()
        return PlainTextResponse("revoked")

    server.custom_route("/test/revoke", methods=["GET"])(revoke)

    return server.streamable_http_app()


def main() -> None:
    port = int(sys.argv[1])
    uvicorn.run(build(port), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
