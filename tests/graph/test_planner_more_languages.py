"""Requests in Italian and Portuguese, the general vocabulary of five languages (rows, cells,
sheets, keys, customers), places as those languages write them, and what the reading leaves
unread: a change read in full is planned as in English, one with words left unread is asked
about. Made-up servers, words Gatehouse was not tuned on."""

from __future__ import annotations

import pytest

from graph.context import Limits
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.languages import read
from graph.planner.protocol import PlanningRequest
from graph.planner.provenance import stated
from tests.capabilities import tool

_TEXT = {"type": "string"}
LEDGER = [
    tool("ledger", "delete_row", "Delete a row of a ledger sheet.",
         {"sheet": _TEXT, "row": {"type": "integer"}}, ["sheet", "row"]),
    tool("ledger", "read_sheet", "Read the rows of a ledger sheet.", {"sheet": _TEXT}, ["sheet"],
         {"readOnlyHint": True}),
    tool("ledger", "set_cell", "Set the value of one cell of a ledger sheet.",
         {"sheet": _TEXT, "cell": _TEXT, "value": _TEXT}, ["sheet", "cell", "value"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "language", "english"),
    [
        ("Elimina la riga 4 dal foglio Spese", "it", "delete the row 4 from sheet Spese"),
        ("Apague a linha 4 da folha Spese", "pt", "delete the row 4 of sheet Spese"),
        ("Quanto fa 12 meno 5?", "it", "what is 12 minus 5?"),
    ],
)
def test_italian_and_portuguese_are_read_in_english_words(text: str, language: str, english: str) -> None:
    reading = read(text)

    assert reading.language == language
    assert reading.text == english


def test_a_place_as_another_language_writes_it_is_read_by_its_english_name() -> None:
    assert read("¿Qué hora es en Ciudad de México?").text == "what time is in Mexico City?"


def test_a_key_with_a_colon_is_a_value_the_reading_keeps_and_never_counts_unread() -> None:
    reading = read("Guarda el valor 'rojo' en la clave tema:color")

    assert "tema:color" in reading.text
    assert reading.untranslated == ()


def test_a_change_in_another_language_read_in_full_is_chosen_without_a_question() -> None:
    request = PlanningRequest(text="Elimina la riga 4 dal foglio Spese")

    selection = DeterministicPlanner().select(request, LEDGER, Limits())

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "ledger__delete_row"
    assert selection.ambiguous_with is None


def test_a_change_in_another_language_with_words_left_unread_is_asked_about() -> None:
    request = PlanningRequest(text="Elimina subito la riga 4 dal foglio Spese, grazie mille")

    selection = DeterministicPlanner().select(request, LEDGER, Limits())

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "ledger__delete_row"
    assert selection.ambiguous_with is not None


def test_an_option_said_in_another_language_is_stated_in_the_words_that_say_it() -> None:
    found = stated(
        "pending", "Muéstrame los tickets pendientes", (0, 32), name="status",
        schema={"enum": ["open", "pending", "closed"]},
    )  # fmt: skip

    assert found == ("pendientes", "the option 'pending', written 'pendientes' in Spanish")
