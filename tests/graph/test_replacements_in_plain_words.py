"""Replacements stated in plain words ("change A to B", "replace A with B", "swap A for B",
"A -> B", several joined by "and") fill an edit tool's list of replacements, or its two text
properties, with the words each came from; a request that leaves out one side is still asked."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

from graph.builder import CompiledGraph
from graph.planner.arguments import Extraction, extract_arguments
from graph.planner.provenance import with_provenance
from mcp_host.sdk_client import SdkMcpClient
from tests.support import ask

STRING = {"type": "string"}


def edits_tool(old_field: str = "oldText", new_field: str = "newText", **described: str) -> dict[str, Any]:
    """server-filesystem's edit_file, with the item's two fields named (and described) as given."""
    item = {
        "type": "object",
        "properties": {
            old_field: {
                "type": "string",
                "description": described.get("old", "Text to search for - must match exactly"),
            },
            new_field: {"type": "string", "description": described.get("new", "Text to replace with")},
        },
        "required": [old_field, new_field],
    }
    return {
        "type": "object",
        "properties": {
            "path": STRING,
            "edits": {"type": "array", "items": item},
            "dryRun": {
                "type": "boolean",
                "default": False,
                "description": "Preview changes using git-style diff",
            },
        },
        "required": ["path", "edits"],
    }


def read(tool_schema: dict[str, Any], text: str) -> Extraction:
    return with_provenance(extract_arguments(tool_schema, text), text, tool_schema)


@pytest.mark.parametrize(
    ("text", "path", "edits"),
    [
        (
            "In /x/todo.txt, change 'book the review meeting' to 'book the design review'",
            "/x/todo.txt",
            [{"oldText": "book the review meeting", "newText": "book the design review"}],
        ),
        (
            "In /x/reports/q4.md replace the word 'draft' with 'final'",
            "/x/reports/q4.md",
            [{"oldText": "draft", "newText": "final"}],
        ),
        (
            'swap "colour" for "color" in /x/style.md',
            "/x/style.md",
            [{"oldText": "colour", "newText": "color"}],
        ),
        ("in /x/notes.md: 'v1.2' -> 'v1.3'", "/x/notes.md", [{"oldText": "v1.2", "newText": "v1.3"}]),
        ("replace draft with final in /x/q4.md", "/x/q4.md", [{"oldText": "draft", "newText": "final"}]),
        # "substitute B for A" names the new text first.
        (
            "substitute 'final' for 'draft' in /x/q4.md",
            "/x/q4.md",
            [{"oldText": "draft", "newText": "final"}],
        ),
        (
            "In /x/a.md replace 'teh' with 'the' and 'recieve' with 'receive'",
            "/x/a.md",
            [{"oldText": "teh", "newText": "the"}, {"oldText": "recieve", "newText": "receive"}],
        ),
        (
            "In /x/a.md change 'Monday' to 'Tuesday', and replace 'noon' with '1pm'",
            "/x/a.md",
            [{"oldText": "Monday", "newText": "Tuesday"}, {"oldText": "noon", "newText": "1pm"}],
        ),
    ],
)
def test_replacements_stated_in_words_fill_an_edit_tools_list_of_old_and_new_text(
    text: str, path: str, edits: list[dict[str, str]]
) -> None:
    extraction = read(edits_tool(), text)

    assert extraction.arguments == {"path": path, "edits": edits}
    assert extraction.missing == []


def test_each_replacement_is_stated_with_the_words_it_came_from() -> None:
    text = "In /x/todo.txt, change 'book the review meeting' to 'book the design review'"

    extraction = read(edits_tool(), text)

    provenance = extraction.provenance["edits"]
    assert provenance.kind == "stated"
    assert "book the review meeting" in provenance.words
    assert "book the design review" in provenance.words


@pytest.mark.parametrize(
    ("old", "new", "described"),
    [
        ("old_string", "new_string", {}),
        ("old_str", "new_str", {}),
        ("find", "replace", {}),
        ("search", "replace", {}),
        ("original", "updated", {}),
        ("from", "to", {"old": "The text to find", "new": "The text to put in its place"}),
        ("target", "replacement", {"old": "Exact text to look for", "new": "What to put instead"}),
        ("a", "b", {"old": "The original text", "new": "The new text"}),
    ],
)
def test_the_old_and_new_fields_are_found_by_their_names_or_descriptions_in_any_spelling(
    old: str, new: str, described: dict[str, str]
) -> None:
    extraction = read(edits_tool(old, new, **described), "In /x/q4.md replace 'draft' with 'final'")

    assert extraction.arguments["edits"] == [{old: "draft", new: "final"}]
    assert extraction.provenance["edits"].kind == "stated"


def test_a_tool_with_two_text_properties_for_the_old_and_new_text_takes_the_replacement() -> None:
    tool_schema = {
        "type": "object",
        "properties": {"path": STRING, "find": STRING, "replace": STRING},
        "required": ["path", "find", "replace"],
    }

    extraction = read(tool_schema, "In notes.md replace 'teh' with 'the'")

    assert extraction.arguments == {"path": "notes.md", "find": "teh", "replace": "the"}
    assert {name: p.kind for name, p in extraction.provenance.items()} == dict.fromkeys(
        ["path", "find", "replace"], "stated"
    )


@pytest.mark.parametrize(
    "text",
    [
        "In /x/q4.md change the word draft",
        "In /x/q4.md replace 'draft'",
        "In /x/q4.md change the review meeting to the design review",
        "In /x/q4.md change draft to final version",
        # Swapping two texts with each other trades their places: no one-way replacement.
        "In /x/q4.md swap 'draft' with 'final'",
        "Edit /x/q4.md",
    ],
)
def test_a_replacement_missing_a_side_or_without_clear_boundaries_is_asked_for(text: str) -> None:
    extraction = read(edits_tool(), text)

    assert extraction.missing == ["edits"]
    assert "edits" not in extraction.arguments


def test_two_text_properties_are_asked_for_when_several_replacements_are_stated() -> None:
    tool_schema = {
        "type": "object",
        "properties": {"find": STRING, "replace": STRING},
        "required": ["find", "replace"],
    }

    extraction = extract_arguments(tool_schema, "replace 'a' with 'b' and 'c' with 'd'")

    assert extraction.missing == ["find", "replace"]


@pytest.mark.parametrize(
    "properties",
    [
        {"from_unit": STRING, "to_unit": STRING, "old_name": STRING, "new_name": STRING},
        {
            "from": {"type": "string", "description": "Language of the source text"},
            "to": {"type": "string", "description": "Language to translate into"},
        },
        {
            "from": {"type": "string", "description": "Sender"},
            "to": {"type": "string", "description": "Recipient"},
        },
    ],
)
def test_a_change_to_something_that_is_not_text_is_not_read_as_a_replacement(
    properties: dict[str, Any],
) -> None:
    tool_schema = {"type": "object", "properties": properties, "required": []}

    extraction = extract_arguments(tool_schema, "replace 'draft' with 'final'")

    assert extraction.arguments == {}


def test_an_operator_who_is_asked_for_the_edits_can_answer_with_the_replacement() -> None:
    extraction = extract_arguments(
        edits_tool(), "Edit /x/q4.md", answer="replace 'draft' with 'final'", asked=["edits"]
    )

    assert extraction.arguments["edits"] == [{"oldText": "draft", "newText": "final"}]
    assert extraction.missing == []


class Edit(BaseModel):
    old_text: str = Field(description="Text to search for")
    new_text: str = Field(description="Text to replace it with")


def _editor() -> MCPServer:
    server = MCPServer("docs")

    @server.tool(description="Edit a text document by replacing text in it.")
    def edit_document(doc_id: str, edits: list[Edit]) -> str:
        return f"edited {doc_id}"

    return server


def test_an_edit_request_to_a_real_server_waits_for_a_reviewer_with_its_replacements_stated(
    graph: CompiledGraph,
) -> None:
    with SdkMcpClient({"docs": _editor()}) as client:
        outcome = ask(graph, client, "In doc q4-report, replace the word 'draft' with 'final'")

    assert outcome.final_output.status == "needs_review", outcome.final_output.response
    assert outcome.pending is not None
    assert outcome.pending["arguments"]["edits"] == [{"old_text": "draft", "new_text": "final"}]
    assert outcome.pending["argument_provenance"]["edits"]["kind"] == "stated"
