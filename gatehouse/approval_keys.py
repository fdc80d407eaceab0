"""Gatehouse's own signing key for the grants side-effecting calls carry (gatehouse_verify/).

The private key is Gatehouse's alone: it lives in the data folder, in ``keys/approval-signing.json``
(readable by its owner only, written whole or not at all), and is never printed, logged or sent.
Servers are configured with the public keys: ``gatehouse servers key`` prints them, and
``keys/approval-public-keys.txt`` beside it holds them for the bundled servers (their entries in
servers/bundled.mcp.json name it as ``${GATEHOUSE_APPROVAL_KEYS_FILE}``; a server reads it again
when it changes).

Rotation: ``--rotate`` makes a new key, which signs from then on; the one it replaced stays in
the public list, so servers keep accepting it (and grants it signed) until ``--retire`` drops
every replaced key. Each replica has its own data folder and so its own key: a server shared by
replicas is configured with each one's public key (docs/server-verification.md).
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from gatehouse.errors import ConfigurationError
from gatehouse.settings import KEYS_FOLDER, PUBLIC_KEYS_FILE
from gatehouse_verify.grant import key_id, parse_public_key, public_key_text, sign_grant
from mcp_host.approvals import CallApproval

SIGNING_KEY_FILE = "approval-signing.json"
# A grant is made right before its call is sent: two minutes covers a slow server's queue and
# a clock a little apart, and keeps a grant that leaked useless soon after.
GRANT_LIFETIME_SECONDS = 120


def signing_key_path(data_dir: Path) -> Path:
    return data_dir / KEYS_FOLDER / SIGNING_KEY_FILE


def public_keys_path(data_dir: Path) -> Path:
    return data_dir / KEYS_FOLDER / PUBLIC_KEYS_FILE


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class PublishedKey:
    """A public key as ``servers key`` shows it: the text servers are configured with."""

    key_id: str
    public_key: str
    state: str  # "current" (signs) or "previous" (still accepted until retired)
    since: str


@dataclass
class SigningKeys:
    """The current private key and the public keys it replaced, as stored."""

    current: Ed25519PrivateKey
    created_at: str
    previous: list[dict[str, str]] = field(default_factory=list)

    @classmethod
    def new(cls) -> SigningKeys:
        return cls(Ed25519PrivateKey.generate(), _now())

    @classmethod
    def parse(cls, text: str, source: str) -> SigningKeys:
        try:
            data = json.loads(text)
            raw = base64.urlsafe_b64decode(data["current"]["private_key"])
            current = Ed25519PrivateKey.from_private_bytes(raw)
            previous = [dict(item) for item in data.get("previous", [])]
            for item in previous:
                parse_public_key(item["public_key"])
            return cls(current, str(data["current"]["created_at"]), previous)
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigurationError(f"{source}: not a Gatehouse signing key file ({exc})") from None

    def data(self) -> dict[str, Any]:
        raw = self.current.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        return {
            "current": {"private_key": _b64(raw), "created_at": self.created_at},
            "previous": self.previous,
        }

    def published(self) -> list[PublishedKey]:
        public = self.current.public_key()
        shown = [PublishedKey(key_id(public), public_key_text(public), "current", self.created_at)]
        for item in self.previous:
            key = parse_public_key(item["public_key"])
            shown.append(PublishedKey(key_id(key), item["public_key"], "previous", item["replaced_at"]))
        return shown

    def rotated(self) -> SigningKeys:
        replaced = {"public_key": public_key_text(self.current.public_key()), "replaced_at": _now()}
        return SigningKeys(Ed25519PrivateKey.generate(), _now(), [replaced, *self.previous])

    def retired(self) -> SigningKeys:
        return SigningKeys(self.current, self.created_at, [])


def _temporary_beside(path: Path, text: str, mode: int) -> Path:
    """``text`` in a new file of its own beside ``path`` (a unique name: threads and processes
    writing at once never share one), readable as ``mode`` says from the first byte."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.fchmod(descriptor, mode)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    return Path(name)


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole (a temporary file renamed over it), readable by its
    owner only from the first byte."""
    _temporary_beside(path, text, 0o600).replace(path)


def _create_private(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` only if no file is there yet, whole; False when another
    thread, process or replica made it first (its key is the one: a second would sign grants
    no server knows)."""
    temporary = _temporary_beside(path, text, 0o600)
    try:
        os.link(temporary, path)  # atomic, and refuses to replace
    except FileExistsError:
        return False
    finally:
        temporary.unlink()
    return True


def _write_public(path: Path, keys: SigningKeys) -> None:
    lines = ["# Gatehouse's public keys for approvals (gatehouse servers key); the first signs."]
    for key in keys.published():
        when = "since" if key.state == "current" else "replaced"
        lines.append(f"{key.public_key}  # {key.state}, {when} {key.since}")
    _temporary_beside(path, "\n".join(lines) + "\n", 0o644).replace(path)


def _store(data_dir: Path, keys: SigningKeys) -> SigningKeys:
    _write_private(signing_key_path(data_dir), json.dumps(keys.data(), indent=2) + "\n")
    _write_public(public_keys_path(data_dir), keys)
    return keys


def load_signing_keys(data_dir: Path) -> SigningKeys:
    """The data folder's signing keys, made on first use; the public keys file is written again
    when it is missing (a server started next must find it).

    Raises:
        ConfigurationError: the key file is there but is not one.
    """
    path = signing_key_path(data_dir)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        made = SigningKeys.new()
        if _create_private(path, json.dumps(made.data(), indent=2) + "\n"):
            _write_public(public_keys_path(data_dir), made)
            return made
        return load_signing_keys(data_dir)  # made meanwhile by another: that one
    except OSError as exc:
        raise ConfigurationError(f"{path}: cannot read the signing key: {exc}") from None
    keys = SigningKeys.parse(text, str(path))
    if not public_keys_path(data_dir).is_file():
        _write_public(public_keys_path(data_dir), keys)
    return keys


def rotate_signing_key(data_dir: Path) -> SigningKeys:
    """A new key signs from now on; the one it replaces stays accepted until retired."""
    return _store(data_dir, load_signing_keys(data_dir).rotated())


def retire_previous_keys(data_dir: Path) -> SigningKeys:
    """Servers stop accepting every key the current one replaced (bundled ones at once)."""
    return _store(data_dir, load_signing_keys(data_dir).retired())


class ApprovalSigner:
    """mcp_host/approvals.py GrantSigner on the data folder's key, read again when the key file
    changes (a rotation by ``gatehouse servers key --rotate`` reaches a running app)."""

    def __init__(self, data_dir: Path, clock: Any = time.time) -> None:
        self._data_dir = data_dir
        self._clock = clock
        self._keys = load_signing_keys(data_dir)
        self._seen = self._stamp()

    def _stamp(self) -> tuple[int, int] | None:
        try:
            stat = signing_key_path(self._data_dir).stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def _current(self) -> Ed25519PrivateKey:
        stamp = self._stamp()
        if stamp != self._seen:
            self._keys = load_signing_keys(self._data_dir)
            self._seen = self._stamp()
        return self._keys.current

    def grant(
        self, approval: CallApproval, *, server: str, tool: str, arguments: dict[str, Any]
    ) -> dict[str, Any]:
        return sign_grant(
            self._current(),
            why=approval.why,
            server=server,
            tool=tool,
            arguments=arguments,
            policy_version=approval.policy_version,
            issued_at=int(self._clock()),
            lifetime_seconds=GRANT_LIFETIME_SECONDS,
        )
