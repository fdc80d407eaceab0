"""The classes behind the broken invariants of the blind batch 2026-11-held-out-3, each a rule
over any manifest, proven on made-up servers: the subject of a statement and a gerund after
"to" are no orders; a file asked for in another format, or a field flipped from one value to
another, is a change no read serves; "open a X" makes one, "print two copies" prints; a file's
format named by one server's particular word ("Word") points there though "document" is
everybody's word."""

from __future__ import annotations

from graph.planner.actions import request_action
from graph.planner.scoring import rank
from graph.planner.unserved import read_cannot_serve
from tests.capabilities import tool

_TEXT = {"type": "string"}
READS = {"readOnlyHint": True}
EXTRACT = tool(
    "docs", "get_text", "Extract all text from a Word document.", {"filename": _TEXT}, ["filename"], READS
)
READ_FILE = tool("disk", "read_file", "Read a file's contents as text.", {"path": _TEXT}, ["path"], READS)
FEATURES = tool("help", "features", "What this server can do: its features.", {}, [], READS)


def test_the_subject_of_a_statement_is_no_order() -> None:
    assert request_action("What were the last two commits in /srv/repo? Messages are enough.").reads_only
    assert request_action("Names will do, nothing else").reads_only
    assert not request_action("Send the messages to bob").reads_only


def test_a_gerund_after_to_is_no_order() -> None:
    assert request_action("which product is closest to running out?").reads_only
    assert not request_action("Start running the backup").reads_only


def test_a_file_asked_for_in_another_format_is_not_served_by_a_read() -> None:
    assert read_cannot_serve(EXTRACT, "I need minutes.docx as a PDF for the board") is not None
    assert read_cannot_serve(EXTRACT, "sales.xlsx in CSV please") is not None
    # Shown as what it is, or in its own format: a read.
    assert read_cannot_serve(EXTRACT, "Show me minutes.docx as text") is None
    assert read_cannot_serve(EXTRACT, "budget.xlsx as xls") is None


def test_a_field_flipped_from_one_value_to_another_is_not_served_by_a_read() -> None:
    reason = read_cannot_serve(READ_FILE, "In /srv/app/config.json flip debug from false to true")
    assert reason is not None and "flip" in reason


def test_opening_a_new_thing_makes_it_and_printing_copies_prints() -> None:
    assert not request_action("Open a pull request from feature-search into main").reads_only
    assert not request_action("Can you open an issue about the login bug").reads_only
    assert request_action("Open the file notes.md").reads_only
    assert not request_action("Print two copies of minutes.docx").reads_only
    assert read_cannot_serve(FEATURES, "Open a pull request from feature-search into main") is not None


def test_a_files_format_named_by_one_servers_particular_word_points_to_that_server() -> None:
    sheets = tool("sheets", "insert_rows", "Insert rows or columns into an Excel worksheet of a workbook document.",
                  {"filepath": _TEXT, "start": {"type": "integer"}, "count": {"type": "integer"}},
                  ["filepath", "start"])  # fmt: skip
    notes = tool("notes", "tag_note", "Add or remove tags of a note document.",
                 {"path": _TEXT, "operation": {"type": "string", "enum": ["add", "remove"]}}, ["path", "operation"])  # fmt: skip
    word = tool("docs", "add_table", "Add a table to a Word document.",
                {"filename": _TEXT, "rows": {"type": "integer"}, "cols": {"type": "integer"}}, ["filename", "rows", "cols"])  # fmt: skip

    best = rank(
        [sheets, notes, word], "Add an empty table with three rows and two columns to letter.docx", "tool", []
    )

    assert best[0].capability.key == "docs__add_table"


def test_adding_things_is_no_sum_though_the_request_has_numbers() -> None:
    assert not request_action("add in budget.xlsx on sheet 2026 before row 3 two empty rows").reads_only
    assert request_action("add 3 and 4").reads_only
    assert request_action("Can you add up two numbers for me?").reads_only
