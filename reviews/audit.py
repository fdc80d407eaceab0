"""The audit log: append-only, hash-chained, in the Gatehouse database.

Each event's hash covers its own content and the previous event's hash, so editing a row
breaks its hash, inserting or deleting one breaks the chain, and deleting the newest rows is
caught by the head record kept beside the table. What the database alone cannot show is a
truncation that rewrites the head too: that takes an anchor kept outside it
(reviews/audit_anchor.py). Secrets are redacted before an event is written (policies/secrets.py:
values under secret-like names, tokens in any text) and again on export, for rows written before
a detection existed: the log itself must be safe to export.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from mcp_host.reported import ReportedError
from policies.secrets import DEFAULT_REDACTOR, SecretRedactor
from reviews.audit_keys import AUDIT_KEY_ENV, AUDIT_OLD_KEYS_ENV, AuditKeys, ChainKey
from reviews.audit_ledger import decision_problems
from reviews.clock import Clock, iso, utc_now
from storage import Database, open_database
from storage.database import Connection, migrate

GENESIS = "0" * 64
# Events per statement: on SQLite 9 parameters each stays far below its limit on parameters;
# on PostgreSQL it bounds the chaining statement's time, which grows with the square of its events.
_ROWS_PER_INSERT = 100

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS audit_log (
        seq INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        kind TEXT NOT NULL,
        thread_id TEXT,
        review_id TEXT,
        actor TEXT,
        data TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL)""",
        "CREATE TABLE IF NOT EXISTS audit_head (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER, hash TEXT)",
        # The head row exists from the start, so the first appenders lock it like every later one.
        f"INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, '{GENESIS}') ON CONFLICT (id) DO NOTHING",
    ),
    (
        # The key a row was chained with (reviews/audit_keys.py), by its id; NULL: no key (the
        # rows written before this column, and every row while GATEHOUSE_AUDIT_KEY is unset).
        "ALTER TABLE audit_log ADD COLUMN key_id TEXT",
    ),
)


class AuditHeadMissingError(ReportedError):
    """The head row (audit_head, id 1), which every append continues from, is gone: someone
    deleted it. Appending would restart the chain, so nothing is appended, and the change the
    event records is not committed either (they share a transaction)."""

    def __init__(self, where: str) -> None:
        super().__init__(
            f"the audit log's head record (table audit_head, row 1) is missing in {where}, so the "
            "hash chain cannot be continued and nothing was written; `gatehouse audit verify` "
            "names what else was changed, and restoring the database from a backup brings the row back"
        )


class AuditEvent(BaseModel):
    seq: int
    at: str
    kind: str
    thread_id: str | None = None
    review_id: str | None = None
    actor: str | None = None
    data: dict[str, Any]
    prev_hash: str
    hash: str
    # The id of the audit key the hash was made with; None: an unkeyed sha256.
    key_id: str | None = None


class VerifyReport(BaseModel):
    """``problems``: what was changed (tampering). ``unverified``: rows chained with a key this
    check was not given, so not checked. ``warnings``: what the check cannot detect."""

    ok: bool
    events: int
    problems: list[str]
    unverified: list[str] = []
    warnings: list[str] = []


@dataclass(frozen=True)
class ChainCheck:
    """A verification and what anchors are checked against: every row's stored hash by seq,
    and the chain's last row (seq 0 and GENESIS for an empty log)."""

    report: VerifyReport
    hashes: dict[int, str]
    last_seq: int
    last_hash: str


def _material(prev_hash: str, seq: int, at: str, kind: str, thread_id: str | None, review_id: str | None,
              actor: str | None, data: str) -> bytes:  # fmt: skip
    return json.dumps(
        [prev_hash, seq, at, kind, thread_id, review_id, actor, data], separators=(",", ":")
    ).encode("utf-8")


def event_hash(prev_hash: str, seq: int, at: str, kind: str, thread_id: str | None, review_id: str | None,
               actor: str | None, data: str) -> str:  # fmt: skip
    """The unkeyed form: anyone can recompute it (rows written without GATEHOUSE_AUDIT_KEY)."""
    return hashlib.sha256(_material(prev_hash, seq, at, kind, thread_id, review_id, actor, data)).hexdigest()


def keyed_event_hash(key: ChainKey, prev_hash: str, seq: int, at: str, kind: str, thread_id: str | None,
                     review_id: str | None, actor: str | None, data: str) -> str:  # fmt: skip
    """The keyed form: HMAC-SHA256 of event_hash's material under the chain key, which only
    someone with GATEHOUSE_AUDIT_KEY (or the old key that made it) can recompute."""
    return key.digest(_material(prev_hash, seq, at, kind, thread_id, review_id, actor, data))


