"""Arguments a request states in words are read on the right tool instead of being asked for
again: numbers and ordinals in words, matched to the parameter by the noun they count (a range
"lines ten through twenty" for a start and an end, "the second layout" for a 0-based index);
parameter names that abbreviate the request's noun ("cols" for columns, "pathPrefix" for a
folder); an option said by a verb ("block port 8080" is the option deny); quoted text placed by
the preposition before it ("after 'X'" is the anchor text). A number that counts another noun,
or is part of a name or a date, is no value for the parameter: it stays missing and is asked."""

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


def read(tool_schema: dict[str, Any], text: str) -> Extraction:
    return with_provenance(extract_arguments(tool_schema, text), text, tool_schema)


STRING = {"type": "string"}
STRINGS = {"type": "array", "items": {"type": "string"}}
INTEGER = {"type": "integer"}


def integer(description: str) -> dict[str, Any]:
    return {"type": "integer", "description": description}


def options(*values: str, description: str = "") -> dict[str, Any]:
    return {"type": "string", "enum": list(values), "description": description}


FILENAME = {"type": "string", "description": "Path to the document"}
PATH = {"type": "string", "description": "Path of the file"}

READ_LINES = schema(
    path=PATH,
    start_line=integer("First line to read (1-based)"),
    end_line=integer("Last line to read (1-based, inclusive)"),
)
GET_PAGES = schema(
    filename=FILENAME,
    start_page=integer("First page to extract"),
    end_page=integer("Last page to extract"),
)
READ_NOTE_LINES = schema(path=PATH, startLine=INTEGER, endLine=INTEGER)
PRINT_LINES = schema(path=PATH, from_line=INTEGER, to_line=INTEGER)
GET_ROWS = schema(sheet=STRING, first_row=integer("First row"), last_row=integer("Last row"))
ADD_TABLE = schema(filename=FILENAME, rows=integer("Number of rows"), cols=integer("Number of columns"))
ADD_TABLE_LONG = schema(filename=FILENAME, num_rows=INTEGER, num_columns=INTEGER)
TAIL = schema(file=PATH, lines=integer("How many lines from the end"))
SEARCH = schema(query=STRING, limit=integer("Maximum number of results"))
LIST_COMMITS = schema(repo_path=STRING, max_count=integer("Maximum number of commits to list"))
SEARCH_FILES = schema(query=STRING, maxResults=INTEGER)
INSERT_ROWS = schema(
    sheet=STRING, at_row=integer("Row before which to insert"), count=integer("How many rows")
)
FORECAST = schema(city=STRING, days=integer("Number of days to forecast"))
ROLL_DICE = schema(dice=integer("How many dice"), sides=integer("Sides on each die"))
NEW_DECK = schema(filename=FILENAME, slide_count=integer("How many blank slides"))
ADD_SLIDE = schema(filename=FILENAME, layout_index=integer("Index of the slide layout to use"))
GET_SLIDE = schema(filename=FILENAME, slide_number=integer("Slide number"))
DELETE_PARAGRAPH = schema(filename=FILENAME, paragraph_index=integer("Index of the paragraph"))
GET_PAGE = schema(filename=FILENAME, page=integer("Page to read"))
FORMAT_TABLE = schema(filename=FILENAME, table_index=integer("Index of the table"))
GET_SHEET = schema(workbook=PATH, sheet_index=integer("1-based position of the sheet"))
DELETE_SLIDE = schema(
    filename=FILENAME, slide_index=integer("0-based index of the slide; -1 for the last one")
)
SEARCH_NOTES = schema(
    required=["query"],
    query=STRING,
    pathPrefix={"type": "string", "description": "Only notes under this folder"},
)
LIST_DIR = schema(dir={"type": "string", "description": "Directory to list"})
QUERY_TABLE = schema(table=STRING, limit=integer("Rows to return"))
DESCRIBE_TABLE = schema(tbl={"type": "string", "description": "Table to describe"})
FETCH_MESSAGES = schema(required=["max_msgs"], channel=STRING, max_msgs=integer("Messages to fetch"))
MANAGE_TAGS = schema(
    path=PATH,
    operation=options("add", "remove", "list"),
    tags=STRINGS,
    required=["path", "operation"],
)
MANAGE_LABELS = schema(
    required=["issue", "action"], issue=INTEGER, action=options("add", "remove", "set"), label=STRING
)
FIREWALL = schema(port=INTEGER, action=options("allow", "deny"))
COMMENT_AFTER = schema(filename=FILENAME, search_text=STRING, comment_text=STRING)
INSERT_BEFORE = schema(filename=FILENAME, anchor_text=STRING, text=STRING)
GIT_DIFF = schema(
    repo_path=STRING, target={"type": "string", "description": "Branch or commit to compare to"}
)


