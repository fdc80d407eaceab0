"""A signed grant: why one exact tool call may run, signed by Gatehouse with Ed25519.

On the wire (a request's ``_meta`` under ``io.gatehouse/approval``)::

    {"grant": {"why": {"kind": "review", "review_id": "...", "approved_by": "alice"},
               "server": "email", "tool": "send_email",
               "arguments_sha256": "<canonical.arguments_digest of the arguments>",
               "policy_version": 3, "issued_at": 1767225600, "expires_at": 1767225720,
               "nonce": "<random, single use>"},
     "key_id": "<16 hex digits: which of Gatehouse's keys signed it>",
     "signature": "<base64url Ed25519 signature>"}

``why`` is one of: a review (``review_id``, ``approved_by``), a remembered grant
(``grant_id``) or a policy rule (``rule``). The signature covers the canonical JSON of
``grant`` after a fixed context line, so a signature made for anything else never passes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import secrets
from dataclasses import dataclass
from typing import Any, Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from gatehouse_verify.canonical import arguments_digest, canonical_json

WhyKind = Literal["review", "grant", "policy"]
# Each kind's own field(s), all strings: what a server may log about why a call ran.
WHY_FIELDS: dict[str, tuple[str, ...]] = {
    "review": ("review_id", "approved_by"),
    "grant": ("grant_id",),
    "policy": ("rule",),
}
GRANT_FIELDS = (
    "why",
    "server",
    "tool",
    "arguments_sha256",
    "policy_version",
    "issued_at",
    "expires_at",
    "nonce",
)
_CONTEXT = b"io.gatehouse/approval grant v1\n"
_KEY_PREFIX = "ed25519:"
_KEY_ID_HEX_DIGITS = 16
_NONCE_BYTES = 16


class GrantError(ValueError):
    """Why a grant cannot be accepted, in words a server can return to its caller."""


@dataclass(frozen=True)
class Why:
    """Why a call may run: a review and who approved it, a remembered grant, or a policy rule."""

    kind: WhyKind
    fields: dict[str, str]

    @classmethod
    def review(cls, review_id: str, approved_by: str) -> Why:
        return cls("review", {"review_id": review_id, "approved_by": approved_by})

    @classmethod
    def remembered(cls, grant_id: str) -> Why:
        return cls("grant", {"grant_id": grant_id})

    @classmethod
    def policy(cls, rule: str) -> Why:
        return cls("policy", {"rule": rule})

    def data(self) -> dict[str, str]:
        return {"kind": self.kind, **self.fields}


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def public_key_text(key: Ed25519PublicKey) -> str:
    """A public key as servers are configured with it: ``ed25519:`` and its 32 bytes, base64url."""
    return _KEY_PREFIX + _b64(key.public_bytes(Encoding.Raw, PublicFormat.Raw))


def parse_public_key(text: str) -> Ed25519PublicKey:
    """A public key from its text form (public_key_text).

    Raises:
        GrantError: not an ``ed25519:`` key of 32 bytes.
    """
    text = text.strip()
    if not text.startswith(_KEY_PREFIX):
        raise GrantError(f"not a Gatehouse public key (it must start with {_KEY_PREFIX!r})")
    try:
        raw = _unb64(text[len(_KEY_PREFIX) :])
        return Ed25519PublicKey.from_public_bytes(raw)
    except (ValueError, binascii.Error):
        raise GrantError("not a Gatehouse public key (32 bytes, base64url, after 'ed25519:')") from None


def key_id(key: Ed25519PublicKey) -> str:
    """Which key signed a grant: 64 bits of the SHA-256 of its public bytes, as hex."""
    raw = key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:_KEY_ID_HEX_DIGITS]


def sign_grant(
    private_key: Ed25519PrivateKey,
    *,
    why: Why,
    server: str,
    tool: str,
    arguments: dict[str, Any],
    policy_version: int | None,
    issued_at: int,
    lifetime_seconds: int,
) -> dict[str, Any]:
    """The ``_meta`` value that lets ``tool`` on ``server`` run once with exactly ``arguments``."""
    grant = {
        "why": why.data(),
        "server": server,
        "tool": tool,
        "arguments_sha256": arguments_digest(arguments),
        "policy_version": policy_version,
        "issued_at": issued_at,
        "expires_at": issued_at + lifetime_seconds,
        "nonce": _b64(secrets.token_bytes(_NONCE_BYTES)),
    }
    signature = private_key.sign(_CONTEXT + canonical_json(grant).encode("utf-8"))
    return {"grant": grant, "key_id": key_id(private_key.public_key()), "signature": _b64(signature)}


def signed_fields(value: Any) -> tuple[dict[str, Any], str, bytes]:
    """The grant, the key id and the signature of a ``_meta`` value, their shapes checked.

    Raises:
        GrantError: something is missing or of the wrong type.
    """
    if not isinstance(value, dict):
        raise GrantError("the approval is not an object")
    grant, kid, signature = value.get("grant"), value.get("key_id"), value.get("signature")
    if not isinstance(grant, dict) or not isinstance(kid, str) or not isinstance(signature, str):
        raise GrantError("the approval lacks its grant, key_id or signature")
    missing = [name for name in GRANT_FIELDS if name not in grant]
    if missing:
        raise GrantError(f"the grant lacks {', '.join(missing)}")
    try:
        raw_signature = _unb64(signature)
    except (ValueError, binascii.Error):
        raise GrantError("the signature is not base64url") from None
    return grant, kid, raw_signature


def signature_holds(key: Ed25519PublicKey, grant: dict[str, Any], signature: bytes) -> bool:
    """Whether ``signature`` is this key's over exactly this grant."""
    try:
        key.verify(signature, _CONTEXT + canonical_json(grant).encode("utf-8"))
    except InvalidSignature:
        return False
    return True


def why_of(grant: dict[str, Any]) -> Why:
    """The grant's reason, its shape checked (a signed grant is Gatehouse's, but a server
    should not trust a shape it logs).

    Raises:
        GrantError: an unknown kind or a missing field.
    """
    why = grant.get("why")
    kind = why.get("kind") if isinstance(why, dict) else None
    if not isinstance(why, dict) or kind not in WHY_FIELDS:
        raise GrantError("the grant does not say why the call may run")
    fields = {name: why.get(name) for name in WHY_FIELDS[kind]}
    if not all(isinstance(value, str) and value for value in fields.values()):
        raise GrantError(f"the grant's reason ({kind}) lacks {', '.join(WHY_FIELDS[kind])}")
    return Why(kind, {name: str(value) for name, value in fields.items()})
