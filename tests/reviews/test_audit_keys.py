"""A keyed audit chain: with GATEHOUSE_AUDIT_KEY set, each event's hash is an HMAC under a key
derived from it, so someone who can write the database but has not the key cannot rewrite a row
and recompute the hashes after it. Found by the red team: changing who decided and recomputing
every later hash gave "chain intact". `audit verify` also holds the decisions in the audit log
against the ledger's, says plainly what it cannot detect without a key, keeps verifying rows
written before the key was set, and takes rotated keys in GATEHOUSE_AUDIT_OLD_KEYS.

Every test runs on a SQLite file and on PostgreSQL (tests/reviews/conftest.py)."""

from __future__ import annotations

import json
import os
import re
import secrets
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from mcp_host.reported import EXIT_USAGE
from reviews.audit import GENESIS, AuditEntry, AuditLog, chained_hash, event_hash
from reviews.audit_keys import AUDIT_KEY_ENV, AUDIT_OLD_KEYS_ENV, AuditKeyError, parse_audit_keys
from storage import open_database
from storage.database import migrate
from tests.reviews.review_support import (
    EMAIL_REQUEST,
    TEST_DB_URL,
    email_servers,
    gatehouse,
    services_for,
)

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

# The audit store's schema as the releases before the keyed chain created it.
_UNKEYED_SCHEMA = (
    (
        """CREATE TABLE IF NOT EXISTS audit_log (
        seq INTEGER PRIMARY KEY, at TEXT NOT NULL, kind TEXT NOT NULL, thread_id TEXT,
        review_id TEXT, actor TEXT, data TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL)""",
        "CREATE TABLE IF NOT EXISTS audit_head (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER, hash TEXT)",
        f"INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, '{GENESIS}') ON CONFLICT (id) DO NOTHING",
    ),
)


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    value = secrets.token_hex(32)
    monkeypatch.setenv(AUDIT_KEY_ENV, value)
    monkeypatch.delenv(AUDIT_OLD_KEYS_ENV, raising=False)
    return value


@pytest.fixture
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(AUDIT_KEY_ENV, raising=False)
    monkeypatch.delenv(AUDIT_OLD_KEYS_ENV, raising=False)


def database(data: Path) -> str:
    return os.environ.get(TEST_DB_URL) or str(data / "gatehouse.db")


def keyed_log(data: Path) -> AuditLog:
    """The audit log as the app opens it: keyed with whatever the environment holds."""
    return AuditLog(
        database(data),
        keys=parse_audit_keys(os.environ.get(AUDIT_KEY_ENV), os.environ.get(AUDIT_OLD_KEYS_ENV)),
    )


def decide_one_review(data: Path) -> tuple[str, int]:
    """A real request that waits for review, approved by ``reviewer``: its review id and the
    seq of its ``decision`` event."""
    with services_for(data, servers=email_servers(data)) as services:
        paused = services.requests.ask(EMAIL_REQUEST)
        assert paused.final_output.review is not None
        review_id = paused.final_output.review.id
        services.reviews.decide(review_id, reviewer="reviewer", approve=True)
        decision = next(e for e in services.audit.events() if e.kind == "decision")
    assert decision.actor == "reviewer"
    return review_id, decision.seq


def _rows(data: Path) -> list[dict[str, Any]]:
    log = AuditLog(database(data))
    try:
        with log.database.read() as conn:
            return [dict(row) for row in conn.execute("SELECT * FROM audit_log ORDER BY seq").fetchall()]
    finally:
        log.close()


def _unkeyed_hash(row: dict[str, Any], prev: str) -> str:
    """A row's hash without a key, in the form it was written in (reviews/audit_hashes.py)."""
    content = (row["at"], row["kind"], row["thread_id"], row["review_id"], row["actor"], row["data"])
    if row["hash_format"] == 1:
        return event_hash(prev, row["seq"], *content)
    return chained_hash(row["chain"], row["link"], row["seq"], prev, *content)


def rewrite_without_the_key(folder: Path, seq: int, *, downgrade: bool = False, **changes: Any) -> None:
    """What someone who can write the database but has not the key does: change row ``seq``,
    recompute its hash and every later one of its chain (unkeyed, as anyone can) and move the
    chain's head to the new last hash. ``downgrade``: also mark the rewritten rows as written
    without a key, as rows before the key was set are."""
    rows = _rows(folder)
    target = next(row for row in rows if row["seq"] == seq)
    chain = sorted((r for r in rows if r["chain"] == target["chain"]), key=lambda r: r["link"])
    prev = next((r["hash"] for r in chain if r["link"] == target["link"] - 1), GENESIS)
    log = AuditLog(database(folder))
    try:
        with log.database.write() as conn:
            for row in (r for r in chain if r["link"] >= target["link"]):
                if row["seq"] == seq:
                    row |= changes
                digest = _unkeyed_hash(row, prev)
                conn.execute(
                    "UPDATE audit_log SET actor = ?, data = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                    (row["actor"], row["data"], prev, digest, row["seq"]),
                )
                if downgrade:
                    conn.execute("UPDATE audit_log SET key_id = NULL WHERE seq = ?", (row["seq"],))
                prev = digest
            conn.execute("UPDATE audit_chains SET hash = ? WHERE chain = ?", (prev, target["chain"]))
    finally:
        log.close()


