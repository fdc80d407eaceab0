"""The state's declared shapes match what the nodes put in it, and a new request starts clean."""

from __future__ import annotations

import json
from typing import Any, NotRequired, cast, get_origin, get_type_hints

import pytest
from pydantic import BaseModel

from graph import state as shapes
from graph.accessors import capability_data, result_data
from graph.nodes import review_payload
from graph.state import (
    CORE_FIELDS,
    PER_THREAD_FIELDS,
    GraphState,
    ReviewPayload,
    ReviewStage,
    SelectedCapability,
    changes,
    fresh_request_state,
)
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
    (shapes.EffectBindingData, shapes.EffectBinding),
    (shapes.ArgumentChangesData, shapes.ArgumentChanges),
    (shapes.CapabilityRefData, shapes.CapabilityRef),
    (shapes.ChoiceData, shapes.Choice),
    (shapes.AskedData, shapes.Asked),
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
        "asked",
        "ignored_calls",
    }


def test_the_result_a_reviewer_is_shown_is_a_result_without_its_content() -> None:
    # review_payload drops "content" from the state's result and casts the rest to this.
    assert set(get_type_hints(shapes.ReviewedResult)) == _dumped_keys(McpResult) - {"content"}


def _selected(key: str, ambiguous_with: str | None = None) -> SelectedCapability:
    server, name = key.split("__", 1)
    capability = Capability(key=key, server=server, type="tool", name=name, description="Send an e-mail.")
    return {
        **capability_data(capability),
        "score": 9.0,
        "reason": "its name",
        "explanation": "It sends e-mail.",
        "planner": "deterministic",
        "planner_fallback": None,
        "ambiguous_with": ambiguous_with,
        "asked": {"reason": "tie", "language": None, "not_offered": []} if ambiguous_with else None,
        "ignored_calls": [],
    }


def _optional_keys(shape: Any) -> set[str]:
    """The keys a TypedDict marks NotRequired. Not ``__optional_keys__``: on Python 3.11 that is
    empty when the annotations are strings (``from __future__ import annotations``)."""
    hints = get_type_hints(shape, include_extras=True)
    return {name for name, hint in hints.items() if get_origin(hint) is NotRequired}


def _paused(stage: ReviewStage, selected: SelectedCapability) -> GraphState:
    """A request's state as mark_needs_review reads it, paused at ``stage``."""
    state = fresh_request_state("Send an email to bob@example.com", "ann", [])
    state["thread_id"] = "t1"
    state["selected_capability"] = selected
    state["review_stage"] = stage
    return state


def test_a_review_before_execution_carries_exactly_the_payloads_required_keys() -> None:
    payload = review_payload(_paused("before_execution", _selected("email__send_email")))

    assert set(payload) == set(get_type_hints(ReviewPayload)) - _optional_keys(ReviewPayload)


def test_a_review_payload_carries_every_key_it_declares_and_stays_plain_json() -> None:
    # A question between two capabilities, about a definition that changed, after a failed call.
    state = _paused("clarification", _selected("email__send_email", ambiguous_with="email__send_draft"))
    state["previous_definition"] = {"description": "Send a note."}
    failed = McpResult.failure("email", "tool", "send_email", ErrorInfo(kind="timeout", message="slow"))
    state["mcp_result"] = result_data(failed)

    payload = review_payload(state)

    # resume_refused is only on the interrupt a refused resume raises again (graph/nodes/review.py).
    assert set(payload) == set(get_type_hints(ReviewPayload)) - {"resume_refused"}
    assert _optional_keys(ReviewPayload) == {
        "question",
        "choices",
        "asked",
        "previous_capability",
        "result",
        "resume_refused",
    }
    # Checkpointed as the thread's pending interrupt and stored by the ledger: JSON as it is.
    assert json.loads(json.dumps(payload)) == payload


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


def test_a_reset_changes_what_the_thread_holds_differently_and_what_it_never_held_unless_empty() -> None:
    fresh = fresh_request_state("Send an email to bob@example.com", "ann", [])
    thread: GraphState = {
        "input": "Send an email to bob@example.com",
        "thread_id": "t1",
        "requester": "ann",  # as the request came: left alone
        "server_preferences": [],
        "errors": ["the last request's error"],  # stale: reset
        "invoke_attempts": 2,  # stale: reset
        "selected_capability": None,  # already empty: left alone
    }

    writes = changes(thread, fresh)

    never_held_but_core = CORE_FIELDS - set(thread)
    assert never_held_but_core == {
        "intent",
        "operation_type",
        "capability_manifest",
        "candidate_capabilities",
        "capability_validation",
        "mcp_request",
        "mcp_result",
        "context_update",
        "fallback_reason",
        "needs_human_review",
        "final_output",
    }
    core_as_fresh = {field: value for field, value in fresh.items() if field in never_held_but_core}
    stale = {"request_text": "Send an email to bob@example.com", "errors": [], "invoke_attempts": 0}
    assert writes == stale | core_as_fresh
    # Gatehouse's own fields the thread never held and reads as empty are not written.
    assert not {"review", "approved_call", "tried_capabilities", "argument_sources"} & set(writes)


def test_after_a_reset_every_field_reads_as_a_fresh_request_has_it() -> None:
    # What a node sees: the thread's values, then the reset's writes; a field still missing
    # reads as empty (graph/accessors.py), which is what a fresh request holds for it.
    stale = fresh_request_state("Send an email", "bob", ["email"]) | {
        "intent": "send_email",
        "errors": ["boom"],
        "review_stage": "before_execution",
        "tried_capabilities": ["email__send_email"],
        "needs_human_review": True,
    }
    fresh = fresh_request_state("List the files", "ann", [])
    for before in (cast("GraphState", {"input": "List the files"}), stale):
        after = cast("dict[str, Any]", before) | cast("dict[str, Any]", changes(before, fresh))
        for key, value in fresh.items():
            assert after.get(key, type(value)() if value is not None else None) == value, key


def test_a_list_changed_in_place_is_still_written() -> None:
    errors = ["first"]
    state: GraphState = {"errors": errors, "intent": "read", "invoke_attempts": 1}
    errors.append("second")  # a node that appended to the state's own list

    assert changes(state, {"errors": errors, "intent": "read", "invoke_attempts": 1}) == {
        "errors": ["first", "second"]
    }
