"""Numbers written in words as one number only where English grammar makes them one: "and"
joins a hundred or a thousand to what follows ("one hundred and five"), never two numbers
("six and nine" is no fifteen), and two units side by side are two numbers."""

from __future__ import annotations

import pytest

from graph.planner.arguments import extract_arguments
from graph.planner.quantities import number_of_words


@pytest.mark.parametrize(
    ("words", "number"),
    [
        ("twenty-one", 21),
        ("twenty one", 21),
        ("one hundred and five", 105),
        ("two thousand and twenty", 2020),
        ("twelve hundred", 1200),
        ("three thousand four hundred", 3400),
        ("seven", 7),
    ],
)
def test_words_english_writes_as_one_number_are_that_number(words: str, number: int) -> None:
    assert number_of_words(words) == number


@pytest.mark.parametrize(
    "words", ["six and nine", "two and five", "five six", "twenty thirty", "twelve seven"]
)
def test_words_that_are_two_numbers_are_no_one_number(words: str) -> None:
    assert number_of_words(words) is None


def test_two_numbers_joined_by_and_are_never_their_sum_in_an_argument() -> None:
    schema = {
        "type": "object",
        "properties": {"timeout_seconds": {"type": "integer"}},
        "required": ["timeout_seconds"],
    }

    extraction = extract_arguments(schema, "wait six and nine seconds")

    assert extraction.arguments.get("timeout_seconds") != 15