@pytest.mark.parametrize(
    ("tool_schema", "text", "expected"),
    [
        # A range of numbers in words, for a start and an end.
        (READ_LINES, "Show lines ten through twenty of app.log", {"start_line": 10, "end_line": 20}),
        (GET_PAGES, "Extract pages three to seven from report.pdf", {"start_page": 3, "end_page": 7}),
        (READ_NOTE_LINES, "Give me lines twelve to fifteen of Daily.md", {"startLine": 12, "endLine": 15}),
        (PRINT_LINES, "Print lines two until nine of notes.txt", {"from_line": 2, "to_line": 9}),
        (GET_ROWS, "Copy rows four through eight of Budget", {"first_row": 4, "last_row": 8}),
        # A count in words, matched to the parameter by the noun it counts.
        (ADD_TABLE, "Insert a table with four rows and three columns into memo.docx", {"rows": 4, "cols": 3}),
        (
            ADD_TABLE_LONG,
            "Put a table of five rows by two columns in plan.docx",
            {"num_rows": 5, "num_columns": 2},
        ),
        (TAIL, "Show the last thirty lines of worker.log", {"lines": 30}),
        (SEARCH, "Find notes about budgets, at most ten of them", {"limit": 10}),
        (LIST_COMMITS, "List the last five commits in /repos/app", {"max_count": 5}),
        (SEARCH_FILES, "Search the files for TODO, top twenty results only", {"maxResults": 20}),
        (INSERT_ROWS, "Insert three rows at row seven in Budget", {"count": 3, "at_row": 7}),
        (FORECAST, "What's the forecast for Paris for the next three days?", {"days": 3}),
        (ROLL_DICE, "Roll two dice with twenty sides", {"dice": 2, "sides": 20}),
        (NEW_DECK, "Make a new deck pitch.pptx with eight slides", {"slide_count": 8}),
        (QUERY_TABLE, "Show the first ten rows of the customers table", {"table": "customers", "limit": 10}),
        (FETCH_MESSAGES, "Fetch the latest fifteen messages from general", {"max_msgs": 15}),
        # An ordinal for a position: 0-based for an index unless its description says otherwise.
        (ADD_SLIDE, "Add a slide to deck.pptx using the second layout", {"layout_index": 1}),
        (GET_SLIDE, "Show me the third slide of deck.pptx", {"slide_number": 3}),
        (DELETE_PARAGRAPH, "Delete the fourth paragraph of draft.docx", {"paragraph_index": 3}),
        (GET_PAGE, "What's on the 2nd page of manual.pdf?", {"page": 2}),
        (FORMAT_TABLE, "Make the first table in report.docx bold", {"table_index": 0}),
        (GET_SHEET, "Open the second sheet of sales.xlsx", {"sheet_index": 2}),
        (DELETE_SLIDE, "Remove the last slide from deck.pptx", {"slide_index": -1}),
        # A parameter named by an abbreviation of the request's noun.
        (SEARCH_NOTES, "Look in the Recipes folder for anything about pasta", {"pathPrefix": "Recipes"}),
        (DESCRIBE_TABLE, "Describe the orders table", {"tbl": "orders"}),
        # An option said by a verb's meaning.
        (MANAGE_TAGS, "Label Projects/Zeus.md with urgent", {"operation": "add"}),
        (MANAGE_TAGS, "Delete the draft tag from Ideas.md", {"operation": "remove"}),
        (MANAGE_LABELS, "Attach the label bug to issue 42", {"action": "add", "issue": 42}),
        (FIREWALL, "Block port 8080 on the firewall", {"action": "deny", "port": 8080}),
        # Quoted text placed by the preposition before it.
        (
            COMMENT_AFTER,
            "In draft.docx, add a comment after 'final budget' saying: check this number",
            {"search_text": "final budget", "filename": "draft.docx"},
        ),
        (
            INSERT_BEFORE,
            "In q3.docx, insert 'DRAFT' before 'Quarterly report'",
            {"anchor_text": "Quarterly report", "text": "DRAFT"},
        ),
        # A branch named in words is the target of a comparison.
        (
            GIT_DIFF,
            "What differs between my checkout and the release-2 branch in /repos/site?",
            {"target": "release-2"},
        ),
    ],
)
def test_an_argument_stated_in_words_is_read_on_the_right_tool(
    tool_schema: dict[str, Any], text: str, expected: dict[str, Any]
) -> None:
    extraction = read(tool_schema, text)

    assert {name: extraction.arguments.get(name) for name in expected} == expected
    assert not set(expected) & set(extraction.missing)


@pytest.mark.parametrize(
    ("tool_schema", "text", "name", "words"),
    [
        (READ_LINES, "Show lines ten through twenty of app.log", "start_line", "ten"),
        (READ_LINES, "Show lines ten through twenty of app.log", "end_line", "twenty"),
        (ADD_TABLE, "Insert a table with four rows and three columns into memo.docx", "cols", "three"),
        (FORMAT_TABLE, "Make the first table in report.docx bold", "table_index", "first"),
        (GET_SLIDE, "Show me the third slide of deck.pptx", "slide_number", "third"),
    ],
)
def test_a_number_read_in_words_is_shown_to_a_reviewer_as_stated_with_its_words(
    tool_schema: dict[str, Any], text: str, name: str, words: str
) -> None:
    provenance = read(tool_schema, text).provenance[name]

    assert provenance.kind == "stated"
    assert words in provenance.words


