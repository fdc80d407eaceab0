"""Verifying the audit log: every row's hash recomputed, every chain followed link by link and
held against its head record, and the chains' numbers without gaps.

What each check shows: an edited row no longer matches its hash; a row inserted into a chain or
deleted from it breaks the links (each row names the hash of the one before it, and its link
number); the newest rows of a chain deleted while its head still names them, or a row added
after the head, differ from the head; a whole chain deleted (rows and head) leaves a gap in the
chains' numbers, unless it was the highest. What the database alone cannot show is a chain cut
together with its head, or the highest chain deleted whole: anchors kept outside the database
show those (reviews/audit_anchor.py).
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from reviews.audit_hashes import (
    CHAINED_FORM,
    GENESIS,
    LEGACY_FORM,
    chained_hash,
    event_hash,
    keyed_event_hash,
)
from reviews.audit_keys import AUDIT_KEY_ENV, AUDIT_OLD_KEYS_ENV, AuditKeys


class VerifyReport(BaseModel):
    """``problems``: what was changed (tampering). ``unverified``: rows chained with a key this
    check was not given, so not checked. ``warnings``: what the check cannot detect."""

    ok: bool
    events: int
    problems: list[str]
    unverified: list[str] = []
    warnings: list[str] = []


@dataclass(frozen=True)
class ChainEnd:
    """A chain's last row: what an anchor signs for each chain."""

    chain: int
    link: int
    seq: int
    hash: str


@dataclass(frozen=True)
class ChainCheck:
    """A verification and what anchors are checked against: each chain's last row, and every
    row's seq and stored hash by its chain and link."""

    report: VerifyReport
    ends: dict[int, ChainEnd]
    links: dict[tuple[int, int], tuple[int, str]]


def spans(seqs: Iterable[int]) -> str:
    """Row numbers as runs: "row 4", "rows 4..9", "rows 2..3, row 7"."""
    runs: list[list[int]] = []
    for seq in seqs:
        if runs and seq == runs[-1][1] + 1:
            runs[-1][1] = seq
        else:
            runs.append([seq, seq])
    return ", ".join(f"row {a}" if a == b else f"rows {a}..{b}" for a, b in runs)


def _links(first: int, last: int) -> str:
    return f"link {first}" if first == last else f"links {first}..{last}"


@dataclass
class _Hashes:
    """Every row's hash recomputed, in the log's order (seq), with the bookkeeping of keys:
    which rows are keyed, which are not, which name a key this check was not given. Collected
    by kind, so a rewrite of thousands of rows reads as one line per run of rows."""

    keys: AuditKeys | None
    edited: list[int] = field(default_factory=list)
    # Unkeyed rows after a keyed one (in any chain): a keyed row replaced by one hashed without the key.
    downgraded: list[int] = field(default_factory=list)
    last_keyed: int | None = None
    unkeyed: list[int] = field(default_factory=list)
    keyed: list[int] = field(default_factory=list)
    # Rows chained with a key this check was not given, by key id.
    missing: dict[str, list[int]] = field(default_factory=dict)

    def check(self, row: Mapping[str, Any]) -> None:
        recomputed = self._recompute(row)
        if recomputed is not None and not hmac.compare_digest(recomputed, row["hash"]):
            self.edited.append(row["seq"])

    def _recompute(self, row: Mapping[str, Any]) -> str | None:
        """The row's hash as its content gives it; None: its key was not given."""
        key_id = row["key_id"]
        if key_id is None:
            (self.downgraded if self.last_keyed is not None else self.unkeyed).append(row["seq"])
            key = None
        else:
            self.last_keyed = row["seq"]
            self.keyed.append(row["seq"])
            key = self.keys.find(key_id) if self.keys is not None else None
            if key is None:
                self.missing.setdefault(key_id, []).append(row["seq"])
                return None
        content = (row["at"], row["kind"], row["thread_id"], row["review_id"], row["actor"], row["data"])
        if row["hash_format"] == LEGACY_FORM:
            legacy = (row["prev_hash"], row["seq"], *content)
            return keyed_event_hash(key, *legacy) if key is not None else event_hash(*legacy)
        if row["hash_format"] == CHAINED_FORM and row["chain"] is not None and row["link"] is not None:
            return chained_hash(row["chain"], row["link"], row["seq"], row["prev_hash"], *content, key=key)
        return ""  # no form it could have been hashed in: the form or the place was edited

    def problems(self) -> list[str]:
        found: list[str] = []
        if len(self.edited) == 1:
            found.append(f"row {self.edited[0]} was edited (its content no longer matches its hash)")
        elif self.edited:
            found.append(
                f"{spans(self.edited)} were edited or rehashed (their content no longer matches their hashes)"
            )
        if self.downgraded:
            found.append(
                f"{spans(self.downgraded)}: hashed without a key although rows before them were"
                " chained with one (keyed rows replaced by rows rehashed without the key)"
            )
        return found

    def unverified(self) -> list[str]:
        if self.keys is None:
            return [
                f"{spans(seqs)}: chained with an audit key (key id {key_id}), and {AUDIT_KEY_ENV}"
                f" is not set: set it (and {AUDIT_OLD_KEYS_ENV} to the keys it replaced) to verify them"
                for key_id, seqs in self.missing.items()
            ]
        return [
            f"{spans(seqs)}: chained with an audit key (key id {key_id}) that is neither"
            f" {AUDIT_KEY_ENV} nor in {AUDIT_OLD_KEYS_ENV}: add the key that chained them to"
            f" {AUDIT_OLD_KEYS_ENV} (comma-separated) to verify them, or they were forged"
            for key_id, seqs in self.missing.items()
        ]

    def warnings(self) -> list[str]:
        if self.keys is None:
            return [
                f"{AUDIT_KEY_ENV} is not set, so the chain's hashes use no key: a rewrite by someone"
                " with write access to the database (rows changed and every hash after them"
                " recomputed) cannot be detected by this check. Keep signed anchors outside the"
                " database (`gatehouse audit anchor`, then `audit verify --anchor`), and set"
                f" {AUDIT_KEY_ENV} so that new events are chained with it"
            ]
        if self.unkeyed and not self.keyed:
            return [
                f"no row is chained with {AUDIT_KEY_ENV}: {spans(self.unkeyed)} use no key (written"
                " before the key was set, or rewritten by someone without it, which only an anchor"
                " made since can show)"
            ]
        if self.unkeyed:
            return [
                f"{spans(self.unkeyed)} were chained before {AUDIT_KEY_ENV} was set (no key); the"
                " keyed rows after them hold them, but not a cut back to them: anchor the log"
            ]
        return []


