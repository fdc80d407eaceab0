"""A question of what there is ("Which Word documents do we have?", "what tables are there?",
"which branches exist?") is a listing, and a listing's name that says "available" or "all"
says no more than such a question asks. A server's own name written with a capital ("Word") is
where to ask, not a name to look up. "What do we have on Alice?" is no listing. Made-up servers
shaped like office-word-mcp-server's and a knowledge graph's."""

from __future__ import annotations

import pytest

from graph.context import Limits
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from graph.planner.text import asks_about_a_name, concepts
from tests.capabilities import tool

_TEXT = {"type": "string"}
WORD = [
    tool("word", "list_available_documents", "List all .docx files in the specified directory.",
         {"directory": {"type": "string", "default": "."}}),
    tool("word", "get_document_text", "Extract all text from a Word document.", {"filename": _TEXT}, ["filename"]),
    tool("word", "get_document_info", "Get information about a Word document.", {"filename": _TEXT}, ["filename"]),
    tool("word", "find_text_in_document", "Find occurrences of specific text in a Word document.",
         {"filename": _TEXT, "text_to_find": _TEXT, "whole_word": {"type": "boolean"}},
         ["filename", "text_to_find"]),
]  # fmt: skip


@pytest.mark.parametrize(
    "text", ["Which Word documents do we have?", "what documents are there?", "Which documents exist?"]
)
def test_a_question_of_what_there_is_lists_it(text: str) -> None:
    selection = DeterministicPlanner().select(PlanningRequest(text=text), WORD, Limits())

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "word__list_available_documents"


@pytest.mark.parametrize("text", ["What do we have on Alice?", "What's the weather?"])
def test_a_question_without_a_noun_of_many_is_no_listing(text: str) -> None:
    assert "list" not in concepts(text)


def test_the_servers_own_name_is_no_name_to_look_up() -> None:
    assert not asks_about_a_name("Which Word documents do we have?", frozenset({"word"}))
    assert asks_about_a_name("Which Word documents mention Acme?", frozenset({"word"}))
    assert asks_about_a_name("Which documents do we have?") is False
