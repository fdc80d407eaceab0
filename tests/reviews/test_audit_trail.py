"""The audit log of real requests and decisions: tampering is named by row, every event is
exported, secrets never reach it."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_host.sdk_client import SdkMcpClient
from reviews.audit import AuditLog, chained_hash
from tests.held_server import Hold, mail_server
from tests.reviews.review_support import (
    EMAIL_REQUEST,
    email_servers,
    finish,
    gatehouse,
    json_lines,
    run_sql,
    services_for,
    start_gatehouse,
)

Tamper = Callable[[sqlite3.Connection], None]


def _row(conn: sqlite3.Connection, seq: int) -> tuple[Any, ...]:
    row: tuple[Any, ...] = conn.execute(
        "SELECT seq, at, kind, thread_id, review_id, actor, data, prev_hash, hash FROM audit_log WHERE seq = ?",
        (seq,),
    ).fetchone()
    return row


def _edit(conn: sqlite3.Connection) -> None:
    conn.execute("""UPDATE audit_log SET data = '{"text": "forged"}' WHERE seq = 3""")


def _edit_and_rehash(conn: sqlite3.Connection) -> None:
    seq, at, kind, thread, review, actor, _, prev, _ = _row(conn, 3)
    data = '{"text": "forged"}'
    # One chain on SQLite: row 3 is chain 1's link 3.
    digest = chained_hash(1, 3, seq, prev, at, kind, thread, review, actor, data)
    conn.execute("UPDATE audit_log SET data = ?, hash = ? WHERE seq = 3", (data, digest))


def _delete_middle(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM audit_log WHERE seq = 3")


def _delete_last(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM audit_log WHERE seq = 5")


def _forge(conn: sqlite3.Connection, seq: int, after: str) -> None:
    """A decision by eve at row ``seq`` (chain 1's link ``seq``), chained onto the hash ``after``."""
    at, data = "2026-01-01T00:00:00.000+00:00", '{"text": "forged"}'
    digest = chained_hash(1, seq, seq, after, at, "decision", None, None, "eve", data)
    conn.execute(
        "INSERT INTO audit_log (seq, chain, link, hash_format, at, kind, actor, data, prev_hash, hash)"
        " VALUES (?, 1, ?, 2, ?, 'decision', 'eve', ?, ?, ?)",
        (seq, seq, at, data, after, digest),
    )


def _append_chained(conn: sqlite3.Connection) -> None:
    # A row that follows the chain perfectly, written without moving the chain's head.
    _forge(conn, 6, _row(conn, 5)[8])


def _insert_middle(conn: sqlite3.Connection) -> None:
    # Rows 4 and 5 move up by one, in the log and in the chain; a forged row 4 is chained onto row 3.
    for seq in (5, 4):
        conn.execute("UPDATE audit_log SET seq = ?, link = ? WHERE seq = ?", (seq + 1, seq + 1, seq))
    _forge(conn, 4, _row(conn, 3)[8])


@pytest.mark.parametrize(
    ("tamper", "named"),
    [
        pytest.param(_edit, "row 3 was edited", id="row-edited"),
        pytest.param(_edit_and_rehash, "row 4 does not follow row 3", id="row-edited-and-rehashed"),
        pytest.param(_delete_middle, "link 3 deleted (between row 2 and row 4)", id="middle-row-deleted"),
        pytest.param(_delete_last, "link 5 was deleted after row 4", id="last-row-deleted"),
        pytest.param(_append_chained, "row 6 was inserted", id="row-appended"),
        pytest.param(_insert_middle, "row 5 does not follow row 4", id="row-inserted-in-the-middle"),
    ],
)
def test_verify_catches_each_kind_of_tampering_and_names_the_row(
    tmp_path: Path, tamper: Tamper, named: str
) -> None:
    path = tmp_path / "gatehouse.db"
    audit = AuditLog(path)
    for n in range(1, 6):
        audit.append("event", {"n": n}, thread_id="t", actor="reviewer")
    assert audit.verify().ok
    audit.close()

    with sqlite3.connect(path) as conn:
        tamper(conn)

    audit = AuditLog(path)
    try:
        report = audit.verify()
    finally:
        audit.close()
    assert not report.ok
    assert any(named in problem for problem in report.problems), report.problems


@pytest.fixture
def decided_log(data_dir: Path) -> list[dict[str, Any]]:
    """A database whose audit log holds one request, its review, decision and execution."""
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        paused = services.requests.ask(EMAIL_REQUEST)
        assert paused.final_output.review is not None
        services.reviews.decide(paused.final_output.review.id, reviewer="reviewer", approve=True)
        return [event.model_dump() for event in services.audit.events()]


@pytest.mark.usefixtures("bundled_in_process")
def test_audit_verify_exits_0_on_an_intact_log_and_1_naming_the_row_after_a_hand_edit(
    data_dir: Path, decided_log: list[dict[str, Any]]
) -> None:
    intact = gatehouse(data_dir, "audit", "verify", "--json")
    assert intact.returncode == 0, intact.stderr
    report = json.loads(intact.stdout)
    assert report == {
        "ok": True,
        "events": len(decided_log),
        "problems": [],
        "unverified": [],
        "warnings": report["warnings"],
    }
    # No GATEHOUSE_AUDIT_KEY here: verify says what it cannot detect (tests/reviews/test_audit_keys.py).
    assert len(report["warnings"]) == 1 and "cannot be detected" in report["warnings"][0]

    run_sql(data_dir, "UPDATE audit_log SET actor = 'mallory' WHERE kind = 'decision'")
    decision_seq = next(e["seq"] for e in decided_log if e["kind"] == "decision")

    tampered = gatehouse(data_dir, "audit", "verify")
    assert tampered.returncode == 1, tampered.stderr
    assert "TAMPERED" in tampered.stdout
    assert f"row {decision_seq} was edited" in tampered.stdout


@pytest.mark.processes
def test_audit_export_as_csv_and_as_jsonl_contains_every_event(
    data_dir: Path, decided_log: list[dict[str, Any]]
) -> None:
    kinds = {e["kind"] for e in decided_log}
    assert {"request", "review_requested", "decision", "execution_started", "execution_result"} <= kinds
    exports = {fmt: start_gatehouse(data_dir, "audit", "export", "--format", fmt) for fmt in ("jsonl", "csv")}
    outputs = {fmt: finish(process) for fmt, process in exports.items()}
    for fmt, (code, _, err) in outputs.items():
        assert code == 0, (fmt, err)

    as_jsonl = [json.loads(line) for line in outputs["jsonl"][1].splitlines()]
    assert as_jsonl == decided_log
    as_csv = list(csv.DictReader(io.StringIO(outputs["csv"][1])))
    assert [(int(r["seq"]), r["kind"], r["hash"]) for r in as_csv] == [
        (e["seq"], e["kind"], e["hash"]) for e in decided_log
    ]
    assert [json.loads(r["data"]) for r in as_csv] == [e["data"] for e in decided_log]


def _values_of(name: str, value: Any) -> Iterator[Any]:
    """Every value stored under the key ``name``, at any depth."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == name:
                yield item
            yield from _values_of(name, item)
    elif isinstance(value, list):
        for item in value:
            yield from _values_of(name, item)


SECRET_REQUEST = "Send a message to bob@example.com api_token=abc123 saying hi"


def test_secret_named_arguments_are_redacted_in_every_audit_event(data_dir: Path) -> None:
    effects = data_dir / "effects.jsonl"
    with (
        SdkMcpClient({"slow": mail_server(effects, Hold(0))}) as pool,
        services_for(data_dir, mcp=pool) as services,
    ):
        paused = services.requests.ask(SECRET_REQUEST)
        assert paused.final_output.review is not None
        review_id = paused.final_output.review.id
        # The ledger keeps the real value: the call needs it.
        assert services.ledger.require(review_id).arguments["api_token"] == "abc123"

        done = services.reviews.decide(
            review_id,
            reviewer="reviewer",
            approve=True,
            arguments={"to": "bob@example.com", "body": "hi", "api_token": "xyz789"},
        )
        assert done.run is not None and done.run.final_output.status == "ok"
        events = [e.model_dump() for e in services.audit.events()]
        exported = services.audit.export("jsonl")

    stored = [value for event in events for value in _values_of("api_token", event["data"])]
    assert len(stored) >= 3  # the selection, the review request, the decision's edit
    assert set(map(json.dumps, stored)) == {'"***"'}
    assert "xyz789" not in exported
    assert len(json_lines(effects)) == 1


def test_a_secret_stated_in_the_request_never_reaches_the_audit_export(data_dir: Path) -> None:
    effects = data_dir / "effects.jsonl"
    with (
        SdkMcpClient({"slow": mail_server(effects, Hold(0))}) as pool,
        services_for(data_dir, mcp=pool) as services,
    ):
        paused = services.requests.ask(SECRET_REQUEST)
        assert paused.state["proposed_arguments"]["api_token"] == "abc123"
        exported = services.audit.export("jsonl")

    assert "abc123" not in exported
