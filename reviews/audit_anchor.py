"""Anchors: the audit chain's last row, signed with a key that is not in the database.

The hash chain shows edits, insertions and deletions inside the log, but someone who can write
the database can also cut its newest rows (or all of them) and move the head record back: what
is left is a whole chain. An anchor is kept outside the database (a file, a ticket, another
system): "row 41 had hash ab12... at 10:00", with an HMAC over those three under
GATEHOUSE_AUDIT_KEY. Verifying against it needs the log to still hold row 41 with exactly that
hash, so the chain up to it is the one that was anchored. The key makes anchors unforgeable by
someone who has the database but not the key; it proves nothing against someone who has both.
After the key is rotated, anchors signed with a key now in GATEHOUSE_AUDIT_OLD_KEYS still verify.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mcp_host.bounded_json import BoundedJsonError, loads_bounded
from mcp_host.reported import ReportedError
from reviews.audit import ChainCheck
from reviews.audit_keys import AUDIT_KEY_ENV, AUDIT_OLD_KEYS_ENV, MIN_KEY_CHARACTERS, AuditKeys

# Bound to its purpose, so an HMAC made with the same key for anything else is never an anchor.
_PURPOSE = b"gatehouse audit anchor v1\n"
_HEX_64 = re.compile(r"^[0-9a-f]{64}$")
_FIELDS = ("seq", "hash", "at", "hmac")


class AnchorError(ReportedError):
    """An anchor that cannot be made or checked: no key, a wrong signature, an unreadable
    anchor or anchors file. One line naming what and where."""


@dataclass(frozen=True)
class Anchor:
    seq: int
    hash: str
    at: str
    hmac: str

    def line(self) -> str:
        return json.dumps(asdict(self), separators=(", ", ": "))


def require_keys(keys: AuditKeys | None) -> AuditKeys:
    """The audit keys, which making or checking an anchor needs."""
    if keys is None:
        raise AnchorError(
            f"{AUDIT_KEY_ENV} is not set: set it to a secret of at least {MIN_KEY_CHARACTERS} characters"
            " kept outside the database (for example the output of `openssl rand -hex 32`)"
        )
    return keys


def _signature(seq: int, digest: str, at: str, key: bytes) -> str:
    material = _PURPOSE + json.dumps([seq, digest, at], separators=(",", ":")).encode("utf-8")
    return hmac.new(key, material, hashlib.sha256).hexdigest()


def make_anchor(chain: ChainCheck, *, at: str, key: bytes) -> Anchor:
    """The chain's last row, signed. The caller refuses a chain that failed verification."""
    return Anchor(
        seq=chain.last_seq,
        hash=chain.last_hash,
        at=at,
        hmac=_signature(chain.last_seq, chain.last_hash, at, key),
    )


def parse_anchor(text: str, where: str, keys: Sequence[bytes]) -> Anchor:
    """One anchor from its JSON text, its signature checked against ``keys`` (the current audit
    key, then those it replaced)."""
    try:
        data: Any = loads_bounded(text, max_depth=1)
    except BoundedJsonError as exc:
        raise AnchorError(f"{where}: {exc}") from exc
    if not isinstance(data, dict) or sorted(data) != sorted(_FIELDS):
        raise AnchorError(f"{where}: an anchor is a JSON object with exactly {', '.join(_FIELDS)}")
    seq, digest, at, signature = (data[name] for name in _FIELDS)
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        raise AnchorError(f"{where}: seq must be a row number (0 or more)")
    if not all(isinstance(v, str) for v in (digest, at, signature)):
        raise AnchorError(f"{where}: hash, at and hmac must be strings")
    if not _HEX_64.match(digest) or not _HEX_64.match(signature):
        raise AnchorError(f"{where}: hash and hmac must be 64 lowercase hex digits")
    if not any(hmac.compare_digest(signature, _signature(seq, digest, at, key)) for key in keys):
        raise AnchorError(
            f"{where}: the signature does not match {AUDIT_KEY_ENV} or any of {AUDIT_OLD_KEYS_ENV}"
            " (the anchor was edited, or signed with another key)"
        )
    return Anchor(seq=seq, hash=digest, at=at, hmac=signature)


def read_anchors(source: str, keys: Sequence[bytes]) -> list[Anchor]:
    """The anchors ``source`` names: one anchor's JSON text, or a file of them (JSON lines)."""
    if source.lstrip().startswith("{"):
        return [parse_anchor(source, "--anchor", keys)]
    path = Path(source)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise AnchorError(f"{path}: cannot read the anchors file: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise AnchorError(f"{path}: not valid UTF-8 (byte {exc.start})") from exc
    anchors = [
        parse_anchor(line, f"{path}:{number}", keys)
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip()
    ]
    if not anchors:
        raise AnchorError(f"{path}: holds no anchors")
    return anchors


def append_anchor(path: Path, anchor: Anchor) -> None:
    """One more line in the anchors file, on disk before the command says it is done."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as out:
            out.write(anchor.line() + "\n")
            out.flush()
            os.fsync(out.fileno())
    except OSError as exc:
        raise AnchorError(f"--append {path}: cannot write the anchor: {exc.strerror or exc}") from exc


def anchor_problems(chain: ChainCheck, anchors: Sequence[Anchor]) -> list[str]:
    """What each anchor finds missing or different in the log, naming the row."""
    problems: list[str] = []
    for anchor in anchors:
        if anchor.seq == 0:
            continue  # an anchor of the empty log holds nothing
        stored = chain.hashes.get(anchor.seq)
        held = f"the anchor signed at {anchor.at} holds the log up to row {anchor.seq}"
        if stored is None and chain.last_seq == 0:
            problems.append(f"the log is empty (wiped), but {held}")
        elif stored is None and chain.last_seq < anchor.seq:
            cut = f"{chain.last_seq + 1}..{anchor.seq}"
            problems.append(
                f"the log ends at row {chain.last_seq}, but {held}: rows {cut} were cut"
                " (truncated below the anchor)"
            )
        elif stored is None:
            problems.append(f"row {anchor.seq} is missing, and {held}")
        elif stored != anchor.hash:
            problems.append(
                f"row {anchor.seq} does not match the anchor signed at {anchor.at}"
                f" (the log was rewritten up to row {anchor.seq})"
            )
    return problems
