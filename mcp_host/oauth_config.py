"""The ``oauth`` key of a remote server's entry in the servers file.

A remote server behind OAuth needs nothing in the file: Gatehouse discovers the authorization
server (RFC 9728, RFC 8414 / OpenID discovery, the 2025-03-26 fallbacks), registers itself
(RFC 7591, or a Client ID Metadata Document when ``clientMetadataUrl`` is given and the server
supports it) and asks a person to sign in once. The key is for what cannot be discovered::

    "oauth": {
        "clientId": "gatehouse",                     # a pre-registered client (Claude Code's key)
        "clientSecret": "${CRM_CLIENT_SECRET}",       # never written into the file itself
        "callbackPort": 33418,                        # the CLI's 127.0.0.1 redirect (Claude Code's key)
        "scope": "crm:read crm:write",                # else from the server's challenge or metadata
        "clientMetadataUrl": "https://gatehouse.example.com/oauth/client.json",
        "tokenEndpointAuthMethod": "client_secret_basic",   # or client_secret_post, none, private_key_jwt
        "grant": "authorization_code"                 # or client_credentials, jwt_bearer
    }

``grant: client_credentials`` is a machine identity (no person signs in): ``clientSecret``, or
``privateKey`` (PEM) with ``signingAlgorithm`` for ``private_key_jwt``. ``grant: jwt_bearer`` is
cross-app access (SEP-990): an ID token from the company's identity provider is exchanged there
for an identity assertion (RFC 8693), which the server's authorization server (``issuer``)
exchanges for an access token (RFC 7523). ``"oauth": false`` turns OAuth off for a server
whose ``headers`` carry its credentials.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, SecretStr

from mcp_host.errors import McpHostError
from mcp_host.known_keys import did_you_mean

Grant = Literal["authorization_code", "client_credentials", "jwt_bearer"]
TokenAuthMethod = Literal["client_secret_basic", "client_secret_post", "none", "private_key_jwt"]
_GRANTS: tuple[Grant, ...] = ("authorization_code", "client_credentials", "jwt_bearer")
_AUTH_METHODS: tuple[TokenAuthMethod, ...] = (
    "client_secret_basic",
    "client_secret_post",
    "none",
    "private_key_jwt",
)
_SIGNING_ALGORITHMS = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)
_KEYS = {
    "clientId",
    "clientSecret",
    "callbackPort",
    "scope",
    "clientMetadataUrl",
    "tokenEndpointAuthMethod",
    "grant",
    "privateKey",
    "signingAlgorithm",
    "issuer",
    "idp",
    "endpointOrigins",
}
_IDP_KEYS = {"tokenEndpoint", "clientId", "clientSecret", "idToken"}
_HTTP_URL = re.compile(r"^https?://\S+$")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_ORIGIN = re.compile(r"^https?://[^/\s?#@]+/?$", re.IGNORECASE)

Expand = Callable[[str, str], str]
"""Expands ``${VAR}`` in a value; the second argument names where it came from, for errors."""


class OAuthConfigError(McpHostError):
    """A malformed ``oauth`` object: ``where`` names the key, ``reason`` says what is wrong."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


class IdentityProvider(BaseModel):
    """Where cross-app access gets its identity assertion (RFC 8693 token exchange)."""

    model_config = ConfigDict(frozen=True)

    token_endpoint: str
    client_id: str
    client_secret: SecretStr | None = None
    id_token: SecretStr


