"""A request whose closest capability the policy refuses whatever the arguments is answered as
a refusal by the policy: that capability, the rule and its reason (the words a refused call is
told), and that nothing was run; never "Nothing configured can do that". A request that fits
an allowed capability is unaffected, and one that fits nothing is still told so, without
offering a refused capability as something to ask for. Through the real graph, the bundled
servers in-process (and a command runner shaped like mcp-shell-server's)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from mcp.server.mcpserver import MCPServer

from graph.builder import CompiledGraph
from graph.context import GraphContext
from graph.planner.model import ModelPlanner
from graph.runner import RunOutcome, start_request
from mcp_host.sdk_client import SdkMcpClient
from policies.engine import PolicyEngine
from policies.loader import parse_policy_text
from servers.catalog import build_all
from tests.graph.scripted_model import ScriptedChatModel
from tests.graphs import memory_graph
from tests.reviews.review_support import DEFAULT_POLICY_TEXT, NO_WRITES
from tests.support import DEFAULT_TEST_POLICY

graph = memory_graph

SHELL_REFUSAL = "policy rule shell access refused shell__shell_execute: Arbitrary commands are never run through Gatehouse."
WRITES_REFUSAL = "policy rule no writes refused filesystem__write_file: Agents write nothing."
NOTHING_FITS = "Nothing configured can do that"
FLIGHT = "Book me a flight to Lisbon next week."


def shell_server(calls: list[list[str]]) -> MCPServer:
    """A command runner as mcp-shell-server offers one (the shipped policy's "shell access"
    rule refuses it whatever the arguments); it notes every call it gets."""
    server = MCPServer("shell")

    @server.tool(description="Execute a shell command\nAllowed commands: ls, cat, pwd")
    def shell_execute(command: list[str], directory: str | None = None) -> str:
        calls.append(command)
        return "ran"

    return server


@pytest.fixture
def shell_calls() -> list[list[str]]:
    return []


@pytest.fixture
def with_shell(data_dir: Path, shell_calls: list[list[str]]) -> Iterator[GraphContext]:
    """The bundled servers and the command runner, under the shipped policy."""
    with SdkMcpClient(build_all(data_dir) | {"shell": shell_server(shell_calls)}) as mcp:
        yield GraphContext(mcp=mcp, policy=PolicyEngine(DEFAULT_TEST_POLICY))


@pytest.fixture
def no_writes(data_dir: Path) -> Iterator[GraphContext]:
    """The bundled servers under the shipped policy with a rule refusing the demo's file writes."""
    policy = parse_policy_text(
        DEFAULT_POLICY_TEXT.replace(*NO_WRITES),
        source="no-writes.toml",
        variables={"GATEHOUSE_DATA": "/nonexistent/gatehouse-data"},
    )
    with SdkMcpClient(build_all(data_dir)) as mcp:
        yield GraphContext(mcp=mcp, policy=PolicyEngine(policy))


def ask(graph: CompiledGraph, context: GraphContext, text: str) -> RunOutcome:
    return start_request(graph, context, text)


def test_a_plain_request_for_a_refused_command_runner_says_the_policy_refuses_it(
    graph: CompiledGraph, with_shell: GraphContext, shell_calls: list[list[str]]
) -> None:
    outcome = ask(graph, with_shell, "Run ls -la in /tmp")

    output = outcome.final_output
    assert output.response.startswith(
        "The closest fit for this request, Execute a shell command (shell), is refused by the policy "
        f"whatever the arguments: {SHELL_REFUSAL} Nothing was run."
    )
    assert NOTHING_FITS not in output.response
    # A refusal by the policy, as a refused call's: status error, the rule in errors.
    assert output.status == "error"
    assert output.errors == [SHELL_REFUSAL]
    assert output.no_call_reason is None
    assert output.selected_capability is None
    assert output.fallback_reason == "refused by policy: Arbitrary commands are never run through Gatehouse."
    assert "validate_capability" not in outcome.path and "invoke_mcp_capability" not in outcome.path
    assert shell_calls == []