def rewrite_the_ledger(data: Path, review_id: str, reviewer: str) -> None:
    """The ledger's record of who decided, changed to agree with a rewritten audit log."""
    log = AuditLog(database(data))
    try:
        with log.database.write() as conn:
            conn.execute(
                "UPDATE review_decisions SET reviewer = ? WHERE review_id = ?", (reviewer, review_id)
            )
            conn.execute("UPDATE reviews SET decided_by = ? WHERE id = ?", (reviewer, review_id))
    finally:
        log.close()


def verify(data: Path, *args: str) -> tuple[int, str]:
    ran = gatehouse(data, "audit", "verify", *args)
    return ran.returncode, ran.stdout + ran.stderr


@pytest.mark.parametrize(
    ("ledger_too", "downgrade"),
    [
        pytest.param(False, False, id="audit-rows-only"),
        pytest.param(True, False, id="audit-rows-and-the-ledger"),
        pytest.param(True, True, id="rows-marked-as-written-without-a-key"),
    ],
)
def test_who_decided_rewritten_with_every_later_hash_recomputed_fails_verify_when_the_log_is_keyed(
    data_dir: Path, key: str, ledger_too: bool, downgrade: bool
) -> None:
    review_id, seq = decide_one_review(data_dir)
    assert verify(data_dir)[0] == 0

    rewrite_without_the_key(data_dir, seq, downgrade=downgrade, actor="mallory")
    if ledger_too:
        rewrite_the_ledger(data_dir, review_id, "mallory")

    code, out = verify(data_dir)
    assert code == 1, out
    assert "TAMPERED" in out
    assert re.search(rf"\brows? {seq}\b", out), out
    assert key not in out


def test_without_a_key_verify_says_a_rewrite_cannot_be_detected_and_points_to_anchors(
    data_dir: Path, no_key: None
) -> None:
    review_id, seq = decide_one_review(data_dir)
    rewrite_without_the_key(data_dir, seq, actor="mallory")
    rewrite_the_ledger(data_dir, review_id, "mallory")

    code, out = verify(data_dir)
    assert code == 0, out
    assert "cannot be detected" in out and AUDIT_KEY_ENV in out and "anchor" in out

    code, out = verify(data_dir, "--json")
    report = json.loads(out)
    assert report["ok"] is True
    assert any("cannot be detected" in warning for warning in report["warnings"])


@pytest.mark.parametrize(
    "tamper",
    ["audit-actor", "audit-action", "ledger-reviewer", "ledger-decided-by"],
)
def test_a_decision_changed_on_one_side_only_is_caught_against_the_other_even_without_a_key(
    data_dir: Path, no_key: None, tamper: str
) -> None:
    review_id, seq = decide_one_review(data_dir)
    assert verify(data_dir)[0] == 0
    decision = next(row for row in _rows(data_dir) if row["seq"] == seq)
    log = AuditLog(database(data_dir))
    try:
        if tamper == "audit-actor":
            rewrite_without_the_key(data_dir, seq, actor="mallory")
        elif tamper == "audit-action":
            data = json.loads(decision["data"]) | {"action": "reject"}
            rewrite_without_the_key(data_dir, seq, data=json.dumps(data, sort_keys=True))
        else:
            column = "reviewer" if tamper == "ledger-reviewer" else "decided_by"
            table, where = ("review_decisions", "review_id") if column == "reviewer" else ("reviews", "id")
            with log.database.write() as conn:
                conn.execute(f"UPDATE {table} SET {column} = 'mallory' WHERE {where} = ?", (review_id,))
    finally:
        log.close()

    code, out = verify(data_dir)
    assert code == 1, out
    assert "ledger" in out and review_id in out