class OAuthSettings(BaseModel):
    """How Gatehouse signs in to one remote server; every field is optional except as noted."""

    model_config = ConfigDict(frozen=True)

    enabled: bool = True
    grant: Grant = "authorization_code"
    client_id: str | None = None
    client_secret: SecretStr | None = None
    callback_port: int | None = None
    scope: str | None = None
    client_metadata_url: str | None = None
    token_endpoint_auth_method: TokenAuthMethod | None = None
    private_key: SecretStr | None = None
    signing_algorithm: str = "RS256"
    issuer: str | None = None
    idp: IdentityProvider | None = None
    # Origins other than the issuer's on which its metadata may put the authorization, token and
    # registration endpoints (mcp_host/oauth_metadata.py), as ``scheme://host:port``.
    endpoint_origins: frozenset[str] = frozenset()

    @property
    def needs_person(self) -> bool:
        """Whether a person signs in (authorization code), or the host alone can get a token."""
        return self.enabled and self.grant == "authorization_code"

    def describe(self) -> dict[str, Any]:
        """What the configuration says, with every secret shown only as set or not."""
        if not self.enabled:
            return {"enabled": False}
        described: dict[str, Any] = {"grant": self.grant}
        for key, value in (
            ("client_id", self.client_id),
            ("scope", self.scope),
            ("callback_port", self.callback_port),
            ("client_metadata_url", self.client_metadata_url),
            ("token_endpoint_auth_method", self.token_endpoint_auth_method),
            ("issuer", self.issuer),
        ):
            if value is not None:
                described[key] = value
        if self.endpoint_origins:
            described["endpoint_origins"] = sorted(self.endpoint_origins)
        if self.client_secret is not None:
            described["client_secret"] = "set"
        if self.private_key is not None:
            described["private_key"] = "set"
        return described


DISABLED = OAuthSettings(enabled=False)
DEFAULT = OAuthSettings()


def parse_oauth(raw: Any, where: str, expand: Expand) -> OAuthSettings:
    """Read an entry's ``oauth`` value (``where`` is ``file: mcpServers.NAME.oauth``)."""
    if raw is None or raw is True:
        return DEFAULT
    if raw is False:
        return DISABLED
    _check_object(raw, where, _KEYS, "must be an object (or false to turn OAuth off)")

    def text(key: str) -> str | None:
        return _text(raw, key, where, expand)

    grant = raw.get("grant", "authorization_code")
    if grant not in _GRANTS:
        raise OAuthConfigError(f"{where}.grant", f"must be one of {', '.join(_GRANTS)}, not {grant!r}")
    method = raw.get("tokenEndpointAuthMethod")
    if method is not None and method not in _AUTH_METHODS:
        raise OAuthConfigError(
            f"{where}.tokenEndpointAuthMethod", f"must be one of {', '.join(_AUTH_METHODS)}, not {method!r}"
        )
    algorithm = raw.get("signingAlgorithm", "RS256")
    if algorithm not in _SIGNING_ALGORITHMS:
        raise OAuthConfigError(
            f"{where}.signingAlgorithm", f"must be one of {', '.join(_SIGNING_ALGORITHMS)}, not {algorithm!r}"
        )
    port = raw.get("callbackPort")
    if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535):
        raise OAuthConfigError(f"{where}.callbackPort", "must be a port number between 1 and 65535")
    metadata_url = text("clientMetadataUrl")
    if metadata_url is not None and not re.match(r"^https://[^/\s]+/\S+$", metadata_url):
        raise OAuthConfigError(
            f"{where}.clientMetadataUrl",
            "must be an https:// URL with a path (a Client ID Metadata Document)",
        )
    issuer = text("issuer")
    if issuer is not None and not _HTTP_URL.match(issuer):
        raise OAuthConfigError(f"{where}.issuer", "must be an http:// or https:// URL")
    secret = text("clientSecret")
    private_key = text("privateKey")
    settings = OAuthSettings(
        grant=grant,
        client_id=text("clientId"),
        client_secret=SecretStr(secret) if secret is not None else None,
        callback_port=port,
        scope=text("scope"),
        client_metadata_url=metadata_url,
        token_endpoint_auth_method=method,
        private_key=SecretStr(private_key) if private_key is not None else None,
        signing_algorithm=algorithm,
        issuer=issuer,
        idp=_identity_provider(raw.get("idp"), f"{where}.idp", expand),
        endpoint_origins=_endpoint_origins(raw.get("endpointOrigins"), f"{where}.endpointOrigins"),
    )
    _check_grant(settings, where)
    return settings