@dataclass(frozen=True)
class AuditEntry:
    """An event to append: what happened, to which thread and review, by whom."""

    kind: str
    data: dict[str, Any]
    thread_id: str | None = None
    review_id: str | None = None
    actor: str | None = None


# (seq, prev_hash, hash): where an appended event went in the chain.
_Place = tuple[int, str, str]


def _chain_here(
    conn: Connection,
    at: str,
    entries: Sequence[AuditEntry],
    bodies: Sequence[str],
    *,
    key: ChainKey | None,
    postgres: bool,
) -> list[_Place]:
    """Lock and read the head, hash the events in this process (keyed when ``key`` is given),
    insert them and move the head. An empty list: the head row is missing.

    Used on SQLite, whose write transaction already holds the whole database, so nothing waits
    on it longer for the steps being separate; and on PostgreSQL for a keyed chain, because the
    key must never reach the database: a statement hashing with it would hand it (or its HMAC
    pads, which are as good) to the server, where its logs, an extension or a function
    shadowing pgcrypto's hmac() on the search path can keep it, and whoever runs the database
    is whom the key protects the log from. That costs one more round trip under the head's
    lock: the head read, then the insert and the head's move in one statement."""
    head = conn.execute(
        "SELECT seq, hash FROM audit_head WHERE id = 1" + (" FOR UPDATE" if postgres else "")
    ).fetchone()
    if head is None:
        return []
    seq, prev = head["seq"], head["hash"]
    key_id = key.key_id if key is not None else None
    places: list[_Place] = []
    rows: list[tuple[Any, ...]] = []
    for entry, body in zip(entries, bodies, strict=True):
        seq += 1
        fields = (prev, seq, at, entry.kind, entry.thread_id, entry.review_id, entry.actor, body)
        digest = keyed_event_hash(key, *fields) if key is not None else event_hash(*fields)
        rows.append(
            (seq, at, entry.kind, entry.thread_id, entry.review_id, entry.actor, body, prev, digest, key_id)
        )
        places.append((seq, prev, digest))
        prev = digest
    insert = (
        "INSERT INTO audit_log (seq, at, kind, thread_id, review_id, actor, data, prev_hash, hash, key_id)"
        " VALUES " + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(rows))
    )
    values = [value for row in rows for value in row]
    if postgres:
        conn.execute(f"WITH moved AS ({_MOVE_HEAD}) {insert}", [seq, prev, *values])
    else:
        conn.execute(insert, values)
        conn.execute(_MOVE_HEAD, (seq, prev))
    return places


_MOVE_HEAD = "UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1"


# The chain computed by the database, in the statement that locks its head: event_hash's
# material is '["<prev_hash>",<seq>,' followed by the JSON of the rest (_material_tail), which
# is ASCII, so sha256 over that text in SQL gives event_hash's digest (a test holds them equal).
_APPEND_CHAINED_IN_SQL = """
WITH RECURSIVE
  head AS (SELECT seq, hash FROM audit_head WHERE id = 1 FOR UPDATE),
  entry AS (
    SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
      WITH ORDINALITY AS e (kind, thread_id, review_id, actor, data, tail, n)),
  chain (n, seq, prev_hash, hash) AS (
    SELECT 0::bigint, seq, NULL::text, hash FROM head
    UNION ALL
    SELECT entry.n, chain.seq + 1, chain.hash,
           encode(sha256(convert_to('["' || chain.hash || '",' || (chain.seq + 1) || ',' || entry.tail,
                                    'UTF8')), 'hex')
    FROM chain JOIN entry ON entry.n = chain.n + 1),
  inserted AS (
    INSERT INTO audit_log (seq, at, kind, thread_id, review_id, actor, data, prev_hash, hash)
    SELECT chain.seq, ?, entry.kind, entry.thread_id, entry.review_id, entry.actor, entry.data,
           chain.prev_hash, chain.hash
    FROM chain JOIN entry USING (n)
    RETURNING seq, prev_hash, hash),
  moved AS (
    UPDATE audit_head SET seq = last.seq, hash = last.hash
    FROM (SELECT seq, hash FROM chain ORDER BY n DESC LIMIT 1) AS last
    WHERE audit_head.id = 1)
SELECT seq, prev_hash, hash FROM inserted ORDER BY seq"""