def test_a_log_written_before_the_key_keeps_verifying_and_rows_after_it_are_keyed(
    data_dir: Path, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A database an earlier release wrote: the unkeyed schema, two rows chained without a key.
    db = open_database(database(data_dir))
    try:
        migrate(db, "audit", _UNKEYED_SCHEMA)
        prev = GENESIS
        with db.write() as conn:
            for seq in (1, 2):
                at, body = f"2026-01-0{seq}T00:00:00.000+00:00", json.dumps({"n": seq})
                digest = event_hash(prev, seq, at, "event", "t", None, "reviewer", body)
                conn.execute(
                    "INSERT INTO audit_log (seq, at, kind, thread_id, actor, data, prev_hash, hash)"
                    " VALUES (?, ?, 'event', 't', 'reviewer', ?, ?, ?)",
                    (seq, at, body, prev, digest),
                )
                prev = digest
            conn.execute("UPDATE audit_head SET seq = 2, hash = ? WHERE id = 1", (prev,))
    finally:
        db.close()

    log = keyed_log(data_dir)
    try:
        log.append_all([AuditEntry("event", {"n": n}, thread_id="t", actor="reviewer") for n in (3, 4)])
        events = log.events()
    finally:
        log.close()
    assert [e.key_id is None for e in events] == [True, True, False, False]
    assert events[2].prev_hash == events[1].hash

    code, out = verify(data_dir, "--json")
    report = json.loads(out)
    assert code == 0, out
    assert report["problems"] == []
    assert any("rows 1..2" in warning for warning in report["warnings"])

    # The keyed rows hold against a rewrite; so does the last unkeyed row, which they follow.
    rewrite_without_the_key(data_dir, 3, actor="mallory")
    code, out = verify(data_dir)
    assert code == 1 and re.search(r"\brows? 3\b", out), out


def test_a_keyed_log_rewritten_whole_without_the_key_is_never_called_keyed_and_the_limit_is_named(
    data_dir: Path, key: str
) -> None:
    """The one rewrite the keyed chain cannot show by itself: every row, from the first, made
    to look written before the key was set. Verify names that limit; an anchor shows it."""
    log = keyed_log(data_dir)
    for n in range(3):
        log.append("event", {"n": n}, actor="reviewer")
    log.close()
    anchored = gatehouse(data_dir, "audit", "anchor")
    assert anchored.returncode == 0, anchored.stderr

    rewrite_without_the_key(data_dir, 1, downgrade=True, actor="mallory")

    code, out = verify(data_dir)
    assert code == 0, out
    assert f"no row is chained with {AUDIT_KEY_ENV}" in out and "rewritten" in out and "anchor" in out
    code, out = verify(data_dir, "--anchor", anchored.stdout.strip())
    assert code == 1 and "row 3 does not match the anchor" in out


def test_after_the_key_is_rotated_rows_and_anchors_made_with_the_old_key_verify_with_it(
    data_dir: Path, key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = keyed_log(data_dir)
    log.append("event", {"n": 1}, actor="reviewer")
    log.close()
    anchored = gatehouse(data_dir, "audit", "anchor")
    assert anchored.returncode == 0, anchored.stderr

    monkeypatch.setenv(AUDIT_KEY_ENV, secrets.token_hex(32))
    monkeypatch.setenv(AUDIT_OLD_KEYS_ENV, key)
    log = keyed_log(data_dir)
    log.append("event", {"n": 2}, actor="reviewer")
    first, second = log.events()
    log.close()
    assert first.key_id and second.key_id and first.key_id != second.key_id

    code, out = verify(data_dir, "--anchor", anchored.stdout.strip())
    assert code == 0, out
    assert "chain intact" in out and "1 anchor holds" in out

    # Without the old key, its rows cannot be checked: said so, naming where the key goes.
    monkeypatch.delenv(AUDIT_OLD_KEYS_ENV)
    code, out = verify(data_dir)
    assert code == 2, out
    assert "row 1" in out and AUDIT_OLD_KEYS_ENV in out and first.key_id in out
    assert "intact" not in out


def test_keyed_appenders_on_separate_connections_make_unbroken_keyed_chains(data_dir: Path, key: str) -> None:
    logs = [keyed_log(data_dir) for _ in range(4)]
    try:

        def append_many(number: int) -> list[int]:
            return [
                e.seq
                for n in range(20)
                for e in logs[number].append_all(
                    [AuditEntry("step", {"by": number, "n": n, "part": p}) for p in range(1 + n % 3)]
                )
            ]

        with ThreadPoolExecutor(len(logs)) as pool:
            places = [seq for taken in pool.map(append_many, range(len(logs))) for seq in taken]

        assert sorted(places) == list(range(1, len(places) + 1))
        report = logs[0].verify()
        assert report.ok and report.problems == [] and report.warnings == []
        keys = logs[0].keys
        assert keys is not None
        assert {e.key_id for e in logs[0].events()} == {keys.current.key_id}
    finally:
        for log in logs:
            log.close()


@pytest.fixture
def short_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(AUDIT_KEY_ENV, "too-short")
    yield


def test_an_audit_key_too_short_is_refused_by_the_app_and_the_command_line_naming_the_variable(
    data_dir: Path, short_key: None
) -> None:
    with pytest.raises(AuditKeyError, match=AUDIT_KEY_ENV), services_for(data_dir):
        pass
    code, out = verify(data_dir)
    assert code == 2 and AUDIT_KEY_ENV in out and "too short" in out
    with pytest.raises(AuditKeyError, match=AUDIT_OLD_KEYS_ENV):
        parse_audit_keys(secrets.token_hex(32), f"{secrets.token_hex(32)},short")
    with pytest.raises(AuditKeyError, match=AUDIT_KEY_ENV):
        parse_audit_keys(None, secrets.token_hex(32))
    assert AuditKeyError.exit_code == EXIT_USAGE
