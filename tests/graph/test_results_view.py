"""A result's one readable answer: a list it is about, or the object it returned."""

from __future__ import annotations

from typing import Any

from graph.results_view import describe
from graph.state import ContextUpdate


def context(structured: dict[str, Any], records: list[Any] | None) -> ContextUpdate:
    return {
        "source": "thinking/sequentialthinking",
        "capability_type": "tool",
        "text": "",
        "records": records,
        "structured": structured,
        "truncated": False,
        "untrusted": False,
    }


def test_an_empty_listing_found_nothing() -> None:
    for structured in ({"tickets": [], "total": 0, "next_cursor": None}, {"path": "sub", "entries": []}):
        answer = describe(context(structured, []), 500)

        assert answer == "thinking/sequentialthinking found nothing matching the request."


def test_an_object_with_an_empty_list_among_its_fields_is_that_object_not_nothing_found() -> None:
    # @modelcontextprotocol/server-sequential-thinking answers every thought with such an
    # object; it was told as "found nothing matching the request".
    structured = {
        "thoughtNumber": 1,
        "totalThoughts": 3,
        "nextThoughtNeeded": True,
        "branches": [],
        "thoughtHistoryLength": 1,
    }

    answer = describe(context(structured, []), 500)

    assert "found nothing" not in answer
    assert "thoughtNumber: 1" in answer and "nextThoughtNeeded: true" in answer
