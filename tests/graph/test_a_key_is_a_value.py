"""A store's key written in a request ("config:feature_flags", "session:*") is a value, as a path
or an address is: its parts are no words of the request, so a capability named for one of them
("features.md") is not what the request asks for."""

from __future__ import annotations

from graph.context import Limits
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from graph.planner.text import words
from mcp_host.manifest import Capability
from tests.capabilities import tool

FEATURES = Capability(
    key="docs__features.md",
    server="docs",
    type="resource",
    name="features.md",
    description="The features of the product, as markdown.",
    uri="docs://features.md",
    mime_type="text/markdown",
)
STORE = [
    tool("store", "get", "Get the value of a key.", {"key": {"type": "string"}}, ["key"], {"readOnlyHint": True}),
    tool("store", "set", "Set a key to a value.", {"key": {"type": "string"}, "value": {"type": "string"}}, ["key", "value"]),
]  # fmt: skip


def test_the_parts_of_a_key_are_no_words_of_the_request() -> None:
    assert "feature" not in words("What is in config:feature_flags?")
    assert "session" not in words("Delete session:bob")
    # A colon before a space is punctuation, not a key: its words stay.
    assert "agenda" in words("Note: the agenda is in the shared folder")


def test_a_capability_named_for_a_word_inside_a_key_is_not_chosen_for_it() -> None:
    for kind in ("", "resource"):
        selection = DeterministicPlanner().select(
            PlanningRequest(text="What is in config:feature_flags?", operation_type=kind),
            [FEATURES, *STORE],
            Limits(),
        )

        assert selection.chosen is None or selection.chosen.capability.key != "docs__features.md", kind


def test_a_question_only_about_what_a_key_holds_reads_that_key() -> None:
    # The key's parts ("counter", "visits") name the thing asked for: they are no topic the
    # servers must know, as a file name's words are not.
    for text in (
        "What's counter:visits at right now?",
        "What's stored under session:alice?",
        "what does prefs:alice hold?",
        "Show me the value of session:bob",
    ):
        selection = DeterministicPlanner().select(PlanningRequest(text=text), [FEATURES, *STORE], Limits())

        assert selection.chosen is not None, text
        assert selection.chosen.capability.key == "store__get", text
        assert selection.arguments is not None
        assert selection.arguments.arguments["key"] in text


def test_anything_else_asked_about_a_key_still_needs_words_a_capability_knows() -> None:
    # Nothing here reads a key's time to live: the question is not what the key holds.
    for text in ("How long until session:alice expires?", "Who wrote session:alice, and why?"):
        selection = DeterministicPlanner().select(PlanningRequest(text=text), [FEATURES, *STORE], Limits())

        assert selection.chosen is None, text
