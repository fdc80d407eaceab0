"""The audit log: append-only, hash-chained, in the Gatehouse database.

The log is made of hash chains (reviews/audit_append.py): each write transaction appends to a
chain no other open transaction holds, so writers on many replicas never wait for one another.
Within a chain each event's hash covers its own content, its place (chain, link, the log's seq)
and the previous event's hash, so editing a row breaks its hash, inserting or deleting one
breaks its chain, and deleting a chain's newest rows is caught by the chain's head record kept
beside the table (reviews/audit_walk.py). What the database alone cannot show is a truncation
that rewrites a head too, or the newest chain deleted whole: that takes an anchor kept outside
it, which signs every chain's last row (reviews/audit_anchor.py). Secrets are redacted before an
event is written (policies/secrets.py: values under secret-like names, tokens in any text) and
again on export, for rows written before a detection existed: the log itself must be safe to
export.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from policies.secrets import DEFAULT_REDACTOR, SecretRedactor
from reviews.audit_append import (
    ROWS_PER_INSERT,
    AuditEntry,
    AuditHeadMissingError,
    ChainAppender,
    Place,
)
from reviews.audit_hashes import GENESIS, LEGACY_FORM, chained_hash, event_hash, keyed_event_hash
from reviews.audit_keys import AuditKeys
from reviews.audit_ledger import decision_problems
from reviews.audit_walk import ChainCheck, ChainEnd, VerifyReport, check_rows
from reviews.clock import Clock, iso, utc_now
from storage import Database, open_database
from storage.database import migrate

__all__ = [
    "GENESIS",
    "AuditEntry",
    "AuditEvent",
    "AuditHeadMissingError",
    "AuditLog",
    "ChainCheck",
    "ChainEnd",
    "VerifyReport",
    "chained_hash",
    "event_hash",
    "keyed_event_hash",
]

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
    (
        # Several chains (reviews/audit_append.py). The one chain's rows become chain 1, each at
        # the link equal to its seq, in the hash form they were written in (1); its head becomes
        # chain 1's head. The old head table goes, so a process of an earlier release still
        # running fails its appends instead of continuing a chain nobody follows any more.
        "ALTER TABLE audit_log ADD COLUMN chain INTEGER",
        "ALTER TABLE audit_log ADD COLUMN link INTEGER",
        "ALTER TABLE audit_log ADD COLUMN hash_format INTEGER",
        f"UPDATE audit_log SET chain = 1, link = seq, hash_format = {LEGACY_FORM}",
        "CREATE TABLE audit_chains (chain INTEGER PRIMARY KEY, link INTEGER NOT NULL, hash TEXT NOT NULL)",
        "INSERT INTO audit_chains (chain, link, hash) SELECT 1, seq, hash FROM audit_head WHERE id = 1 AND seq > 0",
        "DROP TABLE audit_head",
        "CREATE UNIQUE INDEX audit_log_chain_link ON audit_log (chain, link)",
    ),
)
# PostgreSQL numbers rows from a sequence, which no writer waits for (SQLite takes the highest
# seq's successor under its database lock): the same step, with the sequence started past the
# rows already there.
_POSTGRES_SEQUENCE = (
    "CREATE SEQUENCE audit_log_seq",
    "SELECT setval('audit_log_seq', (SELECT COALESCE(MAX(seq), 0) + 1 FROM audit_log), false)",
)


def _migrations(postgres: bool) -> tuple[tuple[str, ...], ...]:
    if not postgres:
        return _MIGRATIONS
    return (*_MIGRATIONS[:2], _MIGRATIONS[2] + _POSTGRES_SEQUENCE)


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
    # Its chain and its place in it (link 1 is the chain's first row).
    chain: int | None = None
    link: int | None = None


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
        postgres = self._db.dialect.name == "postgresql"
        migrate(self._db, "audit", _migrations(postgres))
        self._appender = ChainAppender(
            postgres=postgres,
            key=keys.current if keys is not None else None,
            where=self._db.description,
        )

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
        """Append several events in one transaction: they take consecutive links of one chain
        (the one this transaction already appended to, if it did). No events: nothing is
        written and no chain is taken."""
        if not entries:
            return []
        at = iso(self._clock())
        bodies = [
            json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
            for data in self._redacted(entries)
        ]
        places: list[Place] = []
        with self._db.write() as conn:
            # In chunks, each continuing from the head the one before moved: on PostgreSQL each
            # step of the chaining recursion scans its statement's events, so one statement's
            # time grows with the square of its events, and chunks keep each statement short.
            for start in range(0, len(entries), ROWS_PER_INSERT):
                places += self._appender.append(
                    conn,
                    at,
                    entries[start : start + ROWS_PER_INSERT],
                    bodies[start : start + ROWS_PER_INSERT],
                )
        return [
            AuditEvent(
                seq=place.seq,
                at=at,
                kind=entry.kind,
                thread_id=entry.thread_id,
                review_id=entry.review_id,
                actor=entry.actor,
                data=json.loads(body),
                prev_hash=place.prev_hash,
                hash=place.hash,
                key_id=self._keys.current.key_id if self._keys is not None else None,
                chain=place.chain,
                link=place.link,
            )
            for place, entry, body in zip(places, entries, bodies, strict=True)
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
        """Recompute every row's hash (keyed rows with the key that made them), follow each
        chain and hold it against its head, and hold the decisions against the ledger's."""
        # One snapshot for every read: the rows, the heads and the ledger are held against one
        # another, and replicas go on appending while verify reads. Read in separate statements
        # outside one transaction, a commit between them would show a head past the rows read
        # ("deleted after row ...") or rows past their head ("inserted outside the log"): a
        # concurrent append reported as tampering. Rows committed after the snapshot are left
        # to the next verify; an anchor made from this check signs what it read.
        with self._db.snapshot() as conn:
            rows = conn.execute("SELECT * FROM audit_log ORDER BY seq").fetchall()
            heads = conn.execute("SELECT chain, link, hash FROM audit_chains").fetchall()
            ledger = decision_problems(conn)
        problems, hashes, ends, links = check_rows(rows, heads, self._keys)
        problems += ledger
        unverified = hashes.unverified()
        report = VerifyReport(
            ok=not problems and not unverified,
            events=len(rows),
            problems=problems,
            unverified=unverified,
            warnings=hashes.warnings(),
        )
        return ChainCheck(report=report, ends=ends, links=links)

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
                    "chain",
                    "link",
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
                        e.chain if e.chain is not None else "",
                        e.link if e.link is not None else "",
                    ]
                )
            return out.getvalue()
        raise ValueError(f"unknown export format {fmt!r}: use jsonl or csv")
