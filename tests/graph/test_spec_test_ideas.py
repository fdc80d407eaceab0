"""The workflow pattern's test ideas, one test each, on the real bundled servers."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from graph.builder import CompiledGraph
from graph.trace import route_from_checkpoints
from tests.fakes import FaultInjectingClient
from tests.graph.routes import DIRECT_ANSWER, DISCOVER_SELECT_VALIDATE, EXECUTE, HAPPY, START, TO_REVIEW
from tests.support import ask

CORE_FIELDS = ("intent", "capability_manifest", "selected_capability", "capability_validation", "errors")


def test_happy_path_lists_the_managed_folder_through_list_directory(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(graph, client, "List the files in the managed project folder.")

    output = outcome.final_output
    assert outcome.path == HAPPY
    assert output.status == "ok"
    assert output.selected_capability is not None
    assert output.selected_capability.model_dump() == {
        "server": "filesystem",
        "type": "tool",
        "name": "list_directory",
    }
    assert "sample.txt" in output.response and "notes.md" in output.response
    assert output.mcp_result_summary is not None
    assert output.mcp_result_summary["success"] is True
    assert output.mcp_result_summary["item_count"] == 2
    assert client.calls == [("filesystem", "list_directory", {})]


def test_text_resource_is_discovered_validated_and_integrated(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(graph, client, "Read the support handbook document.")

    assert outcome.path == HAPPY
    assert outcome.final_output.status == "ok"
    assert outcome.state["selected_capability"]["type"] == "resource"
    assert outcome.state["selected_capability"]["uri"] == "docs://support-handbook"
    assert outcome.state["capability_validation"]["output_expectation"] == "readable"
    assert outcome.state["mcp_request"]["method"] == "resources/read"
    assert "handbook" in outcome.state["context_update"]["text"].lower()
    assert outcome.final_output.response.startswith("documents/docs://support-handbook returned")


def test_prompt_template_is_selected_as_a_prompt_not_a_tool(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(graph, client, "Use the summarize tickets prompt with priority urgent and status pending.")

    selected = outcome.state["selected_capability"]
    assert (selected["server"], selected["type"], selected["name"]) == (
        "prompts",
        "prompt",
        "summarize_tickets",
    )
    assert outcome.state["mcp_request"]["method"] == "prompts/get"
    assert outcome.state["mcp_request"]["arguments"] == {"priority": "urgent", "status": "pending"}
    assert outcome.final_output.status == "ok"
    assert all(name == "summarize_tickets" for _, name, _ in client.calls)


def test_request_that_needs_no_mcp_is_answered_directly_without_discovery(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(graph, client, "What is the Model Context Protocol?")

    assert outcome.path == DIRECT_ANSWER
    assert outcome.final_output.status == "answered_without_mcp"
    assert outcome.state["intent"] == "answer_without_mcp"
    assert client.discover_calls == 0
    assert client.calls == []


def test_empty_manifest_answers_without_mcp(graph: CompiledGraph) -> None:
    from mcp_host.sdk_client import SdkMcpClient

    with SdkMcpClient({}) as empty:
        outcome = ask(graph, empty, "List the files in the managed project folder.")

    assert outcome.path == [*START, "discover_capabilities", "answer_without_mcp", "generate_final_response"]
    assert outcome.final_output.status == "answered_without_mcp"
    assert outcome.final_output.fallback_reason == "no MCP server is configured"


def test_missing_required_argument_asks_for_it_instead_of_inventing_one(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(graph, client, "Please greet someone for me.")

    assert outcome.path == TO_REVIEW
    assert outcome.final_output.status == "needs_clarification"
    assert outcome.final_output.missing_arguments == ["name"]
    assert "name" not in outcome.state["proposed_arguments"]
    assert client.calls == []


@pytest.mark.parametrize(
    ("request_text", "capability", "flag"),
    [
        ("Send an email to bob@example.com saying hi", "email__send_email", "sends_messages"),
        ('Write "remember the milk" to todo.txt', "filesystem__write_file", "writes_files"),
        ("Update ticket 7 status closed", "tickets__update_ticket", "updates_records"),
    ],
)
def test_high_impact_tools_route_to_mark_needs_review_and_run_nothing(
    graph: CompiledGraph, client: FaultInjectingClient, request_text: str, capability: str, flag: str
) -> None:
    outcome = ask(graph, client, request_text)

    assert outcome.path == TO_REVIEW
    assert outcome.final_output.status == "needs_review"
    assert outcome.state["selected_capability"]["key"] == capability
    assert outcome.final_output.review is not None
    assert flag in [f.code for f in outcome.final_output.review.flags]
    assert outcome.pending is not None and outcome.pending["stage"] == "before_execution"
    assert client.calls == []


def test_opaque_pdf_output_is_rejected_by_integrate_result(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    from tests.fakes import opaque_pdf

    client.faults["docs://support-handbook"] = [opaque_pdf]

    outcome = ask(graph, client, "Read the support handbook document.")

    assert outcome.path == [*HAPPY[:-1], "mark_needs_review"]
    assert outcome.final_output.status == "needs_review"
    assert outcome.final_output.review is not None
    assert "opaque_output" in [flag.code for flag in outcome.final_output.review.flags]
    assert outcome.state["context_update"] is None


def test_recoverable_tool_failure_tries_another_candidate(
    graph: CompiledGraph, mirrored_client: FaultInjectingClient
) -> None:
    from tests.fakes import failure

    mirrored_client.faults["filesystem__list_directory"] = [failure("tool_error", "disk hiccup")]

    outcome = ask(
        graph, mirrored_client, "List the files in the project folder.", server_preferences=["filesystem"]
    )

    assert outcome.path == [*HAPPY[:-2], *DISCOVER_SELECT_VALIDATE[1:], *EXECUTE, *HAPPY[-2:]]
    assert [call[0] for call in mirrored_client.calls] == ["filesystem", "mirror"]
    assert outcome.final_output.status == "ok"
    assert outcome.final_output.selected_capability is not None
    assert outcome.final_output.selected_capability.server == "mirror"
    assert any("disk hiccup" in error for error in outcome.final_output.errors)


def test_repeated_transport_failure_stops_after_a_bounded_number_of_attempts(
    graph: CompiledGraph, mirrored_client: FaultInjectingClient
) -> None:
    from tests.fakes import failure

    for key in ("filesystem__list_directory", "mirror__list_directory"):
        mirrored_client.faults[key] = [failure("unavailable", "connection reset")]

    outcome = ask(
        graph, mirrored_client, "List the files in the project folder.", server_preferences=["filesystem"]
    )

    assert len(mirrored_client.calls) == 2
    assert outcome.path.count("invoke_mcp_capability") == 2
    assert outcome.path[-1] == "mark_needs_review"
    assert outcome.final_output.status == "needs_review"
    assert outcome.final_output.review is not None
    assert outcome.final_output.review.stage == "after_failure"
    assert "repeated_transport_failure" in [flag.code for flag in outcome.final_output.review.flags]


@pytest.mark.parametrize(
    "request_text",
    [
        "List the files in the managed project folder.",
        "What is the Model Context Protocol?",
        "   ",
        "Book me a flight to Lisbon next week.",
        "Read the quarterly report pdf document.",
    ],
)
def test_final_state_always_holds_the_core_fields(
    graph: CompiledGraph, client: FaultInjectingClient, request_text: str
) -> None:
    outcome = ask(graph, client, request_text, thread_id="t-core")

    state: dict[str, Any] = outcome.state
    for name in CORE_FIELDS:
        assert name in state, name
    assert state["final_output"] == outcome.final_output.model_dump(mode="json")
    assert route_from_checkpoints(graph, "t-core") == outcome.path


def test_requests_run_with_no_network_at_all(
    graph: CompiledGraph, client: FaultInjectingClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a test tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)

    outcome = ask(graph, client, "Summarize the open high-priority support tickets.")

    assert outcome.final_output.status == "ok"
    assert outcome.state["mcp_request"]["arguments"] == {"priority": "high", "status": "open"}
