"""What a request's verb says is what to do, not how: a switch (prettyPrint, includeContent) is no
parameter the verb "open" or "show" names, or every tool with such an option would be named by
every read. What to leave out (excludePaths) takes a path only when the request says to leave it
out, and a folder's name inside a path ("Projects/Apollo.md") is no name to look for. Made-up
server shaped like an Obsidian vault's (mcpvault)."""

from __future__ import annotations

from graph.context import Limits
from graph.planner.arguments import extract_arguments
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from graph.planner.scoring import rank
from tests.capabilities import tool

_PATH = {"type": "string", "description": "Path to the note relative to vault root"}
_PRETTY = {"type": "boolean", "description": "Format JSON response with indentation", "default": False}
VAULT = [
    tool("vault", "read_note", "Read a note from the vault", {"path": _PATH, "prettyPrint": _PRETTY}, ["path"]),
    tool("vault", "search_notes", "Search for notes in the vault by content or frontmatter",
         {"query": {"type": "string", "description": "Search query text"},
          "searchContent": {"type": "boolean", "description": "Search in note content", "default": True},
          "excludePaths": {"type": "array", "items": {"type": "string"},
                           "description": "Skip files under these subtrees"},
          "prettyPrint": _PRETTY}, ["query"]),
    tool("vault", "get_frontmatter", "Extract frontmatter from a note without reading the content",
         {"path": _PATH, "prettyPrint": _PRETTY}, ["path"]),
]  # fmt: skip
SEARCH = VAULT[1].input_schema


def test_opening_a_note_by_its_path_reads_it_without_asking_which_tool() -> None:
    selection = DeterministicPlanner().select(
        PlanningRequest(text="Can you open Projects/Apollo.md from my notes?"), VAULT, Limits()
    )

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "vault__read_note"
    assert selection.ambiguous_with is None


def test_a_path_the_request_reads_is_not_what_a_search_leaves_out_nor_its_folder_a_name() -> None:
    extraction = extract_arguments(SEARCH, "Can you open Projects/Apollo.md from my notes?")

    assert "excludePaths" not in extraction.arguments
    assert extraction.arguments.get("query") != "Projects"


def test_what_the_request_says_to_leave_out_is_left_out() -> None:
    for text in (
        "Search the vault for Priya, excluding Archive/",
        "find notes about Priya but skip Archive/",
    ):
        assert extract_arguments(SEARCH, text).arguments.get("excludePaths") == ["Archive/"], text


def test_a_switch_is_not_named_by_the_requests_verb() -> None:
    for text in ("Show me Inbox.md", "open Inbox.md"):
        for scored in rank(VAULT, text, "tool", []):
            assert not any("prettyPrint" in reason for reason in scored.reasons), (text, scored.reasons)
