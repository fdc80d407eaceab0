"""Audit anchors: every chain's last row signed with a key kept outside the database, so
truncating the log (the newest rows, or all of them) is caught although the chain inside stays
whole. (The anchors of logs with several chains: tests/reviews/test_audit_chains.py.)

Every test runs on a SQLite file and on PostgreSQL (tests/reviews/conftest.py)."""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

import pytest

from gatehouse.cli import main
from reviews.audit import GENESIS, AuditLog
from reviews.audit_keys import audit_keys_from
from tests.reviews.review_support import TEST_DB_URL, run_sql

# One process appending one event at a time: every row is in chain 1, at the link equal to its seq.
TRUNCATE_TO_ROW_3 = (
    "DELETE FROM audit_log WHERE seq > 3",
    "UPDATE audit_chains SET link = 3, hash = (SELECT hash FROM audit_log WHERE seq = 3) WHERE chain = 1",
)
WIPE_AND_RESET = ("DELETE FROM audit_log", f"UPDATE audit_chains SET link = 0, hash = '{GENESIS}'")
# The variable docs/operations.md documents for the anchor key.
AUDIT_KEY_ENV = "GATEHOUSE_AUDIT_KEY"


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    value = secrets.token_hex(32)
    monkeypatch.setenv(AUDIT_KEY_ENV, value)
    return value


def database(data: Path) -> str:
    return os.environ.get(TEST_DB_URL) or str(data / "gatehouse.db")


def append_events(data: Path, count: int) -> None:
    # As the app appends: chained with the audit key when one is set.
    log = AuditLog(database(data), keys=audit_keys_from(os.environ))
    try:
        for n in range(count):
            log.append("event", {"n": n}, thread_id="t", actor="reviewer")
    finally:
        log.close()