@pytest.mark.parametrize(
    ("tool_schema", "text", "unread"),
    [
        # The number counts another noun, or is part of a name, a version or a date.
        (ADD_TABLE, "Add a table to version 2 of plan.docx with three rows", ["cols"]),
        (
            schema(title=STRING, date=STRING, reminder_minutes=integer("Minutes before to remind")),
            "Schedule the budget review for the 3rd of May",
            ["reminder_minutes"],
        ),
        (schema(room=STRING, hours=integer("Hours to book")), "Book room 101 for the offsite", ["hours"]),
        (
            schema(user=STRING, backup_codes=integer("Backup codes to generate")),
            "Turn on two-factor for alice",
            ["backup_codes"],
        ),
        (GET_SLIDE, "Show the slide about our top three risks in deck.pptx", ["slide_number"]),
        (READ_LINES, "Read pages one through five of book.txt", ["start_line", "end_line"]),
        (SEARCH, "Search for 'Windows 11' issues", ["limit"]),
        (FORMAT_TABLE, "Make the first paragraph of report.docx bold", ["table_index"]),
        (ADD_TABLE, "Add a table with one row per team member to roster.docx", ["rows", "cols"]),
        (INSERT_ROWS, "Insert rows for the second quarter in Budget", ["at_row", "count"]),
        (LIST_COMMITS, "List the commits from the first sprint in /repos/app", ["max_count"]),
        (MANAGE_TAGS, "Something is off with the tags on Ideas.md", ["operation"]),
        (FORECAST, "What's the forecast for Paris on day two of the trip?", ["days"]),
        # "cols" abbreviates columns, not every word that begins "col".
        (ADD_TABLE, "Add a table in two colors with three rows to plan.docx", ["cols"]),
        (ADD_TABLE, "Add a table with three rows and four colleagues' names to plan.docx", ["cols"]),
    ],
)
def test_a_number_or_option_that_is_not_the_parameters_is_asked_for_not_read(
    tool_schema: dict[str, Any], text: str, unread: list[str]
) -> None:
    extraction = read(tool_schema, text)

    assert {name: extraction.arguments.get(name) for name in unread} == dict.fromkeys(unread)
    assert set(unread) <= set(extraction.missing)


def test_the_plural_of_a_lists_noun_lists_no_value_of_its_last_letter() -> None:
    extraction = read(MANAGE_TAGS, "Something is off with the tags on Ideas.md")

    assert "tags" not in extraction.arguments


@pytest.mark.parametrize(
    "tool_schema",
    [
        MANAGE_TAGS,
        schema(
            required=["path", "operation"],
            tags=STRINGS,
            operation=MANAGE_TAGS["properties"]["operation"],
            path=PATH,
        ),
    ],
)
def test_the_tags_a_verb_puts_on_a_note_are_after_with_not_the_note(tool_schema: dict[str, Any]) -> None:
    extraction = read(tool_schema, "Tag Projects/Zeus.md with urgent and q4")

    assert extraction.arguments == {"path": "Projects/Zeus.md", "operation": "add", "tags": ["urgent", "q4"]}


INSERT_LINE = schema(
    required=["filename"], filename=FILENAME, target_text=STRING, line_text=STRING, position=STRING
)


@pytest.mark.parametrize(
    ("tool_schema", "text", "expected"),
    [
        # The quotation after a placing word is where; the one after the thing's noun is what.
        (
            INSERT_LINE,
            "Right after 'Total: 12' in notes.docx, insert the line 'Checked by Ana.'",
            {"filename": "notes.docx", "target_text": "Total: 12", "line_text": "Checked by Ana."},
        ),
        (
            INSERT_LINE,
            "In notes.docx, add something after the line 'Total: 12'",
            {"target_text": "Total: 12"},
        ),
        # The name compared is the one before "differ" when "from" is followed by no name.
        (
            GIT_DIFF,
            "How does hotfix-7 differ from what I have checked out in /repos/site?",
            {"target": "hotfix-7"},
        ),
    ],
)
def test_text_placed_by_its_words_goes_to_the_parameter_that_takes_it(
    tool_schema: dict[str, Any], text: str, expected: dict[str, Any]
) -> None:
    extraction = read(tool_schema, text)

    assert {name: extraction.arguments.get(name) for name in expected} == expected
    assert "line_text" not in expected or extraction.provenance["line_text"].kind == "stated"
    if "line_text" not in expected:
        assert "line_text" not in extraction.arguments
