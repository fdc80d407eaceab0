"""NUL characters never reach a checkpoint: PostgreSQL cannot store them, and nobody reads them."""

from __future__ import annotations

import pytest
from mcp.types import CallToolResult, TextContent

from graph.builder import CompiledGraph
from graph.state import ReviewDecision
from mcp_host.convert import tool_result, without_nul
from reviews.errors import DecisionNotAllowedError
from reviews.resume import resume
from tests.fakes import FaultInjectingClient
from tests.support import ask, context_for


def test_a_servers_output_has_its_nul_characters_replaced_visibly() -> None:
    raw = CallToolResult(
        content=[TextContent(type="text", text="before\x00after")], structured_content={"k\x00": ["v\x00"]}
    )

    result = tool_result("s", "t", raw, cap=10_000, duration_ms=1.0)

    assert result.content[0].text == "before\ufffdafter"
    assert result.structured == {"k\ufffd": ["v\ufffd"]}
    assert without_nul({"a": [1, None, "x"]}) == {"a": [1, None, "x"]}


def test_an_edited_argument_with_a_nul_character_is_refused_and_says_where(
    client: FaultInjectingClient, graph: CompiledGraph
) -> None:
    paused = ask(graph, client, "Send an email to bob@example.com saying hi", thread_id="t-nul")
    assert paused.final_output.status == "needs_review"
    decision = ReviewDecision(
        action="approve", by="reviewer", arguments={"to": "bob@example.com", "body": "hi\x00there"}
    )

    with pytest.raises(DecisionNotAllowedError, match=r"arguments\.body contains a NUL character"):
        resume(graph, context_for(client), "t-nul", decision)

    assert client.calls == []


def test_an_operators_answer_loses_its_nul_characters_and_the_thread_goes_on(
    client: FaultInjectingClient, graph: CompiledGraph
) -> None:
    paused = ask(graph, client, "Please greet someone", thread_id="t-nul-answer")
    assert paused.final_output.status == "needs_clarification"

    answered = resume(
        graph,
        context_for(client),
        "t-nul-answer",
        ReviewDecision(action="answer", by="operator", text="Gr\x00ace"),
    )

    assert answered.final_output.status == "ok", answered.final_output.response
    assert "Grace" in answered.final_output.response