def _material_tail(at: str, entry: AuditEntry, body: str) -> str:
    """event_hash's material after the previous hash and the seq (which only the head gives)."""
    return json.dumps(
        [at, entry.kind, entry.thread_id, entry.review_id, entry.actor, body], separators=(",", ":")
    )[1:]


def _chain_in_the_statement(
    conn: Connection, at: str, entries: Sequence[AuditEntry], bodies: Sequence[str]
) -> list[_Place]:
    """Lock the head, chain, insert and move the head in one statement (PostgreSQL). An empty
    list: the head row is missing (nothing is inserted).

    Why: the head's row lock is the one every writer of every replica takes, held until commit.
    Hashing in Python between statements held it across three more round trips, each also
    waiting for the GIL in a busy process, and replicas queued on it (bench figure 8)."""
    rows = conn.execute(
        _APPEND_CHAINED_IN_SQL,
        (
            [e.kind for e in entries],
            [e.thread_id for e in entries],
            [e.review_id for e in entries],
            [e.actor for e in entries],
            list(bodies),
            [_material_tail(at, e, body) for e, body in zip(entries, bodies, strict=True)],
            at,
        ),
    ).fetchall()
    return [(row["seq"], row["prev_hash"], row["hash"]) for row in rows]


def _spans(seqs: Sequence[int]) -> str:
    """Row numbers as runs: "row 4", "rows 4..9", "rows 2..3, row 7"."""
    runs: list[list[int]] = []
    for seq in seqs:
        if runs and seq == runs[-1][1] + 1:
            runs[-1][1] = seq
        else:
            runs.append([seq, seq])
    return ", ".join(f"row {a}" if a == b else f"rows {a}..{b}" for a, b in runs)


