"""Which of two zones a time is converted from and which to: the source is the zone whose time
of day the request states, the target the zone it asks about, wherever each stands in the
sentence. "What time is it in Tokyo when it is half past two in the afternoon in London?" names
the target first; word order alone would read it backwards. "from"/"to" and an arrow still say
it outright, and one zone alone is read as before.

The schema is mcp-server-time's convert_time, with its own descriptions."""

from __future__ import annotations

from typing import Any

import pytest

from graph.planner.arguments import extract_arguments


def zone(role: str) -> dict[str, Any]:
    return {
        "type": "string",
        "description": f"{role} IANA timezone name (e.g., 'America/New_York', 'Europe/London'). "
        f"Use 'UTC' as local timezone if no {role.lower()} timezone provided by the user.",
    }


CONVERT_TIME = {
    "type": "object",
    "properties": {
        "source_timezone": zone("Source"),
        "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
        "target_timezone": zone("Target"),
    },
    "required": ["source_timezone", "time", "target_timezone"],
}

# Each request, and the source zone, the time and the target zone it states.
CONVERSIONS = [
    # The target asked about first, the stated time's zone after it.
    (
        "What time is it in Tokyo when it is half past two in the afternoon in London?",
        "Europe/London",
        "14:30",
        "Asia/Tokyo",
    ),
    ("What time is it in Sydney when it's 9am in Berlin?", "Europe/Berlin", "09:00", "Australia/Sydney"),
    ("What is it in Tokyo when it is half two in London?", "Europe/London", "02:30", "Asia/Tokyo"),
    ("Tokyo time when it's 14:00 in London?", "Europe/London", "14:00", "Asia/Tokyo"),
    ("What's the time in Denver when it is noon in Chicago?", "America/Chicago", "12:00", "America/Denver"),
    ("What time is it in Paris when it's 3pm London time?", "Europe/London", "15:00", "Europe/Paris"),
    # A zone named before the time it says is that time's zone too.
    ("What time is it in Tokyo if London is at 3pm?", "Europe/London", "15:00", "Asia/Tokyo"),
    ("Tokyo time, when the time in London is 3pm?", "Europe/London", "15:00", "Asia/Tokyo"),
    # The stated time's zone first, the asked one after it.
    ("If it's 16:30 in New York, what time is it in Paris?", "America/New_York", "16:30", "Europe/Paris"),
    ("When it is noon in Chicago, what's the time in Denver?", "America/Chicago", "12:00", "America/Denver"),
    ("What is noon in London in Tokyo time?", "Europe/London", "12:00", "Asia/Tokyo"),
    ("In London it's 3pm; what time is it in Tokyo?", "Europe/London", "15:00", "Asia/Tokyo"),
    ("London time is 3pm; what is that in Tokyo?", "Europe/London", "15:00", "Asia/Tokyo"),
    # Said outright: "from" and "to", an arrow, "for"; these win over where a time stands.
    ("Convert 16:45 from Denver to Honolulu", "America/Denver", "16:45", "Pacific/Honolulu"),
    ("Convert 16:45 to Honolulu from Denver", "America/Denver", "16:45", "Pacific/Honolulu"),
    ("9am Denver -> Honolulu?", "America/Denver", "09:00", "Pacific/Honolulu"),
    ("Convert 9am Tokyo time to New York time", "Asia/Tokyo", "09:00", "America/New_York"),
    (
        "What is 14:30 in Nairobi when it is that time from Europe/Oslo?",
        "Europe/Oslo",
        "14:30",
        "Africa/Nairobi",
    ),
    (
        "Town hall is at 11am Pacific. When is that for the Bangalore team?",
        "America/Los_Angeles",
        "11:00",
        "Asia/Kolkata",
    ),
    # A stated time's zone after a comma, "Paris time": the time's, not the one asked about.
    (
        "The call is at 9am, Paris time. What time is that in Denver?",
        "Europe/Paris",
        "09:00",
        "America/Denver",
    ),
    (
        "We meet at half past four in the afternoon, Tokyo time; what is that for the office in London?",
        "Asia/Tokyo",
        "16:30",
        "Europe/London",
    ),
    # Nothing says which is which: the first zone is the source, the other the target.
    ("Convert 16:30 between London and Tokyo", "Europe/London", "16:30", "Asia/Tokyo"),
]


@pytest.mark.parametrize(("text", "source", "time", "target"), CONVERSIONS)
def test_the_source_is_the_zone_of_the_stated_time_and_the_target_the_zone_asked_about(
    text: str, source: str, time: str, target: str
) -> None:
    extraction = extract_arguments(CONVERT_TIME, text)

    assert extraction.arguments == {"source_timezone": source, "time": time, "target_timezone": target}
    assert extraction.missing == []


def test_each_zone_cites_the_words_that_named_it() -> None:
    extraction = extract_arguments(
        CONVERT_TIME, "What time is it in New York when it is half past two in the afternoon in São Paulo?"
    )

    assert extraction.evidence["source_timezone"] == "São Paulo"
    assert extraction.evidence["target_timezone"] == "New York"


@pytest.mark.parametrize(
    ("text", "arguments", "missing"),
    [
        # One zone alone, as before: led by "to" it is the target's and never the source's...
        (
            "Convert 3pm to Auckland time",
            {"time": "15:00", "target_timezone": "Pacific/Auckland"},
            ["source_timezone"],
        ),
        # ... else it is where the time is.
        (
            "Convert 3pm from Auckland",
            {"source_timezone": "Pacific/Auckland", "time": "15:00"},
            ["target_timezone"],
        ),
        (
            "It is 9am in Phoenix, Arizona",
            {"source_timezone": "America/Phoenix", "time": "09:00"},
            ["target_timezone"],
        ),
    ],
)
def test_one_zone_alone_is_read_as_before(text: str, arguments: dict[str, str], missing: list[str]) -> None:
    extraction = extract_arguments(CONVERT_TIME, text)

    assert extraction.arguments == arguments
    assert extraction.missing == missing
