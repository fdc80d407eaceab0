"""An order to change records in words ("Set the price of the lamp to 20", "Delete invoice 7",
"Add a new supplier") for a database whose change tool runs INSERT, UPDATE and DELETE: that tool
is chosen and its statement asked for, never written; an order about something a capability is
named for, or about nothing in particular, is not such a change. And values read in other
words are stated: a time of day written with one digit for the hour, a place as another
language writes it. Made-up servers."""

from __future__ import annotations

import pytest

from graph.context import Limits
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from graph.planner.provenance import stated
from tests.capabilities import tool

_SQL = {"type": "string", "description": "SQL statement to execute"}
BOOKS = [
    tool("acct", "read_query", "Execute a SELECT query on the ledger database.", {"query": _SQL}, ["query"]),
    tool("acct", "write_query", "Execute an INSERT, UPDATE or DELETE query on the ledger database.",
         {"query": _SQL}, ["query"]),
    tool("notes", "delete_note", "Delete a note by its title.", {"title": {"type": "string"}}, ["title"]),
    tool("notes", "forget_all", "Forget every note.", {}),
]  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        "Set the price of the lamp to 20",
        "Delete invoice 7 from the books",
        "Add a new supplier called Brightline",
    ],
)
def test_an_order_to_change_records_in_words_asks_for_the_statement_of_the_change_tool(text: str) -> None:
    planner = DeterministicPlanner()
    request = PlanningRequest(text=text)

    selection = planner.select(request, BOOKS, Limits())

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "acct__write_query"
    assert planner.extract(selection.chosen.capability, request).missing == ["query"]


@pytest.mark.parametrize("text", ["Delete the note 'groceries'", "Forget everything about Brightline"])
def test_an_order_about_what_a_tool_is_named_for_or_about_nothing_in_particular_is_no_change_to_records(
    text: str,
) -> None:
    selection = DeterministicPlanner().select(PlanningRequest(text=text), BOOKS, Limits())

    assert selection.chosen is None or selection.chosen.capability.key != "acct__write_query"


def test_a_time_of_day_with_a_one_digit_hour_is_stated_as_written() -> None:
    assert stated("09:30", "If it's 9:30 in Lima", (0, 20), name="time", schema={"type": "string"}) == (
        "9:30",
        "'9:30' as 09:30",
    )


def test_the_zone_of_a_place_as_another_language_writes_it_is_stated_in_those_words() -> None:
    found = stated(
        "Asia/Tokyo", "Wie spät ist es in Tokio?", (0, 25), name="timezone", schema={"type": "string"}
    )

    assert found == ("Tokio", "the time zone of 'Tokio' (Tokyo)")
