"""A database the one-chain release wrote (schema version 2 of the `audit` store: one chain,
its head in `audit_head`, rows unkeyed and then keyed) upgraded to chains: its rows become
chain 1's, new rows continue chain 1 from them, and old rows, new rows and the anchors made
before the upgrade keep verifying; tampering with either old or new rows is still named.

Every test runs on a SQLite file and on PostgreSQL (tests/reviews/conftest.py)."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from pathlib import Path

import pytest

from reviews.audit import GENESIS, AuditHeadMissingError, AuditLog, event_hash, keyed_event_hash
from reviews.audit_anchor import anchor_problems, make_anchor, parse_anchor
from reviews.audit_keys import AuditKeys, parse_audit_keys
from storage import open_database
from storage.database import migrate

# The `audit` store's steps as the one-chain release ran them (version 2).
ONE_CHAIN_SCHEMA = (
    (
        """CREATE TABLE IF NOT EXISTS audit_log (
        seq INTEGER PRIMARY KEY, at TEXT NOT NULL, kind TEXT NOT NULL, thread_id TEXT,
        review_id TEXT, actor TEXT, data TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL)""",
        "CREATE TABLE IF NOT EXISTS audit_head (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER, hash TEXT)",
        f"INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, '{GENESIS}') ON CONFLICT (id) DO NOTHING",
    ),
    ("ALTER TABLE audit_log ADD COLUMN key_id TEXT",),
)
UNKEYED_ROWS = 3
KEYED_ROWS = 2


@pytest.fixture
def keys() -> AuditKeys:
    found = parse_audit_keys(secrets.token_hex(32), None)
    assert found is not None
    return found


def one_chain_database(backend: str | Path, keys: AuditKeys) -> str:
    """Rows 1..3 chained without a key, 4..5 with it, as the one-chain release wrote them, its
    head at row 5; and an anchor of row 5 as that release signed it (its JSON line)."""
    db = open_database(backend)
    prev = GENESIS
    try:
        migrate(db, "audit", ONE_CHAIN_SCHEMA)
        with db.write() as conn:
            for seq in range(1, UNKEYED_ROWS + KEYED_ROWS + 1):
                at, body = f"2026-01-0{seq}T00:00:00.000+00:00", json.dumps({"n": seq})
                fields = (prev, seq, at, "event", "t", None, "reviewer", body)
                keyed = seq > UNKEYED_ROWS
                digest = keyed_event_hash(keys.current, *fields) if keyed else event_hash(*fields)
                conn.execute(
                    "INSERT INTO audit_log (seq, at, kind, thread_id, actor, data, prev_hash, hash, key_id)"
                    " VALUES (?, ?, 'event', 't', 'reviewer', ?, ?, ?, ?)",
                    (seq, at, body, prev, digest, keys.current.key_id if keyed else None),
                )
                prev = digest
            conn.execute(
                "UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1", (UNKEYED_ROWS + KEYED_ROWS, prev)
            )
    finally:
        db.close()
    at = "2026-01-06T00:00:00.000+00:00"
    material = b"gatehouse audit anchor v1\n" + json.dumps([5, prev, at], separators=(",", ":")).encode()
    signature = hmac.new(keys.current.anchor_key, material, hashlib.sha256).hexdigest()
    return json.dumps({"seq": 5, "hash": prev, "at": at, "hmac": signature})


def test_an_upgraded_log_keeps_verifying_and_new_rows_continue_its_chain(
    backend: str | Path, keys: AuditKeys
) -> None:
    old_anchor = parse_anchor(one_chain_database(backend, keys), "--anchor", keys.anchor_keys)

    log = AuditLog(backend, keys=keys)  # the upgrade runs here
    try:
        old = log.events()
        assert [(e.seq, e.chain, e.link) for e in old] == [(n, 1, n) for n in range(1, 6)]
        new = [log.append("event", {"n": n}, thread_id="t", actor="reviewer") for n in (6, 7)]
        assert [(e.seq, e.chain, e.link) for e in new] == [(6, 1, 6), (7, 1, 7)]
        assert new[0].prev_hash == old[-1].hash

        check = log.check_chain()
        assert check.report.ok and check.report.problems == []
        assert any("rows 1..3" in warning for warning in check.report.warnings)
        assert anchor_problems(check, [old_anchor]) == []
        new_anchor = make_anchor(check, at="2026-01-08T00:00:00.000+00:00", key=keys.current.anchor_key)
        assert [(end.chain, end.link, end.seq) for end in new_anchor.ends] == [(1, 7, 7)]
    finally:
        log.close()


@pytest.mark.parametrize("row", [2, 4, 6], ids=["old-unkeyed-row", "old-keyed-row", "new-row"])
def test_an_edited_row_old_or_new_is_named_after_the_upgrade(
    backend: str | Path, keys: AuditKeys, row: int
) -> None:
    one_chain_database(backend, keys)
    log = AuditLog(backend, keys=keys)
    try:
        log.append("event", {"n": 6}, actor="reviewer")
        with log.database.write() as conn:
            conn.execute(f"UPDATE audit_log SET actor = 'mallory' WHERE seq = {row}")

        assert f"row {row} was edited (its content no longer matches its hash)" in log.verify().problems
    finally:
        log.close()


def test_a_log_cut_below_an_anchor_of_the_one_chain_release_is_named(
    backend: str | Path, keys: AuditKeys
) -> None:
    old_anchor = parse_anchor(one_chain_database(backend, keys), "--anchor", keys.anchor_keys)
    log = AuditLog(backend, keys=keys)
    try:
        with log.database.write() as conn:
            conn.execute("DELETE FROM audit_log WHERE seq > 3")
            conn.execute(
                "UPDATE audit_chains SET link = 3, hash = (SELECT hash FROM audit_log WHERE seq = 3)"
            )
        check = log.check_chain()
        assert check.report.problems == []

        assert anchor_problems(check, [old_anchor]) == [
            f"chain 1 ends at row 3, but the anchor signed at {old_anchor.at} holds chain 1 up to row 5:"
            " its last 2 rows were cut (truncated below the anchor)"
        ]
    finally:
        log.close()


def test_a_one_chain_log_whose_head_was_deleted_before_the_upgrade_is_named_and_not_continued(
    backend: str | Path, keys: AuditKeys
) -> None:
    one_chain_database(backend, keys)
    db = open_database(backend)
    try:
        with db.write() as conn:
            conn.execute("DELETE FROM audit_head")
    finally:
        db.close()

    log = AuditLog(backend, keys=keys)
    try:
        assert "chain 1's head record is missing (table audit_chains)" in log.verify().problems
        with pytest.raises(AuditHeadMissingError, match="chain 1 \\(table audit_chains\\) is missing"):
            log.append("event", {"n": 6})
        assert len(log.events()) == UNKEYED_ROWS + KEYED_ROWS
    finally:
        log.close()
