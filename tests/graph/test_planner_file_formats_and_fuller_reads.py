"""A file of a format only one server says it opens ("budget.xlsx", for the one that works on
workbooks) leaves the other servers' tools out; of two reads of one server, the one that can run
as asked is run rather than asked about; "replace every 'a' with 'b'" states a replacement for a
tool whose fields are a query and its replacement. Made-up servers."""

from __future__ import annotations

from graph.context import Limits
from graph.planner.arguments import extract_arguments
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from graph.planner.scoring import rank
from tests.capabilities import tool

_PATH = {"type": "string"}
READS = {"readOnlyHint": True}
DISK = [
    tool("disk", "search_files", "Search for files whose content matches a pattern.",
         {"path": _PATH, "pattern": _PATH}, ["path", "pattern"], READS),
    tool("disk", "edit_file", "Edit a text file by replacing text.",
         {"path": _PATH, "edits": {"type": "array", "items": {"type": "object", "properties": {
             "oldText": _PATH, "newText": _PATH}, "required": ["oldText", "newText"]}}},
         ["path", "edits"]),
]  # fmt: skip
SLIDES = [
    tool("decks", "find_text", "Find slides of a PowerPoint presentation containing the query.",
         {"path": _PATH, "query": _PATH}, ["path", "query"], READS),
    tool("decks", "replace_text", "Replace text on every slide of a presentation.",
         {"path": _PATH, "query": _PATH, "replacement": {"type": "string", "description": "Text put in its place."}},
         ["path", "query", "replacement"]),
    tool("decks", "describe_deck", "The slides of a presentation, with their titles and layouts.",
         {"path": _PATH}, ["path"], READS),
    tool("decks", "describe_slide", "Describe one slide: its shapes, notes and layout.",
         {"path": _PATH, "slide": {"type": "integer"}}, ["path", "slide"], READS),
]  # fmt: skip


def test_a_file_only_one_servers_tools_say_they_open_rules_out_a_text_tool_of_another() -> None:
    best = rank(DISK + SLIDES, "Find 'churn' in pitch.pptx", "tool", [])[0]

    assert best.capability.key == "decks__find_text"


def test_a_file_of_a_text_format_names_no_server() -> None:
    ranked = rank(DISK + SLIDES, "Find 'churn' in notes.md", "tool", [])

    assert not any("format" in reason for s in ranked for reason in s.reasons)


def test_a_replacement_of_quoted_texts_after_every_fills_a_query_and_its_replacement() -> None:
    schema = SLIDES[1].input_schema

    extraction = extract_arguments(schema, "In pitch.pptx replace every 'North' with 'Nord'")

    assert extraction.arguments == {"path": "pitch.pptx", "query": "North", "replacement": "Nord"}


def test_of_two_reads_the_one_that_can_run_as_asked_runs_when_the_other_lacks_a_value() -> None:
    request = PlanningRequest(text="What slides does pitch.pptx have?")

    # Limits that make the slide's description a close second.
    selection = DeterministicPlanner().select(request, SLIDES, Limits(min_score=3.0, ambiguity_margin=5.0))

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "decks__describe_deck"
    assert selection.ambiguous_with is None


def test_of_two_reads_the_one_that_uses_every_value_the_other_uses_and_more_runs() -> None:
    request = PlanningRequest(text="Show me slide 3 of pitch.pptx")

    selection = DeterministicPlanner().select(request, SLIDES, Limits(ambiguity_margin=5.0))

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "decks__describe_slide"
    assert selection.ambiguous_with is None


def test_one_value_put_into_one_cell_is_one_row_of_one_value_for_a_property_of_rows() -> None:
    schema = {
        "type": "object",
        "properties": {
            "at": {"type": "string", "description": "Top-left cell."},
            "rows": {"type": "array", "items": {"type": "array"}, "description": "Rows of values to write."},
        },
        "required": ["at", "rows"],
    }

    extraction = extract_arguments(schema, "Put 480 into cell C9 of the grid")

    assert extraction.arguments == {"at": "C9", "rows": [[480]]}
    assert extract_arguments(schema, "Put C9 somewhere").arguments.get("rows") is None
