"""Arguments stated in plain words are read against the tool's schema, each with the words it
came from, instead of being asked for again; what the request does not state is still asked."""

from __future__ import annotations

from typing import Any

import pytest

from graph.planner.arguments import Extraction, extract_arguments
from graph.planner.provenance import with_provenance


def schema(required: list[str] | None = None, **properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
    }


STRING = {"type": "string"}
STRINGS = {"type": "array", "items": {"type": "string"}}


def read(tool_schema: dict[str, Any], text: str) -> Extraction:
    return with_provenance(extract_arguments(tool_schema, text), text, tool_schema)


@pytest.mark.parametrize(
    ("tool_schema", "text", "arguments", "words"),
    [
        # What a new thing is called, in words or in quotes.
        (schema(name=STRING), "create a new document and call it Q4 plan", {"name": "Q4 plan"}, "Q4 plan"),
        (
            schema(title=STRING),
            "add a note called Roadmap review to the board",
            {"title": "Roadmap review"},
            None,
        ),
        # A rename's old and new names, wherever the schema keeps them.
        (
            schema(old_name=STRING, new_name=STRING),
            "rename draft to final",
            {"old_name": "draft", "new_name": "final"},
            None,
        ),
        (
            schema(name=STRING, new_name=STRING),
            "Rename the sheet 'Q1' to 'Q1 2024'",
            {"name": "Q1", "new_name": "Q1 2024"},
            None,
        ),
        # A table named beside its noun.
        (
            schema(table_name=STRING),
            "show the columns from the orders table",
            {"table_name": "orders"},
            "orders",
        ),
        (schema(table=STRING), "count the rows in table customers", {"table": "customers"}, "customers"),
        # A range of cells, as one range or as its two ends.
        (schema(range=STRING), "read the cells from A1 to C5", {"range": "A1:C5"}, "A1 to C5"),
        (
            schema(start_cell=STRING, end_cell=STRING),
            "clear the cells from B2 through D9",
            {"start_cell": "B2", "end_cell": "D9"},
            None,
        ),
        # A list after its name.
        (schema(tags=STRINGS), "tag the note with tags a, b and c", {"tags": ["a", "b", "c"]}, "a, b, c"),
        # A quantity in the unit the property names.
        (
            schema(timeout_seconds={"type": "integer"}),
            "wait 2 minutes",
            {"timeout_seconds": 120},
            "2 minutes",
        ),
        # An SQL statement written out.
        (
            schema(sql=STRING),
            "run SELECT * FROM orders LIMIT 5",
            {"sql": "SELECT * FROM orders LIMIT 5"},
            "SELECT * FROM orders LIMIT 5",
        ),
    ],
)
def test_a_value_stated_in_plain_words_is_read_as_stated_with_its_words(
    tool_schema: dict[str, Any], text: str, arguments: dict[str, Any], words: str | None
) -> None:
    extraction = read(tool_schema, text)

    assert extraction.arguments == arguments
    assert extraction.missing == []
    assert {name: p.kind for name, p in extraction.provenance.items()} == dict.fromkeys(arguments, "stated")
    if words is not None:
        assert [p.words for p in extraction.provenance.values()] == [words]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("list the folder recursively", True),
        ("list the folder, but not recursively", False),
    ],
)
def test_a_yes_or_no_said_as_the_propertys_own_word_is_read_and_left_for_a_reviewer(
    text: str, value: bool
) -> None:
    extraction = read(schema(recursive={"type": "boolean"}), text)

    assert extraction.arguments == {"recursive": value}
    assert extraction.provenance["recursive"].kind == "derived"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("next thought needed false", False),
        ("next thought needed: false", False),
        ("next thought needed is false", False),
        ("next thought needed true", True),
        ("next thought needed = no", False),
    ],
)
def test_a_yes_or_no_written_after_the_propertys_own_words_is_that_value(text: str, value: bool) -> None:
    # sequential-thinking's nextThoughtNeeded: "needed false" was read as true, from the
    # property's words alone, and the word the operator wrote after them was dropped.
    tool = schema(nextThoughtNeeded={"type": ["boolean", "string"]})

    assert extract_arguments(tool, f"Use the thinking tool, {text}").arguments == {"nextThoughtNeeded": value}


def test_a_list_of_things_to_include_is_read_from_including_and_without() -> None:
    tool = schema(include_archived={"type": "boolean"})

    assert extract_arguments(tool, "list projects including archived ones").arguments == {
        "include_archived": True
    }
    assert extract_arguments(tool, "list projects without archived ones").arguments == {
        "include_archived": False
    }


