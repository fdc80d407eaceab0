"""Appending to the audit log: several hash chains, so that writers never wait for each other.

The log was one chain whose head row every writer of every replica locked until it committed:
with four replicas on PostgreSQL most of the busy database sessions were waiting for that lock
(bench figure 8). Now the log is made of chains (table audit_chains: one head row per chain,
its last link and hash), and a write transaction appends to the first chain no other open
transaction holds (``FOR UPDATE SKIP LOCKED``: a held head is skipped, never waited for). When
every chain is held, the transaction starts the next one, numbered one past the highest, so
there are only ever as many chains as transactions that appended at the same moment, and their
numbers have no gaps (a chain missing from the middle was deleted). A transaction keeps the
chain it took for all its appends, so its events take consecutive links.

Within a chain each row's hash covers the one before it, as the single chain's did, and also
its chain, its link and its seq (the whole log's order, from a sequence on PostgreSQL):
reviews/audit_hashes.py. On SQLite a write transaction holds the whole database, so every
append takes chain 1 and the log stays one chain.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp_host.reported import StorageError
from reviews.audit_hashes import (
    CHAINED_FORM,
    CHAINED_PREFIX_SQL,
    GENESIS,
    chained_hash,
    chained_material_tail,
)
from reviews.audit_keys import ChainKey
from storage.database import Connection

# Events per statement: on SQLite 13 parameters each stays far below its limit on parameters;
# on PostgreSQL it bounds the chaining statement's time, which grows with the square of its events.
ROWS_PER_INSERT = 100
# Tries at finding or starting a chain. Each failed try means another transaction started the
# chain this one was starting, at the same moment: a second failure in a row is already rare.
_TRIES = 20


class AuditHeadMissingError(StorageError):
    """A chain's head row (table audit_chains), which appends continue from, is gone while its
    rows are still there: someone deleted it. Appending would restart that chain, so nothing is
    appended, and the change the event records is not committed either (they share a
    transaction)."""

    def __init__(self, chains: Sequence[int], where: str) -> None:
        named = ", ".join(str(c) for c in chains)
        super().__init__(
            f"the audit log's head record of chain {named} (table audit_chains) is missing in {where},"
            " so the hash chain cannot be continued and nothing was written; `gatehouse audit verify`"
            " names what else was changed, and restoring the database from a backup brings the row back"
        )


@dataclass(frozen=True)
class AuditEntry:
    """An event to append: what happened, to which thread and review, by whom."""

    kind: str
    data: dict[str, Any]
    thread_id: str | None = None
    review_id: str | None = None
    actor: str | None = None


@dataclass(frozen=True)
class Place:
    """Where an appended event went: its chain, its link in it, its seq in the whole log."""

    chain: int
    link: int
    seq: int
    prev_hash: str
    hash: str


_INSERT = (
    "INSERT INTO audit_log (seq, chain, link, hash_format, at, kind, thread_id, review_id, actor, data,"
    " prev_hash, hash, key_id) VALUES "
)
_ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_MOVE_HEAD = "UPDATE audit_chains SET link = ?, hash = ? WHERE chain = ?"

# The first head no other transaction holds, the chain this transaction already holds first
# (its row lock is this transaction's own, so it is never skipped). A bare ``?`` that is NULL
# orders nothing.
_FREE_HEAD = (
    "SELECT chain, link, hash FROM audit_chains ORDER BY chain <> ?, chain LIMIT 1 FOR UPDATE SKIP LOCKED"
)

# PostgreSQL, keyed chain: the free head and the seqs of the events, in one round trip.
_TAKE_HEAD_AND_SEQS = f"""
SELECT head.chain, head.link, head.hash,
       ARRAY(SELECT nextval('audit_log_seq') FROM generate_series(1, ?::int)) AS seqs