def gatehouse(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> tuple[int, str, str]:
    """`gatehouse audit ARGS` in this process, on the test's database."""
    code = main(["audit", *args, "--db", database(data)])
    out, err = capsys.readouterr()
    return code, out, err


def anchor(capsys: pytest.CaptureFixture[str], data: Path, *args: str) -> str:
    code, out, err = gatehouse(capsys, data, "anchor", *args)
    assert code == 0, err
    assert out.count("\n") == 1
    return out.strip()


def test_deleting_the_newest_rows_and_rewinding_the_head_fails_verify_against_an_anchor(
    data_dir: Path, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    append_events(data_dir, 5)
    held = anchor(capsys, data_dir)
    [[chain, link, seq, _]] = json.loads(held)["chains"]
    assert (chain, link, seq) == (1, 5, 5)

    run_sql(data_dir, *TRUNCATE_TO_ROW_3)

    # The chain inside the database cannot see it: the head agrees with the last kept row.
    assert gatehouse(capsys, data_dir, "verify")[0] == 0
    code, out, err = gatehouse(capsys, data_dir, "verify", "--anchor", held)
    assert code == 1, err
    assert "TAMPERED" in out
    assert "ends at row 3" in out and "up to row 5" in out


def test_wiping_every_row_and_resetting_the_head_fails_verify_against_an_anchor(
    data_dir: Path, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    append_events(data_dir, 5)
    held = anchor(capsys, data_dir)

    run_sql(data_dir, *WIPE_AND_RESET)
    assert gatehouse(capsys, data_dir, "verify")[0] == 0
    code, out, _ = gatehouse(capsys, data_dir, "verify", "--anchor", held)
    assert code == 1
    assert "up to row 5" in out and "the log is empty" in out

    # A fresh chain grown back past the anchored row is a different chain.
    append_events(data_dir, 6)
    assert gatehouse(capsys, data_dir, "verify")[0] == 0
    code, out, _ = gatehouse(capsys, data_dir, "verify", "--anchor", held)
    assert code == 1
    assert "does not match the anchor" in out and "holds row 5 at its place (chain 1, link 5)" in out


def test_a_log_that_grew_after_its_anchor_passes_verify_against_it(
    data_dir: Path, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    append_events(data_dir, 5)
    held = anchor(capsys, data_dir)
    append_events(data_dir, 3)

    code, out, err = gatehouse(capsys, data_dir, "verify", "--anchor", held, "--json")

    assert code == 0, err
    assert json.loads(out) == {
        "ok": True,
        "events": 8,
        "problems": [],
        "unverified": [],
        "warnings": [],
        "anchors": 1,
    }


def test_every_anchor_in_an_anchors_file_is_checked_and_the_key_is_never_written(
    data_dir: Path, key: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    anchors = tmp_path / "outside" / "anchors.jsonl"
    append_events(data_dir, 2)
    first = anchor(capsys, data_dir, "--append", str(anchors))
    append_events(data_dir, 5)
    second = anchor(capsys, data_dir, "--append", str(anchors))
    assert anchors.read_text(encoding="utf-8").splitlines() == [first, second]
    assert key not in anchors.read_text(encoding="utf-8") + first + second

    code, out, err = gatehouse(capsys, data_dir, "verify", "--anchor", str(anchors))
    assert code == 0, err
    assert "2 anchors hold" in out

    run_sql(data_dir, *TRUNCATE_TO_ROW_3)
    code, out, err = gatehouse(capsys, data_dir, "verify", "--anchor", str(anchors))
    assert code == 1
    assert "ends at row 3" in out and "up to row 7" in out
    assert "row 2" not in out
    assert key not in out + err


def test_anchor_and_verify_refuse_without_a_key_and_name_the_variable(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    append_events(data_dir, 1)
    monkeypatch.setenv(AUDIT_KEY_ENV, secrets.token_hex(32))
    held = anchor(capsys, data_dir)
    monkeypatch.delenv(AUDIT_KEY_ENV)

    for args in (("anchor",), ("verify", "--anchor", held)):
        code, out, err = gatehouse(capsys, data_dir, *args)
        assert code == 2
        assert out == ""
        assert err.count("\n") == 1 and AUDIT_KEY_ENV in err


def _edited(anchor_line: str, **changes: Any) -> str:
    return json.dumps(json.loads(anchor_line) | changes)


def test_an_edited_anchor_or_one_signed_with_another_key_is_refused_with_exit_2(
    data_dir: Path, key: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    append_events(data_dir, 5)
    held = anchor(capsys, data_dir)
    rows = AuditLog(database(data_dir))
    try:
        row_3 = rows.events()[2]
    finally:
        rows.close()
    # Someone who truncated to row 3 moves the anchor back with it.
    moved = _edited(held, chains=[[1, 3, 3, row_3.hash]])

    code, out, err = gatehouse(capsys, data_dir, "verify", "--anchor", moved)
    assert code == 2
    assert out == "" and "signature" in err and err.count("\n") == 1

    monkeypatch.setenv(AUDIT_KEY_ENV, secrets.token_hex(32))
    code, _, err = gatehouse(capsys, data_dir, "verify", "--anchor", held)
    assert code == 2
    assert "signature" in err


def test_a_tampered_log_is_never_anchored(
    data_dir: Path, key: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    anchors = tmp_path / "anchors.jsonl"
    append_events(data_dir, 5)
    run_sql(data_dir, """UPDATE audit_log SET data = '{"n": 99}' WHERE seq = 2""")

    code, out, _ = gatehouse(capsys, data_dir, "anchor", "--append", str(anchors))

    assert code == 1
    assert "row 2 was edited" in out
    assert not anchors.exists()


@pytest.mark.parametrize(
    ("content", "named"),
    [
        pytest.param(None, "cannot read", id="missing"),
        pytest.param(b"", "holds no anchors", id="empty"),
        pytest.param(b'{"seq": 1}\n', ":1:", id="incomplete"),
        pytest.param(
            b'{"chains": [[1, 1]], "at": "", "hmac": "' + b"0" * 64 + b'"}\n', ":1:", id="chain-incomplete"
        ),
        pytest.param(b"[" * 5000 + b"]" * 5000 + b"\n", ":1:", id="nested-5000-deep"),
        pytest.param(b'{"seq": 1, "at": "caf\xe9"}\n', "not valid UTF-8", id="not-utf-8"),
    ],
)
def test_an_anchors_file_that_cannot_be_read_is_exit_2_naming_file_and_line(
    data_dir: Path,
    key: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    content: bytes | None,
    named: str,
) -> None:
    append_events(data_dir, 1)
    anchors = tmp_path / "anchors.jsonl"
    if content is not None:
        anchors.write_bytes(content)

    code, out, err = gatehouse(capsys, data_dir, "verify", "--anchor", str(anchors))

    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and str(anchors) in err and named in err