@dataclass
class _ChainWalk:
    """The chain followed row by row: what each row breaks, collected by kind so that a rewrite
    of thousands of rows reads as one line per run of rows, not one per row."""

    keys: AuditKeys | None
    expected_seq: int = 1
    prev: str = GENESIS
    hashes: dict[int, str] = field(default_factory=dict)
    _problems: list[str] = field(default_factory=list)
    _edited: list[int] = field(default_factory=list)
    # Unkeyed rows after a keyed one: a keyed row replaced by one hashed without the key.
    _downgraded: list[int] = field(default_factory=list)
    _last_keyed: int | None = None
    _unkeyed: list[int] = field(default_factory=list)
    _keyed: list[int] = field(default_factory=list)
    # Rows chained with a key this check was not given, by key id.
    _missing: dict[str, list[int]] = field(default_factory=dict)

    def step(self, row: Any) -> None:
        seq = row["seq"]
        if seq != self.expected_seq:
            self._problems.append(
                f"row {self.expected_seq}"
                + (f"..{seq - 1}" if seq - 1 > self.expected_seq else "")
                + " deleted"
                if seq > self.expected_seq
                else f"row {seq} is out of order"
            )
        if row["prev_hash"] != self.prev:
            self._problems.append(
                f"row {seq} does not follow row {seq - 1} (inserted, or the row before it changed)"
            )
        recomputed = self._recompute(row)
        if recomputed is not None and not hmac.compare_digest(recomputed, row["hash"]):
            self._edited.append(seq)
        self.hashes[seq] = row["hash"]
        self.expected_seq, self.prev = seq + 1, row["hash"]

    def _recompute(self, row: Any) -> str | None:
        """The row's hash as its content gives it; None: its key was not given."""
        fields = (row["prev_hash"], row["seq"], row["at"], row["kind"], row["thread_id"],
                  row["review_id"], row["actor"], row["data"])  # fmt: skip
        key_id = row["key_id"]
        if key_id is None:
            (self._downgraded if self._last_keyed is not None else self._unkeyed).append(row["seq"])
            return event_hash(*fields)
        self._last_keyed = row["seq"]
        self._keyed.append(row["seq"])
        key = self.keys.find(key_id) if self.keys is not None else None
        if key is None:
            self._missing.setdefault(key_id, []).append(row["seq"])
            return None
        return keyed_event_hash(key, *fields)

    def problems(self) -> list[str]:
        found = list(self._problems)
        if len(self._edited) == 1:
            found.append(f"row {self._edited[0]} was edited (its content no longer matches its hash)")
        elif self._edited:
            found.append(
                f"{_spans(self._edited)} were edited or rehashed (their content no longer matches"
                " their hashes)"
            )
        if self._downgraded:
            found.append(
                f"{_spans(self._downgraded)}: hashed without a key although rows before them were"
                " chained with one (keyed rows replaced by rows rehashed without the key)"
            )
        return found

    def unverified(self) -> list[str]:
        if self.keys is None:
            return [
                f"{_spans(seqs)}: chained with an audit key (key id {key_id}), and {AUDIT_KEY_ENV}"
                f" is not set: set it (and {AUDIT_OLD_KEYS_ENV} to the keys it replaced) to verify them"
                for key_id, seqs in self._missing.items()
            ]
        return [
            f"{_spans(seqs)}: chained with an audit key (key id {key_id}) that is neither"
            f" {AUDIT_KEY_ENV} nor in {AUDIT_OLD_KEYS_ENV}: add the key that chained them to"
            f" {AUDIT_OLD_KEYS_ENV} (comma-separated) to verify them, or they were forged"
            for key_id, seqs in self._missing.items()
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
        if self._unkeyed and not self._keyed:
            return [
                f"no row is chained with {AUDIT_KEY_ENV}: {_spans(self._unkeyed)} use no key (written"
                " before the key was set, or rewritten by someone without it, which only an anchor"
                " made since can show)"
            ]
        if self._unkeyed:
            return [
                f"{_spans(self._unkeyed)} were chained before {AUDIT_KEY_ENV} was set (no key); the"
                " keyed rows after them hold them, but not a cut back to them: anchor the log"
            ]
        return []


def _by_thread(threads: Sequence[str | None]) -> list[tuple[str | None, list[int]]]:
    """The places of each thread's events, in order of first appearance; an event of no
    thread on its own (what it holds says nothing about another's)."""
    groups: dict[str, list[int]] = {}
    alone: list[tuple[str | None, list[int]]] = []
    for n, thread_id in enumerate(threads):
        if thread_id is None:
            alone.append((None, [n]))
        else:
            groups.setdefault(thread_id, []).append(n)
    return [*groups.items(), *alone]


class AuditLog:
    def __init__(
        self,
        db: Database | Path | str,
        *,
        clock: Clock = utc_now,
        secrets: SecretRedactor = DEFAULT_REDACTOR,
        keys: AuditKeys | None = None,
    ) -> None:
        self._db = open_database(db)
        self._clock = clock
        # New events are chained with keys.current; verify also takes keys.old. None: unkeyed.
        self._keys = keys
        # The built-in secret names (policies/secrets.py SECRET_ARGUMENTS) and the policy's own.
        self._secrets = secrets
        migrate(self._db, "audit", _MIGRATIONS)

    @property
    def keys(self) -> AuditKeys | None:
        return self._keys

    @property
    def database(self) -> Database:
        """Where the rows are: what storage/transactions.py one_transaction takes."""
        return self._db

    def close(self) -> None:
        self._db.close()

    def append(
        self,
        kind: str,
        data: dict[str, Any],
        *,
        thread_id: str | None = None,
        review_id: str | None = None,
        actor: str | None = None,
    ) -> AuditEvent:
        return self.append_all([AuditEntry(kind, data, thread_id, review_id, actor)])[0]

    def _redacted(self, entries: Sequence[AuditEntry]) -> list[dict[str, Any]]:
        """Each entry's data with its secrets hidden: those it holds, those the other entries
        of its thread hold (a run's selection next to its request), and those remembered for
        the thread (the request a planner cut the arguments from)."""
        shown: list[dict[str, Any]] = [{} for _ in entries]
        for thread_id, places in _by_thread([e.thread_id for e in entries]):
            hidden = self._secrets.value([entries[n].data for n in places], thread_id=thread_id)
            for n, data in zip(places, hidden, strict=True):
                shown[n] = data
        return shown

    def append_all(self, entries: Sequence[AuditEntry]) -> list[AuditEvent]:
        """Append several events in one transaction: they take consecutive places in the chain.
        No events: nothing is written and the chain's head is not locked."""
        if not entries:
            return []
        at = iso(self._clock())
        bodies = [
            json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
            for data in self._redacted(entries)
        ]
        chain = self._chain()
        places: list[_Place] = []
        with self._db.write() as conn:
            # In chunks, each continuing from the head the one before moved: on PostgreSQL each
            # step of the chaining recursion scans its statement's events, so one statement's
            # time grows with the square of its events (4,000 took 0.8 s, in chunks 0.13 s).
            for start in range(0, len(entries), _ROWS_PER_INSERT):
                placed = chain(
                    conn,
                    at,
                    entries[start : start + _ROWS_PER_INSERT],
                    bodies[start : start + _ROWS_PER_INSERT],
                )
                if not placed:
                    raise AuditHeadMissingError(self._db.description)
                places += placed
        return [
            AuditEvent(
                seq=seq,
                at=at,
                kind=entry.kind,
                thread_id=entry.thread_id,
                review_id=entry.review_id,
                actor=entry.actor,
                data=json.loads(body),
                prev_hash=prev,
                hash=digest,
                key_id=self._keys.current.key_id if self._keys is not None else None,
            )
            for (seq, prev, digest), entry, body in zip(places, entries, bodies, strict=True)
        ]

    def _chain(self) -> Callable[[Connection, str, Sequence[AuditEntry], Sequence[str]], list[_Place]]:
        """How this log's appends chain: unkeyed on PostgreSQL, in the one statement that locks
        the head; otherwise in this process (_chain_here says why a keyed chain is)."""
        postgres = self._db.dialect.name == "postgresql"
        if postgres and self._keys is None:
            return _chain_in_the_statement
        key = self._keys.current if self._keys is not None else None
        return partial(_chain_here, key=key, postgres=postgres)

    def events(self, *, thread_id: str | None = None) -> list[AuditEvent]:
        with self._db.read() as conn:
            if thread_id is None:
                rows = conn.execute("SELECT * FROM audit_log ORDER BY seq").fetchall()
            else:
                rows = conn.execute(
                    "SELECT * FROM audit_log WHERE thread_id = ? ORDER BY seq", (thread_id,)
                ).fetchall()
        return [AuditEvent.model_validate(dict(row) | {"data": json.loads(row["data"])}) for row in rows]

    def verify(self) -> VerifyReport:
        return self.check_chain().report

    def check_chain(self) -> ChainCheck:
        """Recompute every row's hash (keyed rows with the key that made them), follow the
        chain and the head, and hold the decisions against the ledger's."""
        with self._db.read() as conn:
            rows = conn.execute("SELECT * FROM audit_log ORDER BY seq").fetchall()
            head = conn.execute("SELECT seq, hash FROM audit_head WHERE id = 1").fetchone()
            ledger = decision_problems(conn)
        walk = _ChainWalk(self._keys)
        for row in rows:
            walk.step(row)
        problems = walk.problems()
        last, prev = walk.expected_seq - 1, walk.prev
        if head is not None and head["seq"] > last:
            problems.append(
                f"rows {last + 1}..{head['seq']} were deleted (the log's head ends at {head['seq']})"
            )
        elif head is not None and head["seq"] < last:
            problems.append(
                f"row {head['seq'] + 1} was inserted outside the log (its head ends at {head['seq']})"
            )
        elif head is not None and head["hash"] != prev:
            problems.append(f"row {last} does not match the log's head (edited or replaced)")
        if head is None and rows:
            problems.append("the log's head record is missing")
        problems += ledger
        unverified = walk.unverified()
        report = VerifyReport(
            ok=not problems and not unverified,
            events=len(rows),
            problems=problems,
            unverified=unverified,
            warnings=walk.warnings(),
        )
        return ChainCheck(report=report, hashes=walk.hashes, last_seq=last, last_hash=prev)

    def export(self, fmt: str) -> str:
        # Redacting again is a no-op on rows this version wrote, and hides what older ones kept:
        # a secret one of a thread's events shows is hidden in all of them.
        events = self.events()
        for _, places in _by_thread([e.thread_id for e in events]):
            hidden = self._secrets.value([events[n].data for n in places])
            for n, data in zip(places, hidden, strict=True):
                events[n] = events[n].model_copy(update={"data": data})
        if fmt == "jsonl":
            return "".join(json.dumps(e.model_dump(), ensure_ascii=False) + "\n" for e in events)
        if fmt == "csv":
            out = io.StringIO()
            writer = csv.writer(out)
            writer.writerow(
                [
                    "seq",
                    "at",
                    "kind",
                    "thread_id",
                    "review_id",
                    "actor",
                    "data",
                    "prev_hash",
                    "hash",
                    "key_id",
                ]
            )
            for e in events:
                writer.writerow(
                    [
                        e.seq,
                        e.at,
                        e.kind,
                        e.thread_id or "",
                        e.review_id or "",
                        e.actor or "",
                        json.dumps(e.data, ensure_ascii=False, sort_keys=True),
                        e.prev_hash,
                        e.hash,
                        e.key_id or "",
                    ]
                )
            return out.getvalue()
        raise ValueError(f"unknown export format {fmt!r}: use jsonl or csv")
