"""The signing keys of the authorization server `gatehouse serve` accepts access tokens from: its
metadata (RFC 8414, or OpenID Connect discovery, at the addresses the MCP SDK's client tries)
names its ``jwks_uri``, whose JSON Web Key Set holds the public keys tokens are checked with.

Fetched when first needed, not at start: an identity provider that is down for a moment then
costs only its own tokens, never Gatehouse's. A token naming a key not in the set fetches it
again (the provider rotated its keys), at most every REFETCH_SECONDS, so tokens with made-up key
ids cannot make Gatehouse hammer the provider; the set is also fetched again once it is
MAX_AGE_SECONDS old, so a key the provider withdrew stops working here within that time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import anyio
import httpx
from jwt import PyJWK
from jwt.exceptions import PyJWKError
from mcp.client.auth.utils import build_oauth_authorization_server_metadata_discovery_urls, issuers_match

from mcp_host.oauth_config import is_loopback
from mcp_host.reported import UnavailableError

log = logging.getLogger(__name__)

REFETCH_SECONDS = 30.0
MAX_AGE_SECONDS = 3600.0
TIMEOUT_SECONDS = 10.0


class IssuerUnavailableError(UnavailableError):
    """The issuer's metadata or key set could not be fetched or used: its tokens are refused
    until it can be (the message says why; logged, never raised out of this module)."""


class IssuerKeys:
    """The public keys of ``issuer``, fetched when needed and kept."""

    def __init__(self, issuer: str, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._issuer = issuer
        self._clock = clock
        self._lock = anyio.Lock()
        # The issuer identifier as its metadata spells it (tokens' ``iss`` must be exactly that).
        self._named: str | None = None
        self._jwks_uri: str | None = None
        # Each key with the algorithm its entry names, if it names one.
        self._keys: list[tuple[PyJWK, str | None]] = []
        self._fetched_at: float | None = None
        self._next_try = float("-inf")

    @property
    def named_issuer(self) -> str:
        """The issuer as its metadata names it once fetched; until then as configured."""
        return self._named or self._issuer

    async def key(self, kid: str | None, alg: str) -> PyJWK | None:
        """The signing key ``kid`` names (the only one, when the token names none and the set
        holds one) for ``alg``; None when there is none, or the issuer cannot be reached."""
        found = self._find(kid, alg)
        if found is not None and not self._stale():
            return found
        async with self._lock:
            found = self._find(kid, alg)  # another request may have fetched it meanwhile
            if (found is None or self._stale()) and self._clock() >= self._next_try:
                try:
                    await self._fetch()
                except IssuerUnavailableError as exc:
                    log.warning("cannot use the authorization server %s: %s", self._issuer, exc)
                # Fetched or failed: tokens naming unknown keys wait for the next try.
                self._next_try = self._clock() + REFETCH_SECONDS
        return self._find(kid, alg)

    def _find(self, kid: str | None, alg: str) -> PyJWK | None:
        candidates = [(key, named) for key, named in self._keys if kid is None or key.key_id == kid]
        if kid is None and len(candidates) != 1:
            return None
        for key, named in candidates:
            # A key that names its algorithm signs with that one only (RFC 7517 §4.4).
            if named is None or named == alg:
                return key
        return None

    def _stale(self) -> bool:
        return self._fetched_at is None or self._clock() - self._fetched_at >= MAX_AGE_SECONDS

    async def _fetch(self) -> None:
        async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS, follow_redirects=False) as http:
            if self._jwks_uri is None:
                self._named, self._jwks_uri = await self._discover(http)
            document = await _get_json(http, self._jwks_uri, "key set")
        self._keys = _signing_keys(document)
        self._fetched_at = self._clock()

    async def _discover(self, http: httpx.AsyncClient) -> tuple[str, str]:
        for url in build_oauth_authorization_server_metadata_discovery_urls(self._issuer, self._issuer):
            try:
                response = await http.get(url, headers={"Accept": "application/json"})
            except httpx.HTTPError as exc:
                raise IssuerUnavailableError(f"its metadata at {url} did not answer: {exc}") from exc
            if 300 <= response.status_code < 500:
                continue  # not served there: the next of the well-known addresses
            metadata = _json_object(response, "metadata")
            named, jwks_uri = metadata.get("issuer"), metadata.get("jwks_uri")
            if not isinstance(named, str) or not issuers_match(named, self._issuer):
                raise IssuerUnavailableError(
                    f"its metadata at {url} names the issuer {named!r}, not {self._issuer}"
                )
            if not isinstance(jwks_uri, str) or not jwks_uri.startswith(("https://", "http://")):
                raise IssuerUnavailableError(
                    f"its metadata at {url} names no jwks_uri, so no token could be checked"
                )
            if not jwks_uri.startswith("https://") and not is_loopback(jwks_uri):
                raise IssuerUnavailableError(
                    f"its jwks_uri {jwks_uri} is plain http on a host that is not this machine"
                )
            return named, jwks_uri
        raise IssuerUnavailableError(
            "no metadata at its well-known addresses (RFC 8414, OpenID Connect discovery)"
        )


async def _get_json(http: httpx.AsyncClient, url: str, what: str) -> Mapping[str, Any]:
    try:
        response = await http.get(url, headers={"Accept": "application/json"})
    except httpx.HTTPError as exc:
        raise IssuerUnavailableError(f"its {what} at {url} did not answer: {exc}") from exc
    return _json_object(response, what)


def _json_object(response: httpx.Response, what: str) -> Mapping[str, Any]:
    if response.status_code != 200:
        raise IssuerUnavailableError(f"its {what} at {response.url} answered HTTP {response.status_code}")
    try:
        document = response.json()
    except ValueError as exc:
        raise IssuerUnavailableError(f"its {what} at {response.url} is not JSON") from exc
    if not isinstance(document, dict):
        raise IssuerUnavailableError(f"its {what} at {response.url} is not a JSON object")
    return document


def _signing_keys(document: Mapping[str, Any]) -> list[tuple[PyJWK, str | None]]:
    """The set's keys that sign (no ``use``, or ``sig``) and that PyJWT can use; others are
    left out (an encryption key, a key type it does not know)."""
    listed = document.get("keys")
    if not isinstance(listed, list):
        raise IssuerUnavailableError("its key set has no keys list")
    keys = []
    for entry in listed:
        if not isinstance(entry, dict) or entry.get("use", "sig") != "sig":
            continue
        try:
            named = entry.get("alg")
            keys.append((PyJWK(entry), named if isinstance(named, str) else None))
        except PyJWKError as exc:
            log.info("left out a key of the authorization server's set (%s): %s", entry.get("kid"), exc)
    return keys