def origin(url: str) -> str:
    """``scheme://host:port`` of a URL, lower-case, with the scheme's default port written out,
    so two spellings of one origin compare equal."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port if parts.port is not None else _DEFAULT_PORTS.get(scheme)
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}"


def is_loopback(url: str) -> bool:
    """Whether the URL's host is this machine: 127.0.0.0/8, ::1 or localhost (RFC 8252 §8.3)."""
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _endpoint_origins(raw: Any, where: str) -> frozenset[str]:
    """``endpointOrigins``: a list of ``https://host[:port]`` (http only for loopback), each
    kept in the one spelling the checks compare (mcp_host/oauth_metadata.py)."""
    if raw is None:
        return frozenset()
    if not isinstance(raw, list) or not raw:
        raise OAuthConfigError(where, "must be a non-empty list of origins such as https://login.example.com")
    origins: set[str] = set()
    for index, value in enumerate(raw):
        if not isinstance(value, str) or not _ORIGIN.match(value):
            raise OAuthConfigError(
                f"{where}[{index}]",
                f"must be an origin such as https://login.example.com (no path), not {value!r}",
            )
        if value.lower().startswith("http://") and not is_loopback(value):
            raise OAuthConfigError(f"{where}[{index}]", "must be https:// (http only for this machine)")
        origins.add(origin(value))
    return frozenset(origins)


def _identity_provider(raw: Any, where: str, expand: Expand) -> IdentityProvider | None:
    if raw is None:
        return None
    _check_object(raw, where, _IDP_KEYS, "must be an object with tokenEndpoint, clientId and idToken")
    values: dict[str, str] = {}
    for key in ("tokenEndpoint", "clientId", "clientSecret", "idToken"):
        value = _text(raw, key, where, expand)
        if value is not None:
            values[key] = value
    for key in ("tokenEndpoint", "clientId", "idToken"):
        if key not in values:
            raise OAuthConfigError(f"{where}.{key}", "is required for cross-app access")
    if not _HTTP_URL.match(values["tokenEndpoint"]):
        raise OAuthConfigError(f"{where}.tokenEndpoint", "must be an http:// or https:// URL")
    secret = values.get("clientSecret")
    return IdentityProvider(
        token_endpoint=values["tokenEndpoint"],
        client_id=values["clientId"],
        client_secret=SecretStr(secret) if secret is not None else None,
        id_token=SecretStr(values["idToken"]),
    )


def _check_object(raw: Any, where: str, keys: set[str], shape: str) -> None:
    if not isinstance(raw, dict):
        raise OAuthConfigError(where, shape)
    unknown = sorted(set(raw) - keys)
    if unknown:
        raise OAuthConfigError(
            f"{where}.{unknown[0]}",
            f"unknown key{did_you_mean(unknown[0], keys)}; known keys: {', '.join(sorted(keys))}",
        )


def _text(raw: dict[str, Any], key: str, where: str, expand: Expand) -> str | None:
    """A non-empty string value with ``${VAR}`` expanded, or None when the key is absent."""
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise OAuthConfigError(f"{where}.{key}", "must be a non-empty string")
    return expand(value, f"{where}.{key}")


def _check_grant(settings: OAuthSettings, where: str) -> None:
    """Combinations that cannot work are refused here, not at the first sign-in."""
    method = settings.token_endpoint_auth_method
    if method == "private_key_jwt" and settings.private_key is None:
        raise OAuthConfigError(f"{where}.privateKey", "private_key_jwt needs a privateKey (PEM)")
    if method in {"client_secret_basic", "client_secret_post"} and settings.client_secret is None:
        raise OAuthConfigError(f"{where}.clientSecret", f"{method} needs a clientSecret")
    if settings.client_secret is not None and settings.client_id is None:
        raise OAuthConfigError(f"{where}.clientId", "a clientSecret belongs to a clientId; name it")
    if settings.grant == "client_credentials":
        if settings.client_id is None:
            raise OAuthConfigError(f"{where}.clientId", "the client_credentials grant needs a clientId")
        if settings.client_secret is None and settings.private_key is None:
            raise OAuthConfigError(
                f"{where}.clientSecret", "the client_credentials grant needs a clientSecret or a privateKey"
            )
    if settings.grant == "jwt_bearer":
        for key, value in (
            ("clientId", settings.client_id),
            ("clientSecret", settings.client_secret),
            ("issuer", settings.issuer),
            ("idp", settings.idp),
        ):
            if value is None:
                raise OAuthConfigError(
                    f"{where}.{key}", "is required for the jwt_bearer grant (cross-app access)"
                )
    elif settings.idp is not None:
        raise OAuthConfigError(f"{where}.idp", "an identity provider is only used with grant jwt_bearer")
