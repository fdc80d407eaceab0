"""Gatehouse's public keys, as a verifying server is configured with them: never a secret.

Two ways, by environment variable (``keys_from_environment``):

- ``GATEHOUSE_APPROVAL_KEYS``: the keys themselves, separated by commas or spaces, as
  ``gatehouse servers key`` prints them (``ed25519:...``).
- ``GATEHOUSE_APPROVAL_KEYS_FILE``: a file holding one key a line (``#`` starts a comment).
  It is read again when it changes, so a rotation reaches a running server: Gatehouse writes
  this file for the bundled servers (gatehouse/approval_keys.py).

During a rotation both the new key and the one before it are listed; a key removed from the
list (retired) no longer verifies anything.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from gatehouse_verify.grant import GrantError, key_id, parse_public_key

KEYS_ENV = "GATEHOUSE_APPROVAL_KEYS"
KEYS_FILE_ENV = "GATEHOUSE_APPROVAL_KEYS_FILE"
_SEPARATORS = re.compile(r"[\s,]+")


class PublicKeys(Protocol):
    """Where a verifier finds the key a grant names."""

    def find(self, kid: str) -> Ed25519PublicKey | None: ...

    def key_ids(self) -> list[str]: ...


def parse_keys(text: str, source: str) -> dict[str, Ed25519PublicKey]:
    """The keys in ``text`` (comma, space or line separated; ``#`` comments) by key id.

    Raises:
        GrantError: a key that cannot be read, named with ``source``.
    """
    keys: dict[str, Ed25519PublicKey] = {}
    for line in text.splitlines():
        for word in _SEPARATORS.split(line.split("#", 1)[0]):
            if not word:
                continue
            try:
                key = parse_public_key(word)
            except GrantError as exc:
                raise GrantError(f"{source}: {exc}") from None
            keys[key_id(key)] = key
    return keys


@dataclass(frozen=True)
class StaticKeys:
    """Keys given once (``GATEHOUSE_APPROVAL_KEYS``, or a test's)."""

    keys: dict[str, Ed25519PublicKey]

    def find(self, kid: str) -> Ed25519PublicKey | None:
        return self.keys.get(kid)

    def key_ids(self) -> list[str]:
        return list(self.keys)


@dataclass
class KeysFile:
    """Keys from a file, read again whenever its modification time or size changes (one
    ``stat`` a call). A file that is missing or unreadable holds no keys: every side-effecting
    call is refused until it is back, never let through."""

    path: Path
    _seen: tuple[int, int] | None = field(default=None, init=False)
    _keys: dict[str, Ed25519PublicKey] = field(default_factory=dict, init=False)

    def _current(self) -> dict[str, Ed25519PublicKey]:
        try:
            stat = self.path.stat()
        except OSError:
            self._seen, self._keys = None, {}
            return self._keys
        seen = (stat.st_mtime_ns, stat.st_size)
        if seen != self._seen:
            try:
                self._keys = parse_keys(self.path.read_text(encoding="utf-8"), str(self.path))
            except (OSError, UnicodeDecodeError, GrantError):
                self._keys = {}
            self._seen = seen
        return self._keys

    def find(self, kid: str) -> Ed25519PublicKey | None:
        return self._current().get(kid)

    def key_ids(self) -> list[str]:
        return list(self._current())


def keys_from_environment(environ: Mapping[str, str] | None = None) -> PublicKeys | None:
    """The keys the environment configures, or None when it configures none.

    Raises:
        GrantError: ``GATEHOUSE_APPROVAL_KEYS`` holds something that is not a key.
    """
    env = os.environ if environ is None else environ
    inline = (env.get(KEYS_ENV) or "").strip()
    if inline:
        return StaticKeys(parse_keys(inline, KEYS_ENV))
    path = (env.get(KEYS_FILE_ENV) or "").strip()
    if path:
        return KeysFile(Path(path))
    return None
