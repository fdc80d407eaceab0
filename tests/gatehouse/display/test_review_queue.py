"""`gatehouse reviews list` as text: each row shows the arguments a reviewer decides on, compact
and cut to a width, beside the proposal when a reviewer's edit ran instead (the command end to
end, with a secret in them: tests/reviews/test_review_listing.py)."""

from __future__ import annotations

from typing import Any

from gatehouse.display.review_text import ARGUMENTS_WIDTH, render_queue


def _row(**fields: Any) -> dict[str, Any]:
    arguments = {"to": "bob@example.com", "subject": "hi"}
    return {
        "id": "t-1-r1",
        "status": "pending",
        "seconds_left": 600,
        "overdue": False,
        "category": "sends messages",
        "requester": "ada",
        "server": "email",
        "capability": "send_email",
        "arguments": arguments,
        "proposed_arguments": arguments,
        "flags": [],
        "effect_check": None,
    } | fields


def test_a_row_shows_the_arguments_as_compact_json() -> None:
    [line] = render_queue({"status": None, "reviews": [_row()]}).splitlines()

    assert 'email/send_email  args: {"to": "bob@example.com", "subject": "hi"}  flags: -' in line


def test_long_arguments_are_cut_with_an_ellipsis() -> None:
    long = {"body": "word " * 200}
    row = _row(arguments=long, proposed_arguments=long)
    [line] = render_queue({"status": None, "reviews": [row]}).splitlines()

    shown = line.split("args: ", 1)[1].split("  flags: ")[0]
    assert len(shown) == ARGUMENTS_WIDTH
    assert shown.startswith('{"body": "word word') and shown.endswith("…")


def test_what_ran_is_shown_beside_the_proposal_when_a_reviewer_edited_it() -> None:
    row = _row(
        status="executed",
        seconds_left=None,
        arguments={"to": "bob@example.com", "subject": "hello"},
        effect_check={"status": "verified", "detail": "read back"},
    )

    [line] = render_queue({"status": None, "reviews": [row]}).splitlines()

    assert (
        'args: {"to": "bob@example.com", "subject": "hello"}'
        '  proposed: {"to": "bob@example.com", "subject": "hi"}  flags: -'
    ) in line
    # The effect still ends the row.
    assert line.endswith("effect: verified")


def test_no_arguments_show_as_empty_braces_and_a_line_break_stays_in_its_row() -> None:
    rows = [
        _row(arguments={}, proposed_arguments={}),
        _row(id="t-2-r1", arguments={"body": "hi\nstatus: ok"}),
    ]
    lines = render_queue({"status": None, "reviews": rows}).splitlines()

    # (Control and invisible characters are escaped where the command prints: gatehouse/cli.)
    assert len(lines) == 2
    assert "args: {}  flags: -" in lines[0]
    assert 'args: {"body": "hi\\nstatus: ok"}' in lines[1]
