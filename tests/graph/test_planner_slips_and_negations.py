"""Typing slips (two neighbouring letters swapped) are read as the words the capabilities use,
never a real word nor a value; "not staged" is the "unstaged" a tool's name says; what nobody
may do is no evidence for the tool that does it. Made-up servers."""

from __future__ import annotations

from graph.context import Limits
from graph.planner.arguments import extract_arguments
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from graph.planner.spelling import respelled
from graph.planner.text import concepts
from tests.capabilities import tool

_READS = {"readOnlyHint": True}
SHELF = [
    tool("shelf", "list_parcels", "List the parcels on a shelf.", {"shelf": {"type": "string"}}, [], _READS),
    tool("shelf", "parcel", "One parcel, by its number.", {"id": {"type": "string"}}, ["id"], _READS),
]
KNOWN = {"show", "parcel", "parcels", "shelf", "from", "the", "me"}


def _known(word: str) -> bool:
    return word in KNOWN


def _one_token(word: str) -> bool:
    return word in {"form", "show", "from"}


def test_a_slip_of_two_neighbouring_letters_is_read_as_the_known_word() -> None:
    assert respelled("shwo me the parcles", _known, _one_token) == "show me the parcels"


def test_a_real_word_a_value_or_a_name_is_never_respelled() -> None:
    text = "Fill the form 'parcles' for Hslef"

    assert respelled(text, _known, _one_token) == text


def test_a_request_with_a_slip_finds_the_capability_its_word_names() -> None:
    selection = DeterministicPlanner().select(PlanningRequest(text="pull up parcle #3"), SHELF, Limits())

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "shelf__parcel"


def test_not_with_a_participle_reads_as_its_un_form_and_not_as_the_participle() -> None:
    found = concepts("What changed that isn't staged yet?")

    assert "unstag" in found or "unstaged" in found
    assert "stag" not in found and "staged" not in found


def test_what_nobody_may_do_is_no_evidence() -> None:
    assert "edit" not in concepts("Lock todo.txt so nobody can edit it")


def test_a_servers_own_name_said_in_the_request_is_no_value_for_its_tools() -> None:
    find = tool("slides", "find_shapes", "Find the shapes whose text contains the query.",
                {"path": {"type": "string"}, "query": {"type": "string"}}, ["path", "query"], _READS)  # fmt: skip

    extraction = extract_arguments(find.input_schema, "Which Slides decks do we have?", server="slides")

    assert "query" not in extraction.arguments
    assert extraction.missing == ["path", "query"]
