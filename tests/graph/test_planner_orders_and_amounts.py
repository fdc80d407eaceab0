"""Orders that no tool of a given shape can serve, and amounts that are not arithmetic: "undo
the last X" is never the tool that does X; "rename A to B" is never a tool with no place for a
new name; the numbers of a date make no word problem; a count of a unit ("how many seconds")
is arithmetic, not a question about records. And a request in another language whose only
unread words are values (a name with digits, a word an argument takes) is read in full.
Made-up servers."""

from __future__ import annotations

from graph.context import Limits
from graph.planner.deterministic import DeterministicPlanner, unread_by
from graph.planner.languages import read
from graph.planner.protocol import PlanningRequest
from graph.planner.scoring import rank
from graph.planner.sql_words import data_question
from graph.planner.word_problems import asks_for_arithmetic
from tests.capabilities import tool

_TEXT = {"type": "string"}
VAULT = [
    tool("vault", "seal_box", "Seal a box of the vault so nobody can open it.", {"box": _TEXT}, ["box"]),
    tool("vault", "put_item", "Put an item in a box, or replace what it holds.",
         {"box": _TEXT, "item": _TEXT}, ["box", "item"]),
    tool("vault", "relabel_box", "Give a box a new label.", {"box": _TEXT, "new_label": _TEXT},
         ["box", "new_label"]),
]  # fmt: skip
DB = tool(
    "shop", "run_select", "Execute a SELECT query on the shop database.",
    {"query": {"type": "string", "description": "SELECT SQL query"}}, ["query"],
)  # fmt: skip


def test_an_order_to_undo_what_a_tool_does_never_chooses_that_tool() -> None:
    ranked = {s.capability.name: s for s in rank(VAULT, "Undo the last seal on box box-7", "tool", [])}

    assert any("the opposite" in reason for reason in ranked["seal_box"].reasons)
    assert ranked["seal_box"].score < 4.0


def test_an_order_to_rename_never_chooses_a_tool_with_no_place_for_the_new_name() -> None:
    ranked = {s.capability.name: s for s in rank(VAULT, "Rename the box box-7 to box-8", "tool", [])}

    assert any("takes no new name" in reason for reason in ranked["put_item"].reasons)
    assert not any("takes no new name" in reason for reason in ranked["relabel_box"].reasons)


def test_the_numbers_of_a_date_make_no_word_problem() -> None:
    assert not asks_for_arithmetic("How many parcels have we shipped since 3 March 2026?")
    assert asks_for_arithmetic("If one crate holds 12 parcels, how many parcels do 5 crates hold?")


def test_a_count_of_a_unit_or_a_word_problem_is_no_question_about_records() -> None:
    named = frozenset({"run", "select"})

    assert data_question(DB, "How many minutes are in 4.5 hours?", named) is None
    assert (
        data_question(DB, "If one crate holds 12 parcels, how many parcels do 5 crates hold?", named) is None
    )
    assert data_question(DB, "How many parcels have we shipped since 3 March 2026?", named) is not None


def test_a_name_that_mixes_letters_and_digits_is_a_value_not_an_unread_word() -> None:
    assert read("Erstelle einen Zweig namens release-2026").untranslated == ()


def test_a_word_an_argument_takes_is_read_even_when_the_glossary_does_not_know_it() -> None:
    pages = tool("wiki", "delete_page", "Delete a wiki page.", {"title": _TEXT}, ["title"])
    request = PlanningRequest(text="Lösche die Seite 'Quokka' im Wiki")

    selection = DeterministicPlanner().select(request, [pages, *VAULT], Limits())

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "wiki__delete_page"
    assert selection.ambiguous_with is None


def test_a_word_the_chosen_capability_takes_as_a_value_is_not_unread() -> None:
    search = tool("wiki", "search_pages", "Search the wiki pages.", {"query": _TEXT}, ["query"])
    chosen = rank([search], "search the wiki for Quokka", "tool", [])[0]

    assert chosen.extraction is not None and chosen.extraction.arguments == {"query": "Quokka"}
    assert unread_by(chosen, ["Quokka", "Schnabeltier"]) == ["Schnabeltier"]
