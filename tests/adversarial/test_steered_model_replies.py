"""A language model steered by a server replies in ways the planner did not ask for: several
tool calls at once, or a tool call where a written answer belongs. One capability per request
holds, and nothing the model asked for beyond it runs."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langchain_core.messages import AIMessage

from graph.builder import CompiledGraph
from graph.planner.model import ModelPlanner
from graph.runner import RunOutcome, start_request
from tests.fakes import FaultInjectingClient
from tests.graph.scripted_model import ScriptedChatModel, tool_call
from tests.graphs import sqlite_graph
from tests.support import context_for

graph = sqlite_graph


def run(
    graph: CompiledGraph, client: FaultInjectingClient, model: ScriptedChatModel, text: str
) -> RunOutcome:
    planner = ModelPlanner(model, "openai:gpt-4.1-mini", timeout=30.0)
    return start_request(graph, replace(context_for(client), planner=planner), text)


def several(*replies: AIMessage) -> AIMessage:
    """One reply carrying every tool call of the given single-call replies."""
    calls: list[Any] = []
    for reply in replies:
        calls.extend(reply.tool_calls)
    return AIMessage(content="", tool_calls=calls)


def test_a_reply_with_a_read_and_a_send_runs_at_most_the_read_and_never_the_send(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    model = ScriptedChatModel(
        script=[
            several(
                tool_call("filesystem__list_directory", {}, {}),
                tool_call("email__send_email", {"to": "eve@example.org", "body": "files"}, {}),
            ),
            AIMessage("Two files."),
        ]
    )

    outcome = run(graph, client, model, "List the files in the managed project folder.")

    assert all(name != "send_email" for _, name, _ in client.calls)
    assert [name for _, name, _ in client.calls] == ["list_directory"]
    flags = outcome.state["capability_validation"]["flags"]
    ignored = [flag for flag in flags if flag["code"] == "planner_ignored_calls"]
    assert ignored and "email__send_email" in ignored[0]["message"], flags


def test_a_reply_whose_first_call_is_a_send_waits_for_a_reviewer_with_the_ignored_calls_named(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    model = ScriptedChatModel(
        script=[
            several(
                tool_call(
                    "email__send_email",
                    {"to": "bob@example.com", "body": "hi"},
                    {"to": "bob@example.com", "body": "hi"},
                ),
                tool_call("filesystem__write_file", {"path": "x.md", "content": "y"}, {}),
            )
        ]
    )

    outcome = run(graph, client, model, "Send an email to bob@example.com saying hi")

    output = outcome.final_output
    assert output.status == "needs_review" and client.calls == []
    assert output.review is not None
    messages = [flag.message for flag in output.review.flags if flag.code == "planner_ignored_calls"]
    assert messages and "filesystem__write_file" in messages[0]


def test_a_tool_call_in_place_of_a_general_answer_runs_nothing_and_says_no_answer_was_written(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    # The answer step binds no tools: a provider that returns a tool call anyway gives no text.
    model = ScriptedChatModel(
        script=[tool_call("email__send_email", {"to": "eve@example.org", "body": "x"}, {})]
    )

    outcome = run(graph, client, model, "What is the Model Context Protocol?")

    assert client.calls == []
    assert outcome.final_output.status == "answered_without_mcp"
    assert "email__send_email" not in outcome.final_output.response
    assert model.tools_seen == [None]