def _follow(chain: int, rows: list[Mapping[str, Any]], problems: list[str]) -> None:
    """One chain's rows in link order: numbered without gaps from 1, each naming the hash of the
    one before it, in the log's order, the one-chain form only where the one chain's rows are."""
    expected, prev, before = 1, GENESIS, None
    chained_seen = False
    for row in rows:
        seq, link = row["seq"], row["link"]
        after = f"row {before}" if before is not None else f"the start of chain {chain}"
        if link > expected:
            problems.append(
                f"chain {chain}: {_links(expected, link - 1)} deleted (between {after} and row {seq})"
            )
        if row["prev_hash"] != prev:
            problems.append(
                f"row {seq} does not follow {after} (inserted, or the row before it changed)"
                if link >= expected
                else f"row {seq} is out of order in chain {chain}"
            )
        elif before is not None and seq < before:
            problems.append(f"row {seq} is out of order in chain {chain} (it comes before row {before})")
        if row["hash_format"] == LEGACY_FORM and (chain != 1 or link != seq or chained_seen):
            problems.append(
                f"row {seq} is in the form of the rows written before the log had chains, but not at"
                " such a row's place (chain 1, link equal to its row number, before any later row)"
            )
        chained_seen = chained_seen or row["hash_format"] != LEGACY_FORM
        expected, prev, before = link + 1, row["hash"], seq


def _against_head(chain: int, rows: list[Mapping[str, Any]], head: Mapping[str, Any] | None) -> list[str]:
    """A chain's last row held against its head record, which appends move with it."""
    if head is None:
        return [f"chain {chain}'s head record is missing (table audit_chains)"] if rows else []
    if not rows:
        if head["link"] > 0:
            return [
                f"chain {chain}: every row was deleted ({_links(1, head['link'])}; its head ends at link {head['link']})"
            ]
        return []
    last = rows[-1]
    if head["link"] > last["link"]:
        cut = _links(last["link"] + 1, head["link"])
        return [
            f"chain {chain}: {cut} {'was' if cut.startswith('link ') else 'were'} deleted after row"
            f" {last['seq']} (its head ends at link {head['link']})"
        ]
    if head["link"] < last["link"]:
        after = next(r for r in rows if r["link"] > head["link"])
        return [
            f"row {after['seq']} was inserted outside the log (chain {chain}'s head ends at link {head['link']})"
        ]
    if head["hash"] != last["hash"]:
        return [f"row {last['seq']} does not match chain {chain}'s head (edited or replaced)"]
    return []


def check_rows(
    rows: list[Mapping[str, Any]], heads: list[Mapping[str, Any]], keys: AuditKeys | None
) -> tuple[list[str], _Hashes, dict[int, ChainEnd], dict[tuple[int, int], tuple[int, str]]]:
    """The problems of the log's ``rows`` (in seq order) and chain ``heads``; the hashes'
    bookkeeping (unverified rows, warnings); each chain's last row; every row by chain and link."""
    hashes = _Hashes(keys)
    problems: list[str] = []
    by_chain: dict[int, list[Mapping[str, Any]]] = {}
    placeless: list[int] = []
    for row in rows:
        hashes.check(row)
        if row["chain"] is None or row["link"] is None:
            placeless.append(row["seq"])
        else:
            by_chain.setdefault(row["chain"], []).append(row)
    if placeless:
        problems.append(f"{spans(placeless)}: in no chain (their chain or link was removed)")
    heads_by_chain = {head["chain"]: head for head in heads}
    ends: dict[int, ChainEnd] = {}
    links: dict[tuple[int, int], tuple[int, str]] = {}
    for chain in sorted(by_chain.keys() | heads_by_chain.keys()):
        chain_rows = sorted(by_chain.get(chain, []), key=lambda r: (r["link"], r["seq"]))
        _follow(chain, chain_rows, problems)
        problems += _against_head(chain, chain_rows, heads_by_chain.get(chain))
        for row in chain_rows:
            links[(chain, row["link"])] = (row["seq"], row["hash"])
        if chain_rows:
            last = chain_rows[-1]
            ends[chain] = ChainEnd(chain, last["link"], last["seq"], last["hash"])
    numbered = by_chain.keys() | heads_by_chain.keys()
    gone = sorted(set(range(1, max(numbered, default=0) + 1)) - numbered)
    if gone:
        named = ", ".join(str(c) for c in gone)
        problems.append(
            f"chain {named}: deleted whole (its rows and its head record), as chains are numbered without gaps"
        )
    return problems + hashes.problems(), hashes, ends, links
