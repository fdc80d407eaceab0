"""A time of day said in English words ("half past two in the afternoon", "quarter to five pm",
"noon") is read as HH:MM wherever the deterministic planner reads a time, as a time in digits
is; and the provenance check shows the value as those words, so it counts as stated. Words that
only hold a number ("two files", "the past two weeks") are no time.

The time server is made up here with mcp-server-time's own tool descriptions."""

from __future__ import annotations

from typing import Any

import pytest

from graph.context import Limits
from graph.planner.arguments import extract_arguments
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from graph.planner.provenance import stated
from mcp_host.manifest import Capability
from tests.capabilities import tool

READ_ONLY = {"readOnlyHint": True}


def zone(role: str) -> dict[str, Any]:
    return {
        "type": "string",
        "description": f"{role} IANA timezone name (e.g., 'America/New_York', 'Europe/London'). "
        f"Use 'UTC' as local timezone if no {role.lower()} timezone provided by the user.",
    }


TIME_SERVER = [
    tool(
        "time",
        "get_current_time",
        "Get current time in a specific timezone",
        {"timezone": zone("The")},
        ["timezone"],
        READ_ONLY,
    ),
    tool(
        "time",
        "convert_time",
        "Convert time between timezones",
        {
            "source_timezone": zone("Source"),
            "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
            "target_timezone": zone("Target"),
        },
        ["source_timezone", "time", "target_timezone"],
        READ_ONLY,
    ),
]
CONVERT: Capability = TIME_SERVER[1]
TIME = {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"}

# Each phrasing, the words the time is read from, and the time.
SAID = [
    ("When it is half past two in the afternoon in London", "half past two in the afternoon", "14:30"),
    ("Convert quarter past nine from London to Tokyo", "quarter past nine", "09:15"),
    ("Convert a quarter past 9 from London to Tokyo", "a quarter past 9", "09:15"),
    (
        "Convert quarter to five in the afternoon from Paris to Tokyo",
        "quarter to five in the afternoon",
        "16:45",
    ),
    ("Convert quarter to five pm from Paris to Tokyo", "quarter to five pm", "16:45"),
    ("What is noon in London in Tokyo time?", "noon", "12:00"),
    ("Convert midday from Paris to Tokyo", "midday", "12:00"),
    ("Convert midnight from Paris to Tokyo", "midnight", "00:00"),
    ("Convert three o'clock from Paris to Tokyo", "three o'clock", "03:00"),
    ("Convert 3 o'clock in the afternoon from Paris to Tokyo", "3 o'clock in the afternoon", "15:00"),
    ("Convert three o'clock in the afternoon from Paris to Tokyo", "three o'clock in the afternoon", "15:00"),
    ("Convert seven in the evening from Paris to Tokyo", "seven in the evening", "19:00"),
    ("Convert 2:30 in the afternoon from Paris to Tokyo", "2:30 in the afternoon", "14:30"),
    ("What is it in Tokyo when it is half two in London?", "half two", "02:30"),
    ("It is ten thirty pm in New York, what time is it in Paris?", "ten thirty pm", "22:30"),
    ("Convert 9.30am from Paris to Tokyo", "9.30am", "09:30"),
    ("Convert 2:30pm from Paris to Tokyo", "2:30pm", "14:30"),
    (
        "Convert twenty-five to six in the morning from Paris to Tokyo",
        "twenty-five to six in the morning",
        "05:35",
    ),
    ("Convert ten to midnight from Paris to Tokyo", "ten to midnight", "23:50"),
    ("Convert eleven at night from Paris to Tokyo", "eleven at night", "23:00"),
    ("Convert nine forty-five in the morning from Paris to Tokyo", "nine forty-five in the morning", "09:45"),
    # An hour with no am, pm or part of the day is the number said, on the 24-hour clock.
    ("Convert fifteen o'clock from Paris to Tokyo", "fifteen o'clock", "15:00"),
    # As before: digits.
    ("Convert 14:30 from London to Tokyo", "14:30", "14:30"),
    ("Convert 9am from Tokyo to New York", "9am", "09:00"),
    # Whatever follows "half past" or "quarter to", it is a time.
    ("At half past two send the report", "half past two", "02:30"),
]


@pytest.mark.parametrize(("text", "words", "value"), SAID)
def test_the_argument_rules_read_a_time_said_in_words_as_hh_mm(text: str, words: str, value: str) -> None:
    extraction = extract_arguments(
        {"type": "object", "properties": {"time": TIME}, "required": ["time"]}, text
    )

    assert extraction.arguments == {"time": value}
    assert extraction.evidence["time"] == words


@pytest.mark.parametrize(
    "text",
    [
        "Copy two files to /srv",
        "Convert half of the rows",
        "Spend a quarter of the budget",
        "Remind me in the afternoon",
        "What changed over the past two weeks?",
        "Rate it from five to ten",
        "Cut it in half 2 times",
        "Show half two files",
        "Which one am I supposed to pick?",
        "It was built in nineteen fifty",
        "It costs 3.50",
        "Ten past two weeks were lost",
        "Give a quarter to two people",
    ],
)
def test_words_that_only_hold_a_number_are_no_time(text: str) -> None:
    extraction = extract_arguments(
        {"type": "object", "properties": {"time": TIME}, "required": ["time"]}, text
    )

    assert extraction.missing == ["time"]


def test_the_testers_question_to_the_time_server_reads_the_time_and_asks_for_nothing() -> None:
    request = PlanningRequest("What time is it in Tokyo when it is half past two in the afternoon in London?")

    selection = DeterministicPlanner().select(request, TIME_SERVER, Limits())

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "time__convert_time"
    assert selection.chosen.extraction is not None
    assert selection.chosen.extraction.arguments["time"] == "14:30"
    assert selection.chosen.extraction.missing == []


@pytest.mark.parametrize(
    ("text", "words", "value"), [case for case in SAID if case[0].startswith("Convert") and "from" in case[0]]
)
def test_the_deterministic_planner_converts_a_time_said_in_words_and_the_value_is_stated(
    text: str, words: str, value: str
) -> None:
    planner = DeterministicPlanner()
    request = PlanningRequest(text)

    selection = planner.select(request, TIME_SERVER, Limits())
    assert selection.chosen is not None
    assert selection.chosen.capability.key == "time__convert_time"
    extraction = planner.extract(CONVERT, request)

    assert extraction.arguments["time"] == value
    assert extraction.missing == []
    provenance = extraction.provenance["time"]
    assert (provenance.kind, provenance.words) == ("stated", words)


@pytest.mark.parametrize(
    ("value", "said", "words"),
    [
        ("14:30", "if it is half past two in the afternoon in Lima", "half past two in the afternoon"),
        ("16:45", "at quarter to five pm", "quarter to five pm"),
        ("00:00", "at midnight", "midnight"),
        ("15:00", "three o'clock in the afternoon", "three o'clock in the afternoon"),
        ("02:30", "at half two", "half two"),
        ("22:30", "ten thirty pm", "ten thirty pm"),
        ("09:30", "at 9.30am", "9.30am"),
    ],
)
def test_the_provenance_check_accepts_a_time_said_in_words(value: str, said: str, words: str) -> None:
    assert stated(value, said, (0, len(said)), name="time", schema=TIME) == (words, f"'{words}' as {value}")


@pytest.mark.parametrize(
    ("value", "said"),
    [
        # The words say another time: the half of the day, the hour or the minutes differ.
        ("02:30", "half past two in the afternoon"),
        ("14:30", "half past two"),
        ("15:00", "three o'clock"),
        ("04:45", "quarter past five"),
        ("12:00", "midnight"),
        # No time at all.
        ("02:00", "copy two files"),
        ("14:00", "in the afternoon"),
    ],
)
def test_a_time_the_words_do_not_say_is_not_stated(value: str, said: str) -> None:
    assert stated(value, said, (0, len(said)), name="time", schema=TIME) is None


def test_the_numbers_of_a_time_said_in_words_are_not_the_numbers_to_compute() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    }

    extraction = extract_arguments(schema, "At half past 2 add 3 and 5")

    assert extraction.arguments == {"a": 3, "b": 5}


def test_the_current_time_tool_leaves_a_time_said_in_words_unused() -> None:
    request = PlanningRequest("In Tokyo, what is quarter past nine in London?")

    selection = DeterministicPlanner().select(request, TIME_SERVER, Limits())

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "time__convert_time"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # Dutch and German say the half hour before the hour: "half drie" is 2:30, not 3:30.
        ("Hoe laat is het in Tokio om half drie in Londen?", "02:30"),
        ("Wie spät ist es in Tokio, wenn es in London halb drei ist?", "02:30"),
        ("Wie spät ist es in Tokio, wenn es in London halb eins ist?", "12:30"),
        # "nachmittags" places the hour in the afternoon.
        ("Wie spät ist es in Tokio, wenn es in London drei Uhr nachmittags ist?", "15:00"),
        ("Wie spät ist es in Tokio, wenn es in London 14:30 ist?", "14:30"),
    ],
)
def test_a_time_in_another_language_is_not_read_as_english_would_read_its_words(
    text: str, value: str
) -> None:
    extraction = DeterministicPlanner().extract(CONVERT, PlanningRequest(text))

    assert extraction.arguments.get("time") == value
