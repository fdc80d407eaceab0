"""A question about ideas (how two things differ, the best way to do something) needs no
server, unless it states something to act on; and the text after a colon is the value of the
property the words before it name ("this insight ...: <text>"), or of a content property when
it is quoted. Made-up words."""

from __future__ import annotations

import pytest

from graph.planner.arguments import extract_arguments
from graph.planner.intent import classify

_NOTE = {
    "type": "object",
    "properties": {"remark": {"type": "string", "description": "A remark to keep."}},
    "required": ["remark"],
}
_MAIL = {
    "type": "object",
    "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
    "required": ["to", "body"],
}


@pytest.mark.parametrize(
    "text",
    [
        "What's the difference between a queue and a topic?",
        "What is the best formula to count unique values?",
        "What's the recommended way to rotate a log?",
    ],
)
def test_a_question_about_ideas_needs_no_server(text: str) -> None:
    assert classify(text).intent == "answer_without_mcp"


def test_a_question_about_ideas_that_states_something_to_act_on_is_an_operation() -> None:
    assert classify("What's the difference between draft.md and final.md?").intent == "execute_tool"
    assert classify("What's the difference between main and dev in /srv/repo?").intent == "execute_tool"


def test_the_text_after_a_colon_is_the_value_of_the_property_the_words_before_it_name() -> None:
    extraction = extract_arguments(_NOTE, "Keep this remark in the log: the backup ran late twice")

    assert extraction.arguments == {"remark": "the backup ran late twice"}


def test_a_quoted_text_after_a_colon_is_the_content_of_a_message() -> None:
    extraction = extract_arguments(_MAIL, "Mail ana@example.com: « The meeting moved to 3pm »")

    assert extraction.arguments == {"to": "ana@example.com", "body": "The meeting moved to 3pm"}


def test_a_colon_inside_a_value_is_no_colon_of_the_request() -> None:
    extraction = extract_arguments(_NOTE, "Keep the remark for session:alice")

    assert extraction.arguments.get("remark") != "alice"


def test_a_key_and_its_value_written_out_are_no_lead_in_and_its_colon() -> None:
    # '"apiKey": "..."' is what the message says, quoted key and all; not "the key is the body".
    extraction = extract_arguments(_MAIL, 'Mail ana@example.com saying "apiKey": "SK7-abc123def456"')

    assert extraction.arguments.get("body") != "SK7-abc123def456"
