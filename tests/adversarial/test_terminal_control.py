"""Terminal control sequences from a server never reach the operator's terminal raw.

A tool's output, description or schema can carry ANSI/OSC escape sequences, C1 controls,
carriage returns and backspaces that would rewrite what the terminal shows (a fake
"status: ok"), write the clipboard or hide text. The policy flags them like invisible
characters, so such output waits for a reviewer; and whatever the CLI prints shows them as
visible ``\\uXXXX`` escapes, in text and in JSON.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.adversarial.harness import Gatehouse, control_characters, gatehouse_with
from tests.adversarial.terminal_output_server import FORGED_OUTPUT, VISIBLE_MARKERS

# Starts processes of its own (servers over stdio, the CLI): not in `make quick`.
pytestmark = pytest.mark.processes

BOARD_REQUEST = "Read the deploy status board"


@pytest.fixture
def board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Gatehouse:
    return gatehouse_with(tmp_path, monkeypatch, capsys, {"board": "terminal_output_server"})


@pytest.fixture
def reminders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Gatehouse:
    return gatehouse_with(tmp_path, monkeypatch, capsys, {"reminders": "escape_description_server"})


def _status_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("status:")]


def test_output_with_terminal_control_sequences_waits_for_a_reviewer_flagged_suspicious(
    board: Gatehouse,
) -> None:
    printed = board.run("ask", "--json", BOARD_REQUEST)

    assert printed.code == 0, printed.err
    output = printed.json()
    assert output["status"] == "needs_review", output["response"]
    assert output["review"]["stage"] == "untrusted_output"
    flags = [f for f in output["review"]["flags"] if f["code"] == "suspicious_text"]
    assert flags and {f["severity"] for f in flags} == {"high"}
    assert "control characters" in flags[0]["message"]
    for shown in ("U+001B", "U+009B", "U+0008", "U+000D"):
        assert shown in flags[0]["message"]


def test_the_text_output_of_a_held_request_has_no_control_byte_and_one_status_line(board: Gatehouse) -> None:
    printed = board.run("ask", BOARD_REQUEST)

    assert printed.code == 0, printed.err
    assert control_characters(printed.out + printed.err) == []
    assert _status_lines(printed.out) == ["status:     needs_review"]


def test_released_output_shows_every_sequence_as_a_visible_escape_and_forges_no_status_line(
    board: Gatehouse,
) -> None:
    review_id = board.run("ask", "--json", BOARD_REQUEST).json()["review"]["id"]

    printed = board.run("reviews", "decide", review_id, "--approve", "--reviewer", "reviewer")

    assert printed.code == 0, printed.err
    assert control_characters(printed.out + printed.err) == []
    for marker in VISIBLE_MARKERS:
        assert marker in printed.out, marker
    assert "[untrusted output, released by reviewer]" in printed.out
    # The server's own "status:" lines stay inside the response, indented under it.
    first = next(line for line in printed.out.splitlines() if line.lstrip().startswith("status:"))
    assert first == "status:   ok"
    lines = printed.out.splitlines()
    response = lines.index(next(line for line in lines if line.startswith("response:")))
    fields = [line.split(":")[0] for line in lines if not line.startswith(" ")]
    # Each field once, at the margin; every line of the server's text is indented under it.
    assert fields == list(dict.fromkeys(fields)), printed.out
    assert lines[response + 1].startswith(" "), printed.out
    assert [line for line in lines if line.startswith("status:")] == ["status:   ok"], printed.out


def test_json_output_escapes_c1_and_line_separators_and_keeps_the_text_exact(board: Gatehouse) -> None:
    review_id = board.run("ask", "--json", BOARD_REQUEST).json()["review"]["id"]

    printed = board.run("reviews", "decide", review_id, "--approve", "--reviewer", "reviewer", "--json")

    assert printed.code == 0, printed.err
    assert control_characters(printed.out) == []
    assert "\\u009b2J" in printed.out and "\\u2028" in printed.out
    response = json.loads(printed.out)["final_output"]["response"]
    assert FORGED_OUTPUT in response


def test_a_description_with_escape_sequences_is_flagged_before_the_tool_runs(reminders: Gatehouse) -> None:
    printed = reminders.run("ask", "--json", "List the reminders")

    output = printed.json()
    assert output["status"] == "needs_review", output["response"]
    assert output["review"]["stage"] == "before_execution"
    messages = [f["message"] for f in output["review"]["flags"] if f["code"] == "suspicious_text"]
    assert any("description: control characters U+000D, U+001B" in m for m in messages), messages
    assert any("input schema" in m and "control characters U+0007, U+001B" in m for m in messages), messages


def test_policy_explain_and_the_review_queue_print_no_control_byte_for_such_a_description(
    reminders: Gatehouse,
) -> None:
    explained = reminders.run("policy", "explain", "reminders__list_reminders")
    reminders.run("ask", "List the reminders")
    queue = reminders.run("reviews", "list")

    assert explained.code == 0, explained.err
    assert explained.out.startswith("REVIEW")
    assert "control characters" in explained.out
    assert queue.code == 0, queue.err
    assert "suspicious_text" in queue.out
    assert control_characters(explained.out + explained.err + queue.out + queue.err) == []


def test_the_audit_export_prints_no_control_byte_and_keeps_the_recorded_text_exact(board: Gatehouse) -> None:
    # Text pasted into a request (here with a C1 CSI and an OSC 52) is kept verbatim in the log.
    pasted = "Read the deploy status board \x9b2J\x1b]52;c;ZXZpbA==\x07"
    board.run("ask", pasted)

    jsonl = board.run("audit", "export", "--format", "jsonl")
    exported = board.run("audit", "export", "--format", "csv")

    assert control_characters(jsonl.out + exported.out) == []
    requests = [e for e in map(json.loads, jsonl.out.splitlines()) if e["kind"] == "request"]
    assert [e["data"]["text"] for e in requests] == [pasted]
    rows = list(csv.DictReader(io.StringIO(exported.out)))
    assert [json.loads(row["data"])["text"] for row in rows if row["kind"] == "request"] == [pasted]