def test_other_capabilities_the_request_pointed_at_are_offered_after_the_refusal(
    graph: CompiledGraph, with_shell: GraphContext
) -> None:
    response = ask(graph, with_shell, "Run ls -la in /tmp").final_output.response

    assert response.endswith(
        "Also near it: 1) List the files and folders in a directory of the managed project folder "
        "(filesystem). If you meant one of these, say so in other words."
    )


def test_a_request_the_planner_is_sure_of_is_still_refused_by_validation_with_the_same_words(
    graph: CompiledGraph, with_shell: GraphContext, shell_calls: list[list[str]]
) -> None:
    outcome = ask(graph, with_shell, "Execute the command ls")

    assert "validate_capability" in outcome.path
    assert outcome.final_output.status == "error"
    assert outcome.final_output.response == SHELL_REFUSAL
    assert outcome.final_output.errors == [SHELL_REFUSAL]
    assert shell_calls == []


def test_a_request_nothing_fits_is_still_told_so_and_a_refused_capability_is_not_offered(
    graph: CompiledGraph, with_shell: GraphContext
) -> None:
    output = ask(graph, with_shell, FLIGHT).final_output

    assert output.status == "answered_without_mcp"
    assert output.no_call_reason == "nothing_fits"
    assert output.response.startswith(f"{NOTHING_FITS}, so nothing was run. The closest capabilities: 1) ")
    offered = output.response.split("The closest capabilities: ")[1].split(". If you meant")[0]
    assert "shell" not in offered
    # Named apart, with the rule that refuses it: the operator is not left to ask for it.
    assert output.response.endswith(
        " Not offered: Execute a shell command (shell), which the policy refuses whatever the arguments "
        f"({SHELL_REFUSAL.rstrip('.')})."
    )


def test_a_bundled_tool_a_policy_file_refuses_is_the_answer_to_a_request_for_it(
    graph: CompiledGraph, no_writes: GraphContext
) -> None:
    for text in ("Save my notes", "Overwrite notes.md"):
        output = ask(graph, no_writes, text).final_output

        assert output.status == "error", text
        assert output.response.startswith(
            "The closest fit for this request, Create or overwrite a UTF-8 text file in the managed project "
            f"folder with the given content (filesystem), is refused by the policy whatever the arguments: "
            f"{WRITES_REFUSAL} Nothing was run."
        ), text
        assert output.errors == [WRITES_REFUSAL]


def test_a_request_an_allowed_capability_fits_runs_as_before_under_that_policy(
    graph: CompiledGraph, no_writes: GraphContext
) -> None:
    output = ask(graph, no_writes, "List the files in the managed project folder.").final_output

    assert output.status == "ok"
    assert output.errors == []
    assert "notes.md" in output.response


def test_under_that_policy_a_request_nothing_fits_offers_no_refused_write(
    graph: CompiledGraph, no_writes: GraphContext
) -> None:
    output = ask(graph, no_writes, FLIGHT).final_output

    assert output.status == "answered_without_mcp"
    assert output.no_call_reason == "nothing_fits"
    assert output.response.startswith(f"{NOTHING_FITS}, so nothing was run. The closest capabilities: 1) ")
    offered = output.response.split("The closest capabilities: ")[1].split(". If you meant")[0]
    assert "UTF-8 text file" not in offered
    assert f"({WRITES_REFUSAL.rstrip('.')})." in output.response


def test_when_a_failed_model_leaves_the_choice_to_the_deterministic_planner_the_refusal_is_said_too(
    graph: CompiledGraph, with_shell: GraphContext, shell_calls: list[list[str]]
) -> None:
    failing = ModelPlanner(
        ScriptedChatModel(script=[RuntimeError("upstream error 500")]), "scripted:model", timeout=30.0
    )

    output = ask(graph, replace(with_shell, planner=failing), "Run ls -la in /tmp").final_output

    assert output.status == "error"
    assert output.response.startswith("The language model could not plan this request (")
    assert (
        "and the deterministic planner found nothing either. The closest fit for this request, Execute a shell "
        f"command (shell), is refused by the policy whatever the arguments: {SHELL_REFUSAL} Nothing was run."
    ) in output.response
    assert output.errors == [SHELL_REFUSAL]
    assert shell_calls == []
