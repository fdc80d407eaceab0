"""Signing in to remote servers: the SDK's OAuth providers, fed from Gatehouse's configuration.

Every flow is the SDK's (mcp.client.auth): discovery, registration, PKCE, the resource
parameter, scope selection, step-up and refresh are ``OAuthClientProvider``'s; client
credentials and private_key_jwt its extensions'; cross-app access ``IdentityAssertionOAuthProvider``.
What Gatehouse adds:

- **Where credentials live.** A ``CredentialStore`` keyed by server name *and* URL, so tokens
  issued for one address are never sent to another when the servers file changes.
- **Who signs in.** An ``Authorizer`` takes a person to the authorization URL and brings back
  the code. Without one (a request in the app, a replica starting up) a server that needs a
  person raises ``SignInRequired``, which the pool reports as "needs sign-in", never as
  "refused the credentials".
- **A step-up limit.** A server that answers every new token with another ``insufficient_scope``
  would otherwise send the person to sign in forever; after ``MAX_AUTHORIZATIONS`` in a row
  without one request getting through, the flow stops with a message that says so.
- **Cross-app access's first leg** (RFC 8693 token exchange at the identity provider), which the
  SDK leaves to the caller.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, Protocol
from urllib.parse import quote, urlsplit

import anyio
import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError, TokenStorage
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.auth.utils import issuers_match
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

from mcp_host.config import HttpServer
from mcp_host.oauth_config import IdentityProvider
from mcp_host.oauth_metadata import check_authorization_server, guarded
from mcp_host.reported import SignInError

CredentialKind = Literal["tokens", "client"]
# The loopback port a person's browser returns to after signing in from the CLI, when the
# servers file names none (oauth.callbackPort). Fixed, so a registration made once keeps working.
DEFAULT_CALLBACK_PORT = 33418
# Authorizations in a row (first sign-in and step-ups) without a request getting through.
MAX_AUTHORIZATIONS = 3
CLIENT_NAME = "Gatehouse"
_TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
_ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
_ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"


class SignInRequired(SignInError):
    """A server needs a person to sign in, and nobody is there to do it right now."""

    def __init__(self, server: str) -> None:
        super().__init__(
            f"{server} needs sign-in: run `gatehouse servers login {server}` or use Connect on the Servers page"
        )
        self.server = server


class CredentialStore(Protocol):
    """Tokens and client registrations per server, as JSON text. Implementations keep them
    secret at rest (storage/credentials.py encrypts them in Gatehouse's database)."""

    def load(self, server: str, url: str, kind: CredentialKind) -> str | None: ...

    def save(self, server: str, url: str, kind: CredentialKind, value: str) -> None: ...

    def forget(self, server: str) -> None: ...


class MemoryCredentialStore:
    """Credentials that live as long as the process (the conformance client, tests)."""

    def __init__(self) -> None:
        self._values: dict[tuple[str, str, CredentialKind], str] = {}

    def load(self, server: str, url: str, kind: CredentialKind) -> str | None:
        return self._values.get((server, url, kind))

    def save(self, server: str, url: str, kind: CredentialKind, value: str) -> None:
        self._values[(server, url, kind)] = value

    def forget(self, server: str) -> None:
        for key in [key for key in self._values if key[0] == server]:
            del self._values[key]


class Authorizer(Protocol):
    """Takes a person through the authorization URL and returns what the server sent back."""

    @property
    def redirect_uri(self) -> str: ...

    async def authorize(self, server: str, authorization_url: str) -> AuthorizationCodeResult: ...


@dataclass(frozen=True)
class SignIn:
    """What the pool needs to sign in to remote servers."""

    store: CredentialStore
    # None: nobody can sign in now; a server that needs a person reports "needs sign-in".
    authorizer: Authorizer | None = None
    # Where the app receives the sign-in's return, registered beside the CLI's loopback address
    # so a client registered from one works from the other.
    app_redirect_uri: str | None = None
    # Called when the pool closes: the pool owns the store from then on (wiring's database).
    close: Callable[[], None] | None = None


class _ServerTokens(TokenStorage):
    """The SDK's storage protocol over a CredentialStore, for one server at one URL. The store
    may be a database: it is called off the event loop."""

    def __init__(self, store: CredentialStore, server: str, url: str) -> None:
        self._store, self._server, self._url = store, server, url

    async def _load(self, kind: CredentialKind) -> str | None:
        return await anyio.to_thread.run_sync(self._store.load, self._server, self._url, kind)

    async def _save(self, kind: CredentialKind, value: str) -> None:
        await anyio.to_thread.run_sync(self._store.save, self._server, self._url, kind, value)

    async def get_tokens(self) -> OAuthToken | None:
        text = await self._load("tokens")
        return OAuthToken.model_validate_json(text) if text else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        await self._save("tokens", tokens.model_dump_json(exclude_none=True))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        text = await self._load("client")
        return OAuthClientInformationFull.model_validate_json(text) if text else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        await self._save("client", client_info.model_dump_json(exclude_none=True))


class _PreRegistered(_ServerTokens):
    """A client registered by hand (oauth.clientId): its record comes from the servers file,
    never from a registration endpoint, and is never overwritten by one."""

    def __init__(self, store: CredentialStore, entry: HttpServer, redirect_uris: list[str]) -> None:
        super().__init__(store, entry.name, entry.url)
        oauth = entry.oauth
        assert oauth.client_id is not None  # only built for a pre-registered client
        secret = oauth.client_secret.get_secret_value() if oauth.client_secret else None
        method = oauth.token_endpoint_auth_method or ("client_secret_basic" if secret else "none")
        self._client = OAuthClientInformationFull(
            client_id=oauth.client_id,
            client_secret=secret,
            redirect_uris=[AnyUrl(uri) for uri in redirect_uris],
            token_endpoint_auth_method=method,
            grant_types=["authorization_code", "refresh_token"],
            scope=oauth.scope,
        )

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self._client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._client = client_info


def loopback_redirect_uri(entry: HttpServer) -> str:
    return f"http://127.0.0.1:{entry.oauth.callback_port or DEFAULT_CALLBACK_PORT}/callback"


class _OriginIssuer(str):
    """The expected issuer on the 2025-03-26 path (no protected-resource metadata): the MCP
    server's origin, which by that spec *is* the authorization server. An issuer with a path
    under the same origin is accepted as equal: the document came from that origin's own
    well-known address, so the origin already vouches for it (and the suite's 2025-03-26 server
    names ``<origin>/oauth``). An issuer on any other origin still fails the SDK's check."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        return str.__eq__(self, other) or _same_origin(str(self), other)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = str.__hash__


def _same_origin(origin: str, issuer: str) -> bool:
    parts = urlsplit(issuer)
    return f"{parts.scheme}://{parts.netloc}" == origin.rstrip("/") and not parts.query and not parts.fragment


class _PersonSignIn(OAuthClientProvider):
    """The authorization-code flow with a limit on authorizations in a row (see module doc)."""

    def __init__(
        self,
        server: str,
        url: str,
        metadata: OAuthClientMetadata,
        storage: TokenStorage,
        authorize: Callable[[str], Awaitable[AuthorizationCodeResult]],
        client_metadata_url: str | None,
        *,
        issuer: str | None = None,
        endpoint_origins: frozenset[str] = frozenset(),
    ) -> None:
        pending: list[str] = []

        async def redirect(authorization_url: str) -> None:
            pending.append(authorization_url)

        async def callback() -> AuthorizationCodeResult:
            return await authorize(pending.pop())

        super().__init__(
            url,
            metadata,
            storage,
            redirect_handler=redirect,
            callback_handler=callback,
            client_metadata_url=client_metadata_url,
        )
        self._server = server
        self._authorizations = 0
        self._issuer = issuer
        self.context = guarded(self.context, endpoint_origins, issuer)

    def _select_authorization_server(self, advertised: list[str]) -> str:
        """The configured issuer when the server lists it; else the first the server names. Checked
        before anything is fetched from it (mcp_host/oauth_metadata.py)."""
        chosen = next(
            (url for url in advertised if self._issuer and issuers_match(url, self._issuer)), advertised[0]
        )
        check_authorization_server(chosen, self._issuer)
        return chosen

    def _expected_issuer(self) -> str:
        expected = super()._expected_issuer()
        return expected if self.context.auth_server_url else _OriginIssuer(expected)

    async def _perform_authorization(self) -> httpx2.Request:
        self._authorizations += 1
        if self._authorizations > MAX_AUTHORIZATIONS:
            raise OAuthFlowError(
                f"{self._server} asked for authorization {self._authorizations} times in a row without "
                "accepting the token it granted (insufficient_scope each time); stopped asking"
            )
        return await super()._perform_authorization()

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = super().async_auth_flow(request)
        response: httpx2.Response | None = None
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                if outgoing is request and response.status_code < 400:
                    self._authorizations = 0
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await _close_in_this_task(flow)


def person_provider(entry: HttpServer, sign_in: SignIn) -> httpx2.Auth:
    """The authorization-code flow for a server a person signs in to."""
    oauth = entry.oauth
    authorizer = sign_in.authorizer
    first = authorizer.redirect_uri if authorizer is not None else loopback_redirect_uri(entry)
    redirect_uris = [first, loopback_redirect_uri(entry), *filter(None, [sign_in.app_redirect_uri])]
    redirect_uris = list(dict.fromkeys(redirect_uris))
    storage: TokenStorage = (
        _PreRegistered(sign_in.store, entry, redirect_uris)
        if oauth.client_id is not None
        else _ServerTokens(sign_in.store, entry.name, entry.url)
    )
    method = oauth.token_endpoint_auth_method or ("client_secret_basic" if oauth.client_secret else "none")
    metadata = OAuthClientMetadata(
        client_name=CLIENT_NAME,
        redirect_uris=[AnyUrl(uri) for uri in redirect_uris],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method=method,
        scope=oauth.scope,
    )

    async def authorize(authorization_url: str) -> AuthorizationCodeResult:
        if authorizer is None:
            raise SignInRequired(entry.name)
        return await authorizer.authorize(entry.name, authorization_url)

    return _PersonSignIn(
        entry.name,
        entry.url,
        metadata,
        storage,
        authorize,
        oauth.client_metadata_url,
        issuer=oauth.issuer,
        endpoint_origins=oauth.endpoint_origins,
    )


def machine_provider(entry: HttpServer, store: CredentialStore) -> httpx2.Auth:
    """Client credentials (secret or private_key_jwt) or cross-app access: no person involved."""
    oauth = entry.oauth
    storage = _ServerTokens(store, entry.name, entry.url)
    assert oauth.client_id is not None  # checked when the servers file was read
    if oauth.grant == "jwt_bearer":
        assert oauth.client_secret is not None and oauth.issuer is not None and oauth.idp is not None
        method = oauth.token_endpoint_auth_method
        return IdentityAssertionOAuthProvider(
            entry.url,
            storage,
            client_id=oauth.client_id,
            client_secret=oauth.client_secret.get_secret_value(),
            issuer=oauth.issuer,
            assertion_provider=identity_assertion(oauth.idp),
            scope=oauth.scope,
            token_endpoint_auth_method="client_secret_post"
            if method == "client_secret_post"
            else "client_secret_basic",
        )
    provider = _client_credentials(entry, storage)
    # The client's secret or signed assertion goes to the token endpoint: checked like a person's code.
    provider.context = guarded(provider.context, oauth.endpoint_origins, oauth.issuer)
    return provider


def _client_credentials(entry: HttpServer, storage: TokenStorage) -> OAuthClientProvider:
    oauth = entry.oauth
    assert oauth.client_id is not None  # checked when the servers file was read
    if oauth.private_key is not None:
        signer = SignedJWTParameters(
            issuer=oauth.client_id,
            subject=oauth.client_id,
            signing_key=oauth.private_key.get_secret_value(),
            signing_algorithm=oauth.signing_algorithm,
        )
        return PrivateKeyJWTOAuthProvider(
            entry.url,
            storage,
            client_id=oauth.client_id,
            assertion_provider=signer.create_assertion_provider(),
            scope=oauth.scope,
            issuer=oauth.issuer,
        )
    assert oauth.client_secret is not None
    return ClientCredentialsOAuthProvider(
        entry.url,
        storage,
        client_id=oauth.client_id,
        client_secret=oauth.client_secret.get_secret_value(),
        token_endpoint_auth_method=(
            "client_secret_post"
            if oauth.token_endpoint_auth_method == "client_secret_post"
            else "client_secret_basic"
        ),
        scope=oauth.scope,
        issuer=oauth.issuer,
    )


def server_auth(entry: HttpServer, sign_in: SignIn | None) -> httpx2.Auth | None:
    """The httpx auth for one remote server, or None when OAuth is off for it (``"oauth":
    false``, or an Authorization header in the servers file), or nowhere to keep tokens."""
    if sign_in is None or not entry.oauth.enabled:
        return None
    if any(name.lower() == "authorization" for name in entry.headers):
        return None
    if entry.oauth.grant == "authorization_code":
        return person_provider(entry, sign_in)
    return machine_provider(entry, sign_in.store)


def identity_assertion(idp: IdentityProvider) -> Callable[[str, str], Awaitable[str]]:
    """Cross-app access, first leg: the person's ID token exchanged at the identity provider for
    an identity assertion (ID-JAG) addressed to the server's authorization server."""

    async def exchange(audience: str, resource: str) -> str:
        data = {
            "grant_type": _TOKEN_EXCHANGE,
            "subject_token": idp.id_token.get_secret_value(),
            "subject_token_type": _ID_TOKEN,
            "requested_token_type": _ID_JAG,
            "audience": audience,
            "resource": resource,
            "client_id": idp.client_id,
        }
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if idp.client_secret is not None:
            pair = f"{quote(idp.client_id, safe='')}:{quote(idp.client_secret.get_secret_value(), safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        async with httpx2.AsyncClient(timeout=30.0) as http:
            response = await http.post(idp.token_endpoint, data=data, headers=headers)
        if response.status_code != 200:
            raise OAuthFlowError(
                f"the identity provider refused the token exchange (HTTP {response.status_code})"
            )
        token = response.json().get("access_token")
        if not isinstance(token, str) or not token:
            raise OAuthFlowError("the identity provider's token exchange returned no assertion")
        return token

    return exchange


class _Watched(httpx2.Auth):
    """Another auth's flow, with its failure reported before the transport swallows it (the
    SDK's HTTP transport logs a failed request and drops the exception)."""

    def __init__(self, inner: httpx2.Auth, on_failure: Callable[[BaseException | None], None]) -> None:
        self._inner = inner
        self._on_failure = on_failure
        self.requires_response_body = getattr(inner, "requires_response_body", False)

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = self._inner.async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            self._on_failure(None)
        except Exception as exc:
            self._on_failure(exc)
            raise
        finally:
            await _close_in_this_task(flow)


async def _close_in_this_task(flow: AsyncGenerator[httpx2.Request, httpx2.Response]) -> None:
    """Close a wrapped auth flow now, in the task that ran it. httpx closes the outermost flow
    when a request ends early (a timeout cancelled it); a flow inside it left open is finalized
    later by the garbage collector in another task, and the SDK's flow holds a lock across each
    request: releasing it from another task fails, so the lock stayed held and every later
    request to that server waited for it (tests/adversarial/test_slowloris.py)."""
    await flow.aclose()


def watched(auth: httpx2.Auth, on_failure: Callable[[BaseException | None], None]) -> httpx2.Auth:
    """``auth`` telling ``on_failure`` why a sign-in failed, and None once one succeeds."""
    return _Watched(auth, on_failure)
