"""Asking what a file holds ("What's in oncall.txt?", "what does letter.docx say?") is a read of
that file, not a listing: "what's in" lists only a folder. A file of a format one server opens
names that server's words without saying them ("letter.docx" is a Word document), so a read
whose name says "document" or "text" says no more than the file does. Made-up servers whose
descriptions follow real ones (server-filesystem, office-word-mcp-server)."""

from __future__ import annotations

import pytest

from graph.context import Limits
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from graph.planner.text import concepts
from tests.capabilities import tool

_TEXT = {"type": "string"}
READS = {"readOnlyHint": True}
DISK = [
    tool("disk", "read_text_file", "Read the complete contents of a file from the file system as text.",
         {"path": _TEXT, "head": {"type": "number"}}, ["path"], READS),
    tool("disk", "list_directory", "Get a detailed listing of all files and directories in a specified path.",
         {"path": _TEXT}, ["path"], READS),
    tool("disk", "get_file_info", "Retrieve detailed metadata about a file or directory.",
         {"path": _TEXT}, ["path"], READS),
]  # fmt: skip
WORD = [
    tool("word", "get_document_text", "Extract all text from a Word document.", {"filename": _TEXT}, ["filename"]),
    tool("word", "validate_document_footnotes",
         "Validate all footnotes in document for coherence and compliance. Returns detailed report on ID "
         "conflicts, orphaned content, missing styles, etc.", {"filename": _TEXT}, ["filename"]),
    tool("word", "get_document_outline", "Get the structure of a Word document.", {"filename": _TEXT}, ["filename"]),
    tool("word", "list_available_documents", "List all .docx files in the specified directory.",
         {"directory": _TEXT}),
]  # fmt: skip
BOTH = DISK + WORD


def _chosen(text: str) -> str | None:
    selection = DeterministicPlanner().select(PlanningRequest(text=text), BOTH, Limits())
    return selection.chosen.capability.key if selection.chosen else None


@pytest.mark.parametrize(
    "text",
    [
        "What's in oncall.txt?",
        "what is in notes/oncall.txt",
        "What does todo.txt say?",
        "what's inside the file a.md?",
    ],
)
def test_asking_what_a_text_file_holds_reads_it(text: str) -> None:
    assert _chosen(text) == "disk__read_text_file"


@pytest.mark.parametrize(
    "text",
    ["What does letter.docx say?", "What's in letter.docx?", "Show me letter.docx", "read minutes.docx"],
)
def test_asking_what_a_document_holds_reads_its_text_with_its_own_servers_tool(text: str) -> None:
    assert _chosen(text) == "word__get_document_text"


def test_whats_in_a_folder_is_still_a_listing() -> None:
    assert "list" in concepts("What's in the reports folder?")
    assert "list" in concepts("what is in /srv/reports/")
    assert "read" not in concepts("What's in the reports folder?")


def test_a_file_named_later_does_not_make_a_folder_question_a_read() -> None:
    # The question's object is the folder; the file is only where it came from.
    assert "list" in concepts("What's in the reports folder, next to q3.csv?")


@pytest.mark.parametrize(
    "text", ["What's in oncall.txt?", "What does letter.docx say?", "what is in a/b/c.json"]
)
def test_what_a_file_holds_is_asked_as_a_read_not_a_listing(text: str) -> None:
    # Read as a listing, "What's in oncall.txt?" went to any tool whose description says "list"
    # (a workbook's macro reader, on the benchmark's servers) rather than to the file reader.
    assert "read" in concepts(text)
    assert "list" not in concepts(text)