FROM ({_FREE_HEAD}) AS head"""

# SQLite: the write transaction holds the database, so the first chain is always free, and the
# next seq is the highest one's successor.
_FIRST_HEAD = """
SELECT chain, link, hash, (SELECT COALESCE(MAX(seq), 0) FROM audit_log) AS last_seq
FROM audit_chains ORDER BY chain LIMIT 1"""

# PostgreSQL, unkeyed chain: take a free head, number the events from the sequence, chain them
# (event_hash's form 2, in SQL: a test holds the two equal), insert them and move the head, in
# one statement. No rows: every chain is held by another transaction (or there is none yet).
_APPEND_CHAINED_IN_SQL = f"""
WITH RECURSIVE
  head AS MATERIALIZED ({_FREE_HEAD}),
  entry AS (
    SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
      WITH ORDINALITY AS e (kind, thread_id, review_id, actor, data, tail, n)),
  seqs AS MATERIALIZED (
    SELECT array_agg(s ORDER BY s) AS s FROM (SELECT nextval('audit_log_seq') AS s FROM head, entry) AS taken),
  chained (n, link, prev_hash, hash) AS (
    SELECT 0::bigint, link, NULL::text, hash FROM head
    UNION ALL
    SELECT entry.n, chained.link + 1, chained.hash,
           encode(sha256(convert_to({CHAINED_PREFIX_SQL} || head.chain || ',' || (chained.link + 1) || ','
                                    || seqs.s[entry.n::int] || ',"' || chained.hash || '",' || entry.tail,
                                    'UTF8')), 'hex')
    FROM chained JOIN entry ON entry.n = chained.n + 1 CROSS JOIN head CROSS JOIN seqs),
  inserted AS (
    INSERT INTO audit_log (seq, chain, link, hash_format, at, kind, thread_id, review_id, actor, data,
                           prev_hash, hash)
    SELECT seqs.s[chained.n::int], head.chain, chained.link, {CHAINED_FORM}, ?, entry.kind, entry.thread_id,
           entry.review_id, entry.actor, entry.data, chained.prev_hash, chained.hash
    FROM chained JOIN entry USING (n) CROSS JOIN head CROSS JOIN seqs
    RETURNING seq, chain, link, prev_hash, hash),
  moved AS (
    UPDATE audit_chains SET link = last.link, hash = last.hash
    FROM (SELECT link, hash FROM chained ORDER BY n DESC LIMIT 1) AS last, head
    WHERE audit_chains.chain = head.chain)
SELECT seq, chain, link, prev_hash, hash FROM inserted ORDER BY seq"""

# Which chains have heads, and the highest chain any row is in: what starting a chain checks.
_CHAINS_HELD = """
SELECT chain, NULL AS top_row FROM audit_chains
UNION ALL
SELECT NULL, MAX(chain) FROM audit_log"""

# The next chain, one past the highest with a head or a row. ON CONFLICT: another transaction
# started the same one (on PostgreSQL this waits for it to end: only while chains are being
# started, as many as appenders ever met at once). ``WHERE true`` lets SQLite parse the upsert.
_START_CHAIN = """
INSERT INTO audit_chains (chain, link, hash)
SELECT 1 + COALESCE(MAX(top), 0), 0, ? FROM
  (SELECT MAX(chain) AS top FROM audit_chains UNION ALL SELECT MAX(chain) FROM audit_log) AS tops
