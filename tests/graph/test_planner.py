"""The deterministic planner: intent, scoring and schema-guided argument extraction."""

from __future__ import annotations

from typing import Any

import pytest

from graph.planner.arguments import extract_arguments
from graph.planner.intent import classify
from graph.planner.scoring import rank
from mcp_host.manifest import Capability
from mcp_host.sdk_client import SdkMcpClient

TICKETS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "priority": {
            "anyOf": [{"enum": ["low", "medium", "high", "urgent"], "type": "string"}, {"type": "null"}]
        },
        "status": {"anyOf": [{"enum": ["open", "pending", "closed"], "type": "string"}, {"type": "null"}]},
        "limit": {"type": "integer", "default": 20},
    },
}
EMAIL: dict[str, Any] = {
    "type": "object",
    "properties": {"to": {"type": "string"}, "body": {"type": "string"}, "subject": {"type": "string"}},
    "required": ["to", "body"],
}


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("What is the Model Context Protocol?", "answer_without_mcp"),
        ("thanks!", "answer_without_mcp"),
        ("What are the open tickets?", "execute_tool"),
        ("What is in notes.md?", "execute_tool"),
        ("Read the support handbook document", "read_resource"),
        ("Read ticket://4", "read_resource"),
        ("Use the summarize tickets prompt", "use_prompt"),
        ("Send an email to bob@example.com saying hi", "execute_tool"),
        # The text to work on comes with the request, after its colon: no server holds it.
        ("Translate this into German: the meeting moved to Friday.", "answer_without_mcp"),
        ("Please rephrase the following: we shipped late again", "answer_without_mcp"),
        # ... unless what it names is something the servers hold.
        ("Summarize this ticket: number 4", "execute_tool"),
    ],
)
def test_intent_is_classified_from_the_words_of_the_request(text: str, intent: str) -> None:
    assert classify(text).intent == intent


def test_high_priority_phrase_becomes_priority_high_and_open_becomes_status_open() -> None:
    extraction = extract_arguments(TICKETS, "Summarize the open high-priority support tickets.")

    assert extraction.arguments == {"priority": "high", "status": "open"}
    assert extraction.missing == []


def test_key_value_pairs_and_quoted_values_are_taken_as_stated() -> None:
    extraction = extract_arguments(EMAIL, 'Mail to=ann@example.org subject="Q3 plan" body="see attached"')

    assert extraction.arguments == {"to": "ann@example.org", "subject": "Q3 plan", "body": "see attached"}


def test_numbers_are_coerced_to_the_declared_integer_type() -> None:
    extraction = extract_arguments(TICKETS, "show tickets limit 5")

    assert extraction.arguments == {"limit": 5}


def test_a_value_outside_the_enum_is_reported_never_passed_on() -> None:
    extraction = extract_arguments(TICKETS, "tickets with priority=extreme")

    assert "priority" not in extraction.arguments
    assert "extreme" in extraction.invalid["priority"]


def test_missing_required_arguments_are_listed_not_invented() -> None:
    extraction = extract_arguments(EMAIL, "Send an email please")

    assert extraction.arguments == {}
    assert extraction.missing == ["to", "body"]


def test_a_bare_answer_fills_the_one_argument_that_was_asked_for() -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

    extraction = extract_arguments(schema, "greet someone", answer="grace", asked=["name"])

    assert extraction.arguments == {"name": "grace"}
    assert extraction.sources["name"] == "the operator's answer"


def test_an_answer_keeps_what_the_request_already_stated() -> None:
    extraction = extract_arguments(EMAIL, "Send an email saying hi", answer="bob@example.com", asked=["to"])

    assert extraction.arguments == {"to": "bob@example.com", "body": "hi"}
    assert extraction.missing == []


def test_file_names_fill_path_arguments() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}

    assert extract_arguments(schema, "What is in docs/notes.md?").arguments == {"path": "docs/notes.md"}


def test_scores_favour_name_matches_and_are_stable(demo_servers: SdkMcpClient) -> None:
    capabilities = demo_servers.discover().capabilities()

    first = rank(capabilities, "List the files in the managed project folder.", "tool", [])
    again = rank(capabilities, "List the files in the managed project folder.", "tool", [])

    assert first[0].capability.key == "filesystem__list_directory"
    assert [s.capability.key for s in first] == [s.capability.key for s in again]
    assert any("name matches" in reason for reason in first[0].reasons)


def test_a_preferred_server_gets_a_bonus_but_a_weak_match_stays_weak(demo_servers: SdkMcpClient) -> None:
    capabilities = demo_servers.discover().capabilities()

    ranked = rank(capabilities, "Book me a flight to Lisbon", "tool", ["greeter"])

    assert ranked[0].score < 5


def test_a_capability_that_acts_is_not_chosen_for_a_request_that_only_reads() -> None:
    read = Capability(
        key="s__read_note", server="s", type="tool", name="read_note", input_schema={"type": "object"}
    )
    delete = Capability(
        key="s__delete_note", server="s", type="tool", name="delete_note", input_schema={"type": "object"}
    )

    ranked = rank([delete, read], "read the note", "tool", [])

    assert ranked[0].capability.key == "s__read_note"
    assert ranked[1].score < ranked[0].score - 3
