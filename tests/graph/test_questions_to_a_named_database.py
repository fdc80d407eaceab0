"""A question put to a database the request names ("What is the price of the keyboard in the
shop database?", "Who ordered the lamp? Check the ledger db") is about its records, whatever
their words: its read-query tool is chosen and the query asked for, never written. The words
that name the database ("shop database") are where, not what; a question about what a tool
is named for (its tables) stays that tool's; and without the database named, such a question
is not sent to it. Made-up servers shaped like mcp-server-sqlite."""

from __future__ import annotations

import pytest

from graph.context import Limits
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from tests.capabilities import tool

_SQL = {"type": "string", "description": "SELECT SQL query to execute"}
SHOP = [
    tool("sqlite", "read_query", "Execute a SELECT query on the SQLite database", {"query": _SQL}, ["query"]),
    tool("sqlite", "write_query", "Execute an INSERT, UPDATE, or DELETE query on the SQLite database",
         {"query": _SQL}, ["query"]),
    tool("sqlite", "list_tables", "List all tables in the SQLite database", {}),
    tool("sqlite", "describe_table", "Get the schema information for a specific table",
         {"table_name": {"type": "string"}}, ["table_name"]),
    tool("notes", "read_note", "Read a note of the vault by its path.", {"path": {"type": "string"}}, ["path"]),
]  # fmt: skip


def _select(text: str) -> str | None:
    selection = DeterministicPlanner().select(PlanningRequest(text=text), SHOP, Limits())
    return selection.chosen.capability.key if selection.chosen else None


@pytest.mark.parametrize(
    "text",
    [
        "What is the price of the keyboard in the shop database?",
        "Who ordered the keyboard? Check the shop database",
        "In the sqlite database, what's Dev Patel's email address?",
        "show me the cheapest mouse in the shop db",
    ],
)
def test_a_question_put_to_a_named_database_queries_it_and_asks_for_the_query(text: str) -> None:
    planner = DeterministicPlanner()
    request = PlanningRequest(text=text)

    selection = planner.select(request, SHOP, Limits())

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "sqlite__read_query"
    assert planner.extract(selection.chosen.capability, request).missing == ["query"]


@pytest.mark.parametrize("text", ["Which tables are in the shop database?", "What's in the shop database?"])
def test_a_question_about_what_a_tool_is_named_for_stays_with_that_tool(text: str) -> None:
    assert _select(text) == "sqlite__list_tables"


@pytest.mark.parametrize("text", ["What is the price of the keyboard?", "What's the weather in Paris?"])
def test_without_the_database_named_a_question_in_other_words_is_not_sent_to_it(text: str) -> None:
    assert _select(text) != "sqlite__read_query"


def test_an_order_to_the_named_database_is_not_a_question_to_it() -> None:
    # A change is the change tool's (test_changes_to_records_in_words.py), never a read's.
    assert _select("Set the price of the keyboard to 21.50 in the shop database") != "sqlite__read_query"
