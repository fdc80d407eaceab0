"""The deterministic planner on capabilities nobody here wrote: made-up servers whose words
Gatehouse was never tuned on, so a pass means the rule generalises, not that a name is known."""

from __future__ import annotations

import pytest

from graph.planner.actions import capability_action, request_action
from graph.planner.arguments import extract_arguments
from graph.planner.scoring import rank
from graph.planner.zones import zone_mentions
from tests.capabilities import tool

GARDEN = [
    tool("garden", "list_plants", "List the plants in a bed.", {"bed": {"type": "string"}}),
    tool(
        "garden",
        "uproot_plant",
        "Remove a plant from its bed for good.",
        {"plant": {"type": "string"}},
        ["plant"],
    ),
    tool(
        "garden",
        "plant_seed",
        "Create a new planting of a seed in a bed.",
        {"seed": {"type": "string"}},
        ["seed"],
    ),
    tool("garden", "water_schedule", "Show when each bed is watered next.", {}),
]


@pytest.mark.parametrize(
    "request_text",
    ["Which plants are in the herb bed?", "show me what's planted", "Are there any plants I removed?"],
)
def test_a_request_that_only_reads_never_ranks_a_tool_that_acts_above_the_threshold(
    request_text: str,
) -> None:
    ranked = {s.capability.name: s.score for s in rank(GARDEN, request_text, "tool", [])}

    assert ranked["uproot_plant"] < 0
    assert ranked["plant_seed"] < 0


def test_a_request_to_act_prefers_the_tool_that_does_that() -> None:
    best = rank(GARDEN, "Please uproot the basil plant", "tool", [])[0]

    assert best.capability.name == "uproot_plant"


@pytest.mark.parametrize(
    ("text", "acts"),
    [
        ("show the latest commits", False),  # commit as a noun
        ("commit the staged files", True),
        ("list deleted files", False),  # a participle is a filter
        (
            "Does /srv/eval-runs/x exist? Just look, don't create anything.",
            False,
        ),  # a path's words, a negation
        ("Add 12 and 30", False),  # arithmetic
        ("Let dave@example.com know the build is green", True),
    ],
)
def test_what_a_request_asks_to_do(text: str, acts: bool) -> None:
    assert (not request_action(text).reads_only) is acts


def test_a_read_verb_first_makes_an_action_word_its_object() -> None:
    assert not capability_action(tool("demo", "get-annotated-message", "Shows a message.")).acts
    assert capability_action(tool("vcs", "vcs_commit", "Records changes.")).acts


def test_time_zones_are_read_from_written_names_and_places() -> None:
    zones = [m.zone for m in zone_mentions("Convert 9am from Europe/Lisbon to Nairobi, not in lisbon")]

    assert zones == ["Europe/Lisbon", "Africa/Nairobi"]


def test_source_and_target_zones_follow_from_and_to_and_a_lone_target_is_not_a_source() -> None:
    schema = {
        "type": "object",
        "properties": {n: {"type": "string"} for n in ("source_timezone", "time", "target_timezone")},
        "required": ["source_timezone", "time", "target_timezone"],
    }

    both = extract_arguments(schema, "What is 14:30 in Nairobi when it is that time from Europe/Oslo?")
    lone = extract_arguments(schema, "Convert 3pm to Auckland time")

    assert both.arguments["source_timezone"] == "Europe/Oslo"
    assert both.arguments["target_timezone"] == "Africa/Nairobi"
    assert lone.arguments == {"time": "15:00", "target_timezone": "Pacific/Auckland"}
    assert lone.evidence["time"] == "3pm" and lone.missing == ["source_timezone"]


def test_schema_shapes_give_values_and_every_value_cites_the_words_it_came_from() -> None:
    schema = {
        "type": "object",
        "properties": {
            "kind": {
                "type": "string",
                "description": "Which rows: open ('open'), shut ('shut') or all ('all').",
            },
            "pattern": {"type": "string"},
            "revision": {"type": "string"},
            "x": {"type": "number"},
            "y": {"type": "number"},
        },
        "required": ["x", "y"],
    }
    text = "Compare all rows matching *.csv at HEAD~2 with 3 and 4.5"

    extraction = extract_arguments(schema, text)

    assert extraction.arguments == {
        "kind": "all",
        "pattern": "*.csv",
        "revision": "HEAD~2",
        "x": 3.0,
        "y": 4.5,
    }
    assert all(words in text for words in extraction.evidence.values())


def test_a_question_mark_is_not_a_glob_and_a_folder_is_not_a_file() -> None:
    schema = {
        "type": "object",
        "properties": {"pattern": {"type": "string"}, "repo_path": {"type": "string"}},
    }

    extraction = extract_arguments(schema, "What changed in /work/repo since notes.md was edited?")

    assert extraction.arguments == {"repo_path": "/work/repo"}
