"""The state's declared shapes match what the nodes put in it, and a new request starts clean."""

from __future__ import annotations

from typing import Any, get_type_hints

import pytest
from pydantic import BaseModel

from graph import state as shapes
from graph.state import PER_THREAD_FIELDS, GraphState, fresh_request_state
from mcp_host.errors import ErrorInfo
from mcp_host.manifest import Capability, Manifest, ServerManifest
from mcp_host.results import ContentItem, McpResult
from policies.decision import Flag, ReviewTerms


def _dumped_keys(model: type[BaseModel]) -> set[str]:
    """The keys ``model_dump`` writes: its fields and its computed fields."""
    return set(model.model_fields) | set(model.model_computed_fields)


# Each TypedDict that mirrors a model's JSON, with its model: a field added to a model without
# its mirror (or the other way round) fails here, which is what keeps graph/accessors.py's
# casts from model_dump honest.
MIRRORS: list[tuple[Any, type[BaseModel]]] = [
    (shapes.FlagData, Flag),
    (shapes.CapabilityDefinition, Capability),
    (shapes.ErrorInfoData, ErrorInfo),
    (shapes.ServerManifestData, ServerManifest),
    (shapes.ManifestData, Manifest),
    (shapes.ReviewTermsData, ReviewTerms),
    (shapes.McpRequestData, shapes.McpRequest),
    (shapes.ContentItemData, ContentItem),
    (shapes.McpResultData, McpResult),
    (shapes.ReviewDecisionData, shapes.ReviewDecision),
    (shapes.ArgumentChangesData, shapes.ArgumentChanges),
    (shapes.CapabilityRefData, shapes.CapabilityRef),
    (shapes.ChoiceData, shapes.Choice),
    (shapes.ReviewSummaryData, shapes.ReviewSummary),
    (shapes.FinalOutputData, shapes.FinalOutput),
]


@pytest.mark.parametrize(("mirror", "model"), MIRRORS, ids=[m.__name__ for _, m in MIRRORS])
def test_every_state_shape_declares_exactly_its_models_fields(mirror: Any, model: type[BaseModel]) -> None:
    assert set(get_type_hints(mirror)) == _dumped_keys(model)


def test_the_selected_capability_is_a_capability_definition_plus_the_selection() -> None:
    selection_fields = set(get_type_hints(shapes.SelectedCapability)) - _dumped_keys(Capability)

    assert selection_fields == {
        "score",
        "reason",
        "explanation",
        "planner",
        "planner_fallback",
        "ambiguous_with",
    }


def test_a_fresh_request_resets_every_field_but_the_threads_own() -> None:
    # From the type itself: a field added to GraphState later without a reset fails here.
    fields = set(get_type_hints(GraphState))
    fresh = fresh_request_state("List the files", "ann", ["filesystem"])

    assert set(fresh) == fields - PER_THREAD_FIELDS
    assert fields >= PER_THREAD_FIELDS


def test_a_fresh_request_keeps_who_asked_and_where_and_nothing_else() -> None:
    preferences = ["filesystem"]
    fresh = fresh_request_state("List the files", "ann", preferences)

    assert (fresh["request_text"], fresh["requester"], fresh["server_preferences"]) == (
        "List the files",
        "ann",
        ["filesystem"],
    )
    # A copy: the caller's list is not the state's.
    assert fresh["server_preferences"] is not preferences
    left = {k: v for k, v in fresh.items() if k not in {"request_text", "requester", "server_preferences"}}
    assert all(value in (None, False, 0, [], {}) for value in left.values()), left


def test_two_fresh_requests_share_no_mutable_value() -> None:
    first = fresh_request_state("a", "ann", [])
    second = fresh_request_state("b", "ann", [])

    shared = [
        key
        for key, value in first.items()
        if isinstance(value, list | dict) and value is second[key]  # type: ignore[literal-required]
    ]
    assert shared == []