def test_a_number_outside_the_schemas_bounds_is_reported_and_asked_for_never_clamped() -> None:
    extraction = read(
        schema(n={"type": "integer", "minimum": 1, "maximum": 10}), "give me the top 30 customers"
    )

    assert extraction.arguments == {}
    assert extraction.missing == ["n"]
    assert "30 is more than the most allowed, 10" in extraction.invalid["n"]


def test_a_whole_number_property_is_not_given_a_fraction() -> None:
    extraction = extract_arguments(schema(limit={"type": "integer"}), "limit 2.5")

    assert "limit" not in extraction.arguments


@pytest.mark.parametrize(
    ("tool_schema", "text", "missing"),
    [
        (schema(name=STRING), "create a new document", ["name"]),
        (schema(old_name=STRING, new_name=STRING), "rename the draft", ["old_name", "new_name"]),
        (schema(table_name=STRING), "show me the columns of a table", ["table_name"]),
        (schema(range=STRING), "read the spreadsheet", ["range"]),
        (schema(tags=STRINGS), "tag the note", ["tags"]),
    ],
)
def test_a_value_the_request_does_not_state_is_asked_for_not_invented(
    tool_schema: dict[str, Any], text: str, missing: list[str]
) -> None:
    extraction = extract_arguments(tool_schema, text)

    assert extraction.missing == missing
    assert extraction.arguments == {}


@pytest.mark.parametrize(
    ("tool_schema", "text", "arguments"),
    [
        (schema(min_price={"type": "number"}, max_price={"type": "number"}), "priced between 10 and 20",
         {"min_price": 10.0, "max_price": 20.0}),
        (schema(limit={"type": "integer"}), "show the last 5 orders", {"limit": 5}),
        (schema(limit={"type": "integer"}), "list orders, limit 10", {"limit": 10}),
        (schema(count={"type": "integer"}), "top 3 customers", {"count": 3}),
        (schema(text=STRING), "add a todo 'buy milk'", {"text": "buy milk"}),
    ],
)  # fmt: skip
def test_ranges_counts_and_quoted_text_keep_being_read(
    tool_schema: dict[str, Any], text: str, arguments: dict[str, Any]
) -> None:
    assert extract_arguments(tool_schema, text).arguments == arguments


@pytest.mark.parametrize(
    ("tool_schema", "text", "arguments", "how"),
    [
        (
            schema(required=[], context_lines={"type": "integer", "description": "Number of context lines"}),
            "staged diff, zero lines of context",
            {"context_lines": 0},
            "'zero' as a number",
        ),
        (schema(limit={"type": "integer"}), "list orders, limit five", {"limit": 5}, "'five' as a number"),
        (
            schema(status={"type": "string", "enum": ["open", "pending", "closed"]}),
            "Close ticket 7",
            {"status": "closed"},
            "'Close' as the option closed",
        ),
        (
            schema(status={"type": "string", "enum": ["open", "pending", "closed"]}),
            "Reopen it, the customer says it's still broken",
            {"status": "open"},
            "'Reopen' as the option open",
        ),
    ],
)
def test_a_count_in_words_and_a_state_named_by_the_verb_are_read_as_stated(
    tool_schema: dict[str, Any], text: str, arguments: dict[str, Any], how: str
) -> None:
    extraction = read(tool_schema, text)

    assert extraction.arguments == arguments
    assert [(p.kind, p.how) for p in extraction.provenance.values()] == [("stated", how)]


def test_a_number_word_never_becomes_an_identifier() -> None:
    extraction = extract_arguments(schema(ticket_id={"type": "integer"}), "show the one about billing")

    assert extraction.missing == ["ticket_id"]


def test_a_string_identifier_is_read_beside_its_noun() -> None:
    tool_schema = schema(spreadsheet_id=STRING, sheet=STRING, range=STRING)

    extraction = read(tool_schema, "show cells A1 to C5 of sheet Sales in spreadsheet abc123")

    assert extraction.arguments == {"spreadsheet_id": "abc123", "sheet": "Sales", "range": "A1:C5"}


def test_an_sql_property_takes_only_an_sql_statement() -> None:
    tool_schema = schema(query={"type": "string", "description": "CREATE TABLE SQL statement"})

    assert extract_arguments(tool_schema, "create a new tab called Summary").missing == ["query"]
