"""Anchors: every audit chain's last row, signed with a key that is not in the database.

The hash chains show edits, insertions and deletions inside the log, but someone who can write
the database can also cut a chain's newest rows (or all of them) and move its head record back,
or delete the newest chain whole: what is left is whole chains. An anchor is kept outside the
database (a file, a ticket, another system): "chain 1 ended at row 41 with hash ab12..., chain 2
at row 40 with cd34..., at 10:00", with an HMAC over all of it under GATEHOUSE_AUDIT_KEY.
Verifying against it needs the log to still hold each of those rows with exactly that hash, at
that place in its chain, so every chain up to it is the one that was anchored. The key makes
anchors unforgeable by someone who has the database but not the key; it proves nothing against
someone who has both. After the key is rotated, anchors signed with a key now in
GATEHOUSE_AUDIT_OLD_KEYS still verify; anchors made while the log was one chain (a row and its
hash) still verify too, as chain 1's row.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_host.bounded_json import BoundedJsonError, loads_bounded
from mcp_host.reported import StorageError
from reviews.audit_keys import AUDIT_KEY_ENV, AUDIT_OLD_KEYS_ENV, MIN_KEY_CHARACTERS, AuditKeys
from reviews.audit_walk import ChainCheck, ChainEnd

# Bound to its purpose, so an HMAC made with the same key for anything else is never an anchor.
_PURPOSE = b"gatehouse audit anchor v2\n"
# Anchors made while the log was one chain: its last row (seq and hash).
_ONE_CHAIN_PURPOSE = b"gatehouse audit anchor v1\n"
_HEX_64 = re.compile(r"^[0-9a-f]{64}$")
_FIELDS = ("chains", "at", "hmac")
_ONE_CHAIN_FIELDS = ("seq", "hash", "at", "hmac")


class AnchorError(StorageError):
    """An anchor that cannot be made or checked: no key, a wrong signature, an unreadable
    anchor or anchors file. One line naming what and where."""


@dataclass(frozen=True)
class Anchor:
    """Each chain's last row when it was signed. ``one_chain``: an anchor made while the log
    was one chain, which signed its last row alone (chain 1's, since)."""

    ends: tuple[ChainEnd, ...]
    at: str
    hmac: str
    one_chain: bool = False

    def line(self) -> str:
        if self.one_chain:
            seq, digest = (self.ends[0].seq, self.ends[0].hash) if self.ends else (0, "")
            fields: dict[str, Any] = {"seq": seq, "hash": digest, "at": self.at, "hmac": self.hmac}
        else:
            fields = {"chains": _chains_field(self.ends), "at": self.at, "hmac": self.hmac}
        return json.dumps(fields, separators=(", ", ": "))


def _chains_field(ends: Sequence[ChainEnd]) -> list[list[int | str]]:
    return [[end.chain, end.link, end.seq, end.hash] for end in ends]


def require_keys(keys: AuditKeys | None) -> AuditKeys:
    """The audit keys, which making or checking an anchor needs."""
    if keys is None:
        raise AnchorError(
            f"{AUDIT_KEY_ENV} is not set: set it to a secret of at least {MIN_KEY_CHARACTERS} characters"
            " kept outside the database (for example the output of `openssl rand -hex 32`)"
        )
    return keys


def _signature(ends: Sequence[ChainEnd], at: str, key: bytes) -> str:
    material = _PURPOSE + json.dumps([_chains_field(ends), at], separators=(",", ":")).encode("utf-8")
    return hmac.new(key, material, hashlib.sha256).hexdigest()


def _one_chain_signature(seq: int, digest: str, at: str, key: bytes) -> str:
    material = _ONE_CHAIN_PURPOSE + json.dumps([seq, digest, at], separators=(",", ":")).encode("utf-8")
    return hmac.new(key, material, hashlib.sha256).hexdigest()


def make_anchor(chain: ChainCheck, *, at: str, key: bytes) -> Anchor:
    """Every chain's last row, signed. The caller refuses a log that failed verification."""
    ends = tuple(chain.ends[number] for number in sorted(chain.ends))
    return Anchor(ends=ends, at=at, hmac=_signature(ends, at, key))


def parse_anchor(text: str, where: str, keys: Sequence[bytes]) -> Anchor:
    """One anchor from its JSON text, its signature checked against ``keys`` (the current audit
    key, then those it replaced)."""
    try:
        data: Any = loads_bounded(text, max_depth=3)
    except BoundedJsonError as exc:
        raise AnchorError(f"{where}: {exc}") from exc
    if isinstance(data, dict) and sorted(data) == sorted(_ONE_CHAIN_FIELDS):
        return _parse_one_chain(data, where, keys)
    if not isinstance(data, dict) or sorted(data) != sorted(_FIELDS):
        raise AnchorError(f"{where}: an anchor is a JSON object with exactly {', '.join(_FIELDS)}")
    chains, at, signature = (data[name] for name in _FIELDS)
    if not isinstance(at, str) or not isinstance(signature, str) or not _HEX_64.match(signature):
        raise AnchorError(f"{where}: at must be a string and hmac 64 lowercase hex digits")
    ends = _parse_ends(chains, where)
    if not any(hmac.compare_digest(signature, _signature(ends, at, key)) for key in keys):
        raise _not_signed(where)
    return Anchor(ends=ends, at=at, hmac=signature)


def _number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _parse_ends(chains: Any, where: str) -> tuple[ChainEnd, ...]:
    shape = f"{where}: chains must be a list of [chain, link, row, hash], numbers from 1 and 64 lowercase hex digits"
    if not isinstance(chains, list):
        raise AnchorError(shape)
    ends: list[ChainEnd] = []
    for item in chains:
        if not isinstance(item, list) or len(item) != 4:
            raise AnchorError(shape)
        number, link, seq, digest = item
        if not (_number(number) and _number(link) and _number(seq)) or not isinstance(digest, str):
            raise AnchorError(shape)
        if not _HEX_64.match(digest):
            raise AnchorError(shape)
        ends.append(ChainEnd(number, link, seq, digest))
    if len({end.chain for end in ends}) != len(ends):
        raise AnchorError(f"{where}: chains names a chain twice")
    return tuple(ends)


def _parse_one_chain(data: dict[str, Any], where: str, keys: Sequence[bytes]) -> Anchor:
    seq, digest, at, signature = (data[name] for name in _ONE_CHAIN_FIELDS)
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        raise AnchorError(f"{where}: seq must be a row number (0 or more)")
    if not all(isinstance(v, str) for v in (digest, at, signature)):
        raise AnchorError(f"{where}: hash, at and hmac must be strings")
    if not _HEX_64.match(digest) or not _HEX_64.match(signature):
        raise AnchorError(f"{where}: hash and hmac must be 64 lowercase hex digits")
    if not any(hmac.compare_digest(signature, _one_chain_signature(seq, digest, at, key)) for key in keys):
        raise _not_signed(where)
    # The one chain's rows are chain 1's first rows, each at the link equal to its seq.
    ends = (ChainEnd(1, seq, seq, digest),) if seq > 0 else ()
    return Anchor(ends=ends, at=at, hmac=signature, one_chain=True)


def _not_signed(where: str) -> AnchorError:
    return AnchorError(
        f"{where}: the signature does not match {AUDIT_KEY_ENV} or any of {AUDIT_OLD_KEYS_ENV}"
        " (the anchor was edited, or signed with another key)"
    )


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
    """What each anchor finds missing or different in the log, naming the chain and the row."""
    problems: list[str] = []
    for anchor in anchors:
        for end in anchor.ends:
            problem = _end_problem(chain, end, anchor.at)
            if problem:
                problems.append(problem)
    return problems


def _end_problem(chain: ChainCheck, end: ChainEnd, at: str) -> str | None:
    held = f"the anchor signed at {at} holds chain {end.chain} up to row {end.seq}"
    now = chain.ends.get(end.chain)
    stored = chain.links.get((end.chain, end.link))
    if not chain.ends:
        return f"the log is empty (wiped), but {held}"
    if now is None:
        return f"chain {end.chain} is gone (every row of it deleted), but {held}"
    if now.link < end.link:
        cut = end.link - now.link
        return (
            f"chain {end.chain} ends at row {now.seq}, but {held}: its last"
            f" {'row was' if cut == 1 else f'{cut} rows were'} cut (truncated below the anchor)"
        )
    if stored is None:
        return f"row {end.seq} (chain {end.chain}, link {end.link}) is missing, and {held}"
    if stored[1] != end.hash:
        return (
            f"row {stored[0]} does not match the anchor signed at {at}, which holds row {end.seq} at"
            f" its place (chain {end.chain}, link {end.link}): the chain was rewritten up to there"
        )
    return None