WHERE true
ON CONFLICT (chain) DO NOTHING
RETURNING chain"""


class ChainAppender:
    """Appends events for one AuditLog: chained with ``key`` (in this process, so the key never
    reaches the database) or unkeyed (on PostgreSQL hashed in the statement that takes the head,
    one round trip)."""

    def __init__(self, *, postgres: bool, key: ChainKey | None, where: str) -> None:
        self._postgres = postgres
        self._key = key
        self._where = where
        # The chain each open PostgreSQL transaction (its connection, which lives as long as
        # the transaction) has taken, so its later appends continue it.
        self._taken: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()

    def append(
        self, conn: Connection, at: str, entries: Sequence[AuditEntry], bodies: Sequence[str]
    ) -> list[Place]:
        """Chain ``entries`` (at most ROWS_PER_INSERT) onto a chain no other open transaction
        holds, starting one when every chain is held."""
        taken = self._taken.get(conn) if self._postgres else None
        for _ in range(_TRIES):
            places = self._onto_free_chain(conn, at, entries, bodies, taken)
            if places:
                if self._postgres:
                    self._taken[conn] = places[0].chain
                return places
            taken = self._start_chain(conn)
        raise RuntimeError(
            f"no audit chain could be taken or started in {self._where} after {_TRIES} tries:"
            " other transactions kept starting the same chains"
        )

    def _onto_free_chain(
        self,
        conn: Connection,
        at: str,
        entries: Sequence[AuditEntry],
        bodies: Sequence[str],
        taken: int | None,
    ) -> list[Place]:
        if self._postgres and self._key is None:
            return self._chained_in_the_statement(conn, at, entries, bodies, taken)
        if self._postgres:
            head = conn.execute(_TAKE_HEAD_AND_SEQS, (len(entries), taken)).fetchone()
            if head is None:
                return []
            seqs = sorted(head["seqs"])
        else:
            head = conn.execute(_FIRST_HEAD).fetchone()
            if head is None:
                return []
            seqs = [head["last_seq"] + n for n in range(1, len(entries) + 1)]
        return self._chained_here(conn, at, entries, bodies, head["chain"], head["link"], head["hash"], seqs)

    def _chained_here(
        self,
        conn: Connection,
        at: str,
        entries: Sequence[AuditEntry],
        bodies: Sequence[str],
        chain: int,
        link: int,
        prev: str,
        seqs: Sequence[int],
    ) -> list[Place]:
        """Hash in this process, insert, move the head. On SQLite, whose write transaction holds
        the whole database; and on PostgreSQL for a keyed chain, because the key must never
        reach the database: a statement hashing with it would hand it (or its HMAC pads, which
        are as good) to the server, where its logs, an extension or a function shadowing
        pgcrypto's hmac() on the search path can keep it, and whoever runs the database is whom
        the key protects the log from."""
        key_id = self._key.key_id if self._key is not None else None
        places: list[Place] = []
        values: list[Any] = []
        for entry, body, seq in zip(entries, bodies, seqs, strict=True):
            link += 1
            fields = (at, entry.kind, entry.thread_id, entry.review_id, entry.actor, body)
            digest = chained_hash(chain, link, seq, prev, *fields, key=self._key)
            values += [seq, chain, link, CHAINED_FORM, *fields, prev, digest, key_id]
            places.append(Place(chain, link, seq, prev, digest))
            prev = digest
        insert = _INSERT + ", ".join([_ROW] * len(places))
        if self._postgres:
            conn.execute(f"WITH moved AS ({_MOVE_HEAD}) {insert}", [link, prev, chain, *values])
        else:
            conn.execute(insert, values)
            conn.execute(_MOVE_HEAD, (link, prev, chain))
        return places

    @staticmethod
    def _chained_in_the_statement(
        conn: Connection, at: str, entries: Sequence[AuditEntry], bodies: Sequence[str], taken: int | None
    ) -> list[Place]:
        rows = conn.execute(
            _APPEND_CHAINED_IN_SQL,
            (
                taken,
                [e.kind for e in entries],
                [e.thread_id for e in entries],
                [e.review_id for e in entries],
                [e.actor for e in entries],
                list(bodies),
                [
                    chained_material_tail(at, e.kind, e.thread_id, e.review_id, e.actor, body)
                    for e, body in zip(entries, bodies, strict=True)
                ],
                at,
            ),
        ).fetchall()
        return [Place(row["chain"], row["link"], row["seq"], row["prev_hash"], row["hash"]) for row in rows]

    def _start_chain(self, conn: Connection) -> int | None:
        """The next chain, started (and held) by this transaction; None: another transaction
        started it first. Refused when a chain's head is missing: its rows would otherwise be
        continued by a chain numbered over them, or its number taken again."""
        heads: set[int] = set()
        top_row = 0
        for row in conn.execute(_CHAINS_HELD).fetchall():
            if row["chain"] is not None:
                heads.add(row["chain"])
            elif row["top_row"] is not None:
                top_row = row["top_row"]
        missing = sorted(set(range(1, max([top_row, *heads]) + 1)) - heads)
        if missing:
            raise AuditHeadMissingError(missing, self._where)
        started = conn.execute(_START_CHAIN, (GENESIS,)).fetchone()
        return None if started is None else int(started["chain"])
