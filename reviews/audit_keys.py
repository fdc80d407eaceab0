"""The audit key: what makes the audit chain and its anchors unforgeable without it.

With GATEHOUSE_AUDIT_KEY set, each audit event's hash is an HMAC-SHA256 under a key derived
from it (reviews/audit.py keyed_event_hash), so someone who can write the database but has not
the key cannot rewrite a row and recompute the hashes after it: `audit verify` with the key
finds every rewritten row. Each row names the key it was chained with by a key id (a digest of
the key, never the key), so the key can be rotated: the new one in GATEHOUSE_AUDIT_KEY, the
ones before it in GATEHOUSE_AUDIT_OLD_KEYS (comma-separated), which only verify rows and
anchors made with them. Nothing here is written anywhere; the key never reaches the database
(the keyed hashes are computed in this process, also on PostgreSQL).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field

from mcp_host.reported import UsageError

AUDIT_KEY_ENV = "GATEHOUSE_AUDIT_KEY"
AUDIT_OLD_KEYS_ENV = "GATEHOUSE_AUDIT_OLD_KEYS"
MIN_KEY_CHARACTERS = 16
# Each use of the key gets its own key derived for that purpose alone, so a value made with
# one (a row's hash) can never pass for another (an anchor's signature, a key id).
_CHAIN_PURPOSE = b"gatehouse audit chain v1"
_KEY_ID_PURPOSE = b"gatehouse audit key id v1"
# 64 bits of a digest of the key: tells the keys apart, and says nothing about them.
_KEY_ID_HEX_DIGITS = 16


class AuditKeyError(UsageError):
    """GATEHOUSE_AUDIT_KEY or GATEHOUSE_AUDIT_OLD_KEYS holds something that cannot be a key."""


@dataclass(frozen=True)
class ChainKey:
    """One audit key as the chain uses it: its id (stored with each row it chains) and the
    HMAC key derived from it."""

    key_id: str
    secret: bytes = field(repr=False)
    # The key as set, which anchors are signed with (reviews/audit_anchor.py).
    anchor_key: bytes = field(repr=False)

    def digest(self, material: bytes) -> str:
        return hmac.new(self.secret, material, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class AuditKeys:
    """The key new rows are chained with, and the rotated ones that still verify old rows."""

    current: ChainKey
    old: tuple[ChainKey, ...] = ()

    def find(self, key_id: str) -> ChainKey | None:
        return next((k for k in (self.current, *self.old) if hmac.compare_digest(k.key_id, key_id)), None)

    @property
    def anchor_keys(self) -> tuple[bytes, ...]:
        """Every key an anchor may have been signed with: the current one first."""
        return tuple(k.anchor_key for k in (self.current, *self.old))


def chain_key(value: str, variable: str) -> ChainKey:
    """The chain key for one key as set in ``variable``; a key too short is refused."""
    if len(value) < MIN_KEY_CHARACTERS:
        raise AuditKeyError(
            f"{variable}: a key is too short ({len(value)} characters): use at least"
            f" {MIN_KEY_CHARACTERS} (for example the output of `openssl rand -hex 32`)"
        )
    # surrogateescape: a key set from a non-UTF-8 locale is used as the bytes it was.
    raw = value.encode("utf-8", "surrogateescape")
    key_id = hmac.new(raw, _KEY_ID_PURPOSE, hashlib.sha256).hexdigest()[:_KEY_ID_HEX_DIGITS]
    return ChainKey(
        key_id=key_id, secret=hmac.new(raw, _CHAIN_PURPOSE, hashlib.sha256).digest(), anchor_key=raw
    )


def parse_audit_keys(current: str | None, old: str | None) -> AuditKeys | None:
    """The keys from the two variables' values; None when no key is set (the chain is then
    unkeyed, and `audit verify` says what that cannot show).

    Raises:
        AuditKeyError: a key is too short, or old keys are set without a current one.
    """
    olds = [part.strip() for part in (old or "").split(",") if part.strip()]
    # The current key is used exactly as set (not stripped), as anchors always signed with it.
    if current is None or not current.strip():
        if olds:
            raise AuditKeyError(
                f"{AUDIT_OLD_KEYS_ENV} is set but {AUDIT_KEY_ENV} is not: old keys only verify what"
                f" they chained; set {AUDIT_KEY_ENV} to the key new events are chained with"
            )
        return None
    return AuditKeys(
        current=chain_key(current, AUDIT_KEY_ENV),
        old=tuple(chain_key(value, AUDIT_OLD_KEYS_ENV) for value in olds),
    )


def audit_keys_from(environ: Mapping[str, str]) -> AuditKeys | None:
    return parse_audit_keys(environ.get(AUDIT_KEY_ENV), environ.get(AUDIT_OLD_KEYS_ENV))
