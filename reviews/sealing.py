"""Answers sealed for the one call that waits for them.

A server's question travels through the database (any replica may answer it), and so does its
answer. What a person types into a field that could hold a secret (a PIN, a code, a password,
asked only where the policy says ``secret_forms = "ask"``) must not lie there in clear, not
even for the moment before the waiting call takes it. So the waiting call makes a key pair of
its own when it asks (X25519, never stored), the question's row carries the public half, and
whoever answers seals those values to it (``seal``); only the waiting call, holding the private
half in memory, opens them (``AnswerKey.open``). Once the call has them, or once that process
is gone, nothing in the database can open them again.

The scheme is an ECIES: an ephemeral X25519 key agreement, HKDF-SHA256 with both public keys as
its info, and AES-256-GCM; from ``cryptography`` (already what Gatehouse encrypts sign-in
tokens with).
"""

from __future__ import annotations

import base64
import json
import os
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from mcp_host.reported import InvalidValueError

_RAW = serialization.Encoding.Raw
_PUBLIC = serialization.PublicFormat.Raw
_INFO = b"gatehouse question answer v1"


class SealError(InvalidValueError, ValueError):
    """A sealed answer that cannot be opened (another key, or altered)."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text.encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        raise SealError("the sealed answer is not base64") from None


def _key(shared: bytes, sender: bytes, receiver: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO + sender + receiver).derive(
        shared
    )


def seal(public_key: str, values: dict[str, Any]) -> str:
    """``values`` sealed to the holder of ``public_key`` (from ``AnswerKey.public``)."""
    receiver = _unb64(public_key)
    if len(receiver) != 32:
        raise SealError("the question's answer key is not an X25519 public key")
    ephemeral = X25519PrivateKey.generate()
    sender = ephemeral.public_key().public_bytes(_RAW, _PUBLIC)
    shared = ephemeral.exchange(X25519PublicKey.from_public_bytes(receiver))
    nonce = os.urandom(12)
    sealed = AESGCM(_key(shared, sender, receiver)).encrypt(nonce, json.dumps(values).encode(), None)
    return _b64(sender + nonce + sealed)


class AnswerKey:
    """The waiting call's key pair: the public half goes in the question's row, the private
    half stays in this object (in memory only)."""

    def __init__(self) -> None:
        self._private = X25519PrivateKey.generate()
        self.public = _b64(self._private.public_key().public_bytes(_RAW, _PUBLIC))

    def open(self, sealed: str) -> dict[str, Any]:
        data = _unb64(sealed)
        if len(data) < 32 + 12 + 16:
            raise SealError("the sealed answer is too short")
        sender, nonce, body = data[:32], data[32:44], data[44:]
        shared = self._private.exchange(X25519PublicKey.from_public_bytes(sender))
        try:
            plain = AESGCM(_key(shared, sender, _unb64(self.public))).decrypt(nonce, body, None)
        except InvalidTag:
            raise SealError("the sealed answer was not sealed to this call, or was altered") from None
        values = json.loads(plain)
        if not isinstance(values, dict):
            raise SealError("the sealed answer is not a set of field values")
        return values
