"""Bad input at the front door: clear errors, nothing discovered, nothing lost."""

from __future__ import annotations

from typing import get_type_hints

from graph.builder import CompiledGraph
from graph.runner import thread_config
from graph.state import CORE_FIELDS, GraphState, fresh_request_state
from tests.fakes import FaultInjectingClient
from tests.support import ask, context_for


def test_input_over_the_limit_gets_a_clear_error_and_no_discovery(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(graph, client, "list " * 1000)

    assert outcome.path == ["preprocess_request", "generate_final_response"]
    assert outcome.final_output.status == "error"
    assert "4999 characters" in outcome.final_output.errors[0]
    assert "limit is 4000" in outcome.final_output.errors[0]
    assert client.discover_calls == 0


def test_input_limit_is_configurable(graph: CompiledGraph, client: FaultInjectingClient) -> None:
    from graph.runner import start_request

    outcome = start_request(graph, context_for(client, max_input_chars=10), "List the files please")

    assert outcome.final_output.status == "error"
    assert "limit is 10" in outcome.final_output.errors[0]


def test_control_and_invisible_characters_are_stripped(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(graph, client, "List\x00 the\u200b files\x1b in the\tmanaged project folder.\x07")

    assert outcome.state["request_text"] == "List the files in the managed project folder."
    assert outcome.final_output.status == "ok"


def test_a_new_request_on_a_finished_thread_starts_from_a_clean_state(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    ask(graph, client, "Please greet Ada", thread_id="t-reuse")
    second = ask(graph, client, "What is the Model Context Protocol?", thread_id="t-reuse")

    assert second.final_output.status == "answered_without_mcp"
    assert second.state["selected_capability"] is None
    assert second.state["mcp_result"] is None
    assert second.final_output.errors == []


def test_unknown_preferred_server_is_reported_not_ignored(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(
        graph, client, "List the files in the managed project folder.", server_preferences=["nosuch"]
    )

    assert outcome.final_output.status == "error"
    assert any("unknown preferred server 'nosuch'" in error for error in outcome.final_output.errors)
    assert "filesystem" in outcome.final_output.errors[-1]
    assert client.calls == []


def test_a_request_on_a_new_thread_writes_only_what_it_changes(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    # Each field a node returns is a row in the checkpointer's writes (and a list or a dict a
    # blob): a new thread already reads every per-request field as empty.
    written: dict[str, object] = {}
    for update in graph.stream(
        {"input": "What is the Model Context Protocol?", "thread_id": "t-new", "requester": "ann"},
        thread_config("t-new"),
        context=context_for(client),
        stream_mode="updates",
    ):
        written |= update.get("preprocess_request") or {}

    assert written == {"request_text": "What is the Model Context Protocol?"} | {
        field: fresh for field, fresh in fresh_request_state("", "", []).items() if field in CORE_FIELDS
    }
    assert len(written) == 1 + len(CORE_FIELDS)


def test_an_outcome_shows_the_whole_state_though_empty_fields_were_never_written(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(graph, client, "What is the Model Context Protocol?", thread_id="t-whole")

    assert set(outcome.state) >= set(get_type_hints(GraphState)) - {"review_round"}
    assert (outcome.state["proposed_arguments"], outcome.state["review"]) == ({}, None)
