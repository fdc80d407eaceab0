"""The workflow pattern's failure cases (blank input, no server, a malformed manifest, ...), one test each."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp import StdioServerParameters
from mcp.server import Server

from gatehouse.display.render import render_text
from graph.builder import CompiledGraph
from mcp_host.manifest import Manifest
from mcp_host.sdk_client import SdkMcpClient
from mcp_host.transports import ServerTarget
from servers.catalog import build_all
from tests.fakes import FaultInjectingClient, failure, untrusted
from tests.graph.routes import DISCOVER_SELECT_VALIDATE, HAPPY, START, TO_REVIEW
from tests.support import ask


def test_blank_input_fails_in_preprocess_without_discovery(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(graph, client, " \t\n ")

    assert outcome.path == ["preprocess_request", "generate_final_response"]
    assert outcome.final_output.status == "error"
    assert "empty" in outcome.final_output.errors[0]
    assert client.discover_calls == 0


def test_no_configured_server_explains_that_nothing_external_is_available(graph: CompiledGraph) -> None:
    with SdkMcpClient({}) as empty:
        outcome = ask(graph, empty, "Summarize the open high-priority support tickets.")

    assert outcome.final_output.status == "answered_without_mcp"
    assert outcome.final_output.response == (
        "Nothing configured can do that: no MCP server is configured, so nothing was run."
    )
    assert outcome.final_output.no_call_reason == "nothing_offered"


@pytest.mark.processes
def test_unavailable_server_is_recorded_while_the_others_still_serve(
    graph: CompiledGraph, data_dir: Path
) -> None:
    broken = StdioServerParameters(command=sys.executable, args=["-c", "import sys; sys.exit(3)"])
    with SdkMcpClient({**build_all(data_dir), "broken": broken}, connect_timeout=20) as mixed:
        outcome = ask(graph, mixed, "List the files in the managed project folder.")

    assert outcome.final_output.status == "ok"
    # Recorded in the run (its errors, the trace); the answer, served by another, shows none of it.
    assert any(error.startswith("server broken: unavailable") for error in outcome.state["errors"])
    assert outcome.final_output.errors == [] and outcome.final_output.server_notes == []
    broken_entry = next(s for s in outcome.state["capability_manifest"]["servers"] if s["name"] == "broken")
    assert broken_entry["ok"] is False


def test_malformed_manifest_records_the_error_and_invokes_nothing(graph: CompiledGraph) -> None:
    calls: list[str] = []

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        # A listing the protocol forbids: an input schema that is not an object schema.
        return types.ListToolsResult(tools=[types.Tool(name="list_files", input_schema={"type": "string"})])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        calls.append(params.name)
        return types.CallToolResult(content=[types.TextContent(type="text", text="ran")])

    broken = Server("files", on_list_tools=list_tools, on_call_tool=call_tool)
    with SdkMcpClient({"files": broken}) as only_broken:
        outcome = ask(graph, only_broken, "List the files in the managed project folder.")

    assert outcome.path == [*START, "discover_capabilities", "answer_without_mcp", "generate_final_response"]
    assert outcome.final_output.status == "error"
    assert any(error.startswith("server files: protocol") for error in outcome.state["errors"])
    # The answer needed that server (nothing else could serve it): a note says what is wrong.
    assert any(note.startswith("files is not available") for note in outcome.final_output.server_notes)
    assert calls == []


def test_ambiguous_candidates_ask_which_one_instead_of_guessing(
    graph: CompiledGraph, mirrored_client: FaultInjectingClient
) -> None:
    outcome = ask(graph, mirrored_client, "List the files in the project folder.", thread_id="t-amb")

    assert outcome.final_output.status == "needs_clarification"
    assert outcome.final_output.review is not None
    assert "ambiguous_selection" in [flag.code for flag in outcome.final_output.review.flags]
    assert "filesystem__list_directory" in outcome.final_output.response
    assert "mirror__list_directory" in outcome.final_output.response
    assert mirrored_client.calls == []


def test_replying_with_a_capability_key_settles_an_ambiguous_choice(
    graph: CompiledGraph, mirrored_client: FaultInjectingClient
) -> None:
    from graph.state import ReviewDecision
    from reviews.resume import resume
    from tests.support import context_for

    asked = ask(graph, mirrored_client, "List the files in the project folder.", thread_id="t-pick")
    reply = ReviewDecision(action="answer", by="operator", text="mirror__list_directory")

    done = resume(graph, context_for(mirrored_client), "t-pick", reply)

    assert asked.final_output.status == "needs_clarification"
    assert done.final_output.status == "ok"
    assert mirrored_client.calls == [("mirror", "list_directory", {})]


def test_a_name_both_candidates_share_does_not_settle_the_choice(
    graph: CompiledGraph, mirrored_client: FaultInjectingClient
) -> None:
    from graph.state import ReviewDecision
    from reviews.resume import resume
    from tests.support import context_for

    ask(graph, mirrored_client, "List the files in the project folder.", thread_id="t-same-name")
    reply = ReviewDecision(action="answer", by="operator", text="list_directory")

    done = resume(graph, context_for(mirrored_client), "t-same-name", reply)

    assert done.final_output.status == "needs_clarification"
    assert mirrored_client.calls == []


def test_weak_candidates_answer_without_mcp(graph: CompiledGraph, client: FaultInjectingClient) -> None:
    outcome = ask(graph, client, "Book me a flight to Lisbon next week.")

    no_match = ["discover_capabilities", "select_capability", "answer_without_mcp", "generate_final_response"]
    assert outcome.path == [*START, *no_match]
    assert outcome.final_output.status == "answered_without_mcp"
    assert "well enough" in (outcome.final_output.fallback_reason or "")
    assert client.calls == []


def test_legacy_listing_without_filters_is_never_called(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    def legacy_only(manifest: Manifest) -> Manifest:
        servers = []
        for server in manifest.servers:
            kept = [c for c in server.capabilities if c.key == "tickets__list_all_tickets"]
            servers.append(server.model_copy(update={"capabilities": kept}))
        return Manifest(servers=servers)

    client.manifest_filter = legacy_only

    outcome = ask(graph, client, "List all tickets.")

    assert outcome.path == [
        *START,
        *DISCOVER_SELECT_VALIDATE,
        "answer_without_mcp",
        "generate_final_response",
    ]
    assert "unbounded_listing" in [f["code"] for f in outcome.state["capability_validation"]["flags"]]
    assert outcome.final_output.status == "answered_without_mcp"
    # Chosen, then found unusable: said as what happened, not as "answered without MCP".
    assert outcome.final_output.no_call_reason == "not_usable"
    assert outcome.final_output.response.startswith(
        "Nothing was run: tickets__list_all_tickets returns every record"
    )
    assert client.calls == []


def test_bounded_search_is_preferred_over_the_legacy_listing(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(graph, client, "List all tickets.")

    assert outcome.state["selected_capability"]["key"] == "tickets__search_tickets"
    assert outcome.final_output.status == "ok"


def test_declared_binary_resource_is_unusable_before_anything_is_read(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(graph, client, "Read the quarterly report pdf document.")

    assert outcome.path == [
        *START,
        *DISCOVER_SELECT_VALIDATE,
        "answer_without_mcp",
        "generate_final_response",
    ]
    assert outcome.state["capability_validation"]["output_expectation"] == "opaque"
    assert "application/pdf" in (outcome.final_output.fallback_reason or "")
    assert client.calls == []


def test_argument_outside_the_schema_is_flagged_and_never_sent(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(graph, client, "Search tickets with priority=extreme")

    assert outcome.final_output.status == "needs_clarification"
    assert outcome.final_output.review is not None
    flags = {flag.code: flag.message for flag in outcome.final_output.review.flags}
    assert "priority" in flags["invalid_argument"] and "extreme" in flags["invalid_argument"]
    assert client.calls == []


def test_auth_failure_goes_to_review_and_is_not_retried(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    client.faults["filesystem__list_directory"] = [failure("auth", "401 unauthorized")]

    outcome = ask(graph, client, "List the files in the managed project folder.")

    assert outcome.path == [*HAPPY[:-2], "mark_needs_review"]
    assert len(client.calls) == 1
    assert outcome.final_output.status == "needs_review"
    assert outcome.final_output.review is not None
    assert outcome.final_output.review.stage == "after_failure"
    assert "auth_failure" in [flag.code for flag in outcome.final_output.review.flags]


def test_write_actions_need_explicit_approval(graph: CompiledGraph, client: FaultInjectingClient) -> None:
    outcome = ask(graph, client, 'Write "remember the milk" to todo.txt')

    assert outcome.path == TO_REVIEW
    assert outcome.pending is not None
    assert outcome.pending["arguments"] == {"path": "todo.txt", "content": "remember the milk"}


def test_timeout_with_no_other_candidate_ends_in_a_clear_error(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    client.faults["greeter__greet"] = [failure("timeout", "no answer within 30 s")]

    outcome = ask(graph, client, "Greet Ada")

    assert outcome.path == HAPPY
    assert len(client.calls) == 1
    assert outcome.final_output.status == "error"
    assert "timeout" in (outcome.final_output.fallback_reason or "")


def test_oversized_output_is_capped_before_it_enters_the_state(
    graph: CompiledGraph, client: FaultInjectingClient, data_dir: Path
) -> None:
    (data_dir / "project" / "big.txt").write_text("x" * 300_000, encoding="utf-8")

    outcome = ask(graph, client, "Read the file big.txt")

    result = outcome.state["mcp_result"]
    kept = sum(len((item.get("text") or "").encode()) for item in result["content"])
    assert outcome.final_output.status == "ok"
    assert result["truncated"] is True
    assert kept <= 64 * 1024
    assert result["original_bytes"] >= 300_000
    assert outcome.final_output.mcp_result_summary is not None
    assert outcome.final_output.mcp_result_summary["truncated"] is True
    assert "truncated" in outcome.final_output.response


def test_output_that_fails_the_hosts_checks_is_never_trusted_context(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    client.faults["filesystem__list_directory"] = [untrusted]

    outcome = ask(graph, client, "List the files in the managed project folder.")

    assert outcome.path[-1] == "mark_needs_review"
    assert outcome.final_output.status == "needs_review"
    assert outcome.final_output.review is not None
    assert outcome.final_output.review.stage == "untrusted_output"
    assert outcome.state["context_update"] is None


@pytest.mark.processes
def test_stdio_and_in_process_servers_run_through_the_same_adapter(
    graph: CompiledGraph, data_dir: Path
) -> None:
    repo = Path(__file__).resolve().parents[2]
    greeter = StdioServerParameters(
        command=sys.executable, args=["-m", "servers.greeter", "--data-dir", str(data_dir)], cwd=str(repo)
    )
    targets: dict[str, ServerTarget] = {**build_all(data_dir), "greeter": greeter}
    with SdkMcpClient(targets, connect_timeout=20) as mixed:
        greeting = ask(graph, mixed, "Greet Ada")
        listing = ask(graph, mixed, "List the files in the managed project folder.")

    assert greeting.final_output.status == "ok"
    assert "Hello, Ada!" in greeting.final_output.response
    assert listing.final_output.status == "ok"


@pytest.mark.parametrize("reply", ["tickets__ticket", "ticket", "the ticket one please: tickets__ticket"])
def test_replying_with_either_candidates_name_or_key_settles_which_one(
    graph: CompiledGraph, client: FaultInjectingClient, reply: str
) -> None:
    from graph.runner import start_request
    from graph.state import ReviewDecision
    from reviews.resume import resume
    from tests.support import context_for

    # The planner tells the ticket resource from the search (by 2 points); a wide ambiguity
    # margin makes the two a question, as two close candidates are (each uses a value the other
    # leaves out: the ticket 13, the search the status open).
    wide = context_for(client, ambiguity_margin=5.0)
    asked = start_request(graph, wide, "show ticket 13 if it is still open", thread_id="t-which")
    assert asked.final_output.status == "needs_clarification"
    assert "tickets__ticket" in asked.final_output.response
    assert asked.final_output.review is not None
    assert sorted(c.key for c in asked.final_output.review.choices) == [
        "tickets__search_tickets",
        "tickets__ticket",
    ]
    assert "choose:     tickets__" in render_text(asked.final_output.model_dump(mode="json"))

    done = resume(graph, wide, "t-which", ReviewDecision(action="answer", by="operator", text=reply))

    assert done.final_output.status == "ok"
    assert done.final_output.selected_capability is not None
    assert done.final_output.selected_capability.name == "ticket"


def test_a_tool_whose_input_schema_is_itself_invalid_is_unusable_not_a_question(graph: CompiledGraph) -> None:
    calls: list[str] = []
    # An object schema, so the listing is accepted, with a property type JSON Schema does not have.
    schema = {"type": "object", "properties": {"path": {"type": "filename"}}, "required": ["path"]}

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        tool = types.Tool(
            name="list_files",
            description="List the files in the managed project folder.",
            input_schema=schema,
            annotations=types.ToolAnnotations(read_only_hint=True),
        )
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        calls.append(params.name)
        return types.CallToolResult(content=[types.TextContent(type="text", text="ran")])

    broken = Server("files", on_list_tools=list_tools, on_call_tool=call_tool)
    with SdkMcpClient({"files": broken}) as only_broken:
        outcome = ask(graph, only_broken, "List the files in the managed project folder.")

    assert outcome.final_output.status != "needs_clarification"
    assert outcome.final_output.missing_arguments == []
    assert "not valid JSON Schema" in (outcome.final_output.fallback_reason or "")
    assert calls == []


def test_weak_candidates_are_explained_in_a_sentence_not_in_scores_and_thresholds(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    outcome = ask(graph, client, "Book me a flight to Lisbon next week.")

    response = outcome.final_output.response
    assert response.startswith(
        "Nothing configured can do that, so nothing was run. The closest capabilities: 1) "
    )
    assert "threshold" not in response and "score" not in response and "points" not in response
    assert outcome.final_output.status == "answered_without_mcp"
    assert outcome.final_output.no_call_reason == "nothing_fits"
    # The machine's field keeps its words.
    assert "the threshold is" in (outcome.final_output.fallback_reason or "")
