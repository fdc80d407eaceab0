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
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from mcp_host.reported import ReportedError
from policies.secrets import DEFAULT_REDACTOR, SecretRedactor
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


class VerifyReport(BaseModel):
    ok: bool
    events: int
    problems: list[str]


@dataclass(frozen=True)
class ChainCheck:
    """A verification and what anchors are checked against: every row's stored hash by seq,
    and the chain's last row (seq 0 and GENESIS for an empty log)."""

    report: VerifyReport
    hashes: dict[int, str]
    last_seq: int
    last_hash: str


def event_hash(prev_hash: str, seq: int, at: str, kind: str, thread_id: str | None, review_id: str | None,
               actor: str | None, data: str) -> str:  # fmt: skip
    material = json.dumps(
        [prev_hash, seq, at, kind, thread_id, review_id, actor, data], separators=(",", ":")
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


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
    conn: Connection, at: str, entries: Sequence[AuditEntry], bodies: Sequence[str]
) -> list[_Place]:
    """Read the head, hash the events in Python, insert them and move the head, statement by
    statement: SQLite's write transaction already holds the whole database, so nothing waits
    on it longer for the steps being separate. An empty list: the head row is missing."""
    head = conn.execute("SELECT seq, hash FROM audit_head WHERE id = 1").fetchone()
    if head is None:
        return []
    seq, prev = head["seq"], head["hash"]
    places: list[_Place] = []
    rows: list[tuple[Any, ...]] = []
    for entry, body in zip(entries, bodies, strict=True):
        seq += 1
        digest = event_hash(prev, seq, at, entry.kind, entry.thread_id, entry.review_id, entry.actor, body)
        rows.append((seq, at, entry.kind, entry.thread_id, entry.review_id, entry.actor, body, prev, digest))
        places.append((seq, prev, digest))
        prev = digest
    conn.execute(
        "INSERT INTO audit_log (seq, at, kind, thread_id, review_id, actor, data, prev_hash, hash)"
        " VALUES " + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(rows)),
        [value for row in rows for value in row],
    )
    conn.execute("UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1", (seq, prev))
    return places


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
    ) -> None:
        self._db = open_database(db)
        self._clock = clock
        # The built-in secret names (policies/secrets.py SECRET_ARGUMENTS) and the policy's own.
        self._secrets = secrets
        migrate(self._db, "audit", _MIGRATIONS)

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
        chain = _chain_in_the_statement if self._db.dialect.name == "postgresql" else _chain_here
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
            )
            for (seq, prev, digest), entry, body in zip(places, entries, bodies, strict=True)
        ]

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
        problems: list[str] = []
        hashes: dict[int, str] = {}
        with self._db.read() as conn:
            rows = conn.execute("SELECT * FROM audit_log ORDER BY seq").fetchall()
            head = conn.execute("SELECT seq, hash FROM audit_head WHERE id = 1").fetchone()
        expected_seq, prev = 1, GENESIS
        for row in rows:
            seq = row["seq"]
            if seq != expected_seq:
                problems.append(
                    f"row {expected_seq}" + (f"..{seq - 1}" if seq - 1 > expected_seq else "") + " deleted"
                    if seq > expected_seq
                    else f"row {seq} is out of order"
                )
            if row["prev_hash"] != prev:
                problems.append(
                    f"row {seq} does not follow row {seq - 1} (inserted, or the row before it changed)"
                )
            recomputed = event_hash(
                row["prev_hash"],
                seq,
                row["at"],
                row["kind"],
                row["thread_id"],
                row["review_id"],
                row["actor"],
                row["data"],
            )
            if recomputed != row["hash"]:
                problems.append(f"row {seq} was edited (its content no longer matches its hash)")
            hashes[seq] = row["hash"]
            expected_seq, prev = seq + 1, row["hash"]
        last = expected_seq - 1
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
        report = VerifyReport(ok=not problems, events=len(rows), problems=problems)
        return ChainCheck(report=report, hashes=hashes, last_seq=last, last_hash=prev)

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
                ["seq", "at", "kind", "thread_id", "review_id", "actor", "data", "prev_hash", "hash"]
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
                    ]
                )
            return out.getvalue()
        raise ValueError(f"unknown export format {fmt!r}: use jsonl or csv")
