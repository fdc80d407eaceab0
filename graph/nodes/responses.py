"""answer_without_mcp and generate_final_response: Gatehouse's own answer, and the operator's
final output."""

from __future__ import annotations

from langgraph.runtime import Runtime

from graph.accessors import final_output_data
from graph.context import GraphContext
from graph.fallback import earlier_failures
from graph.output import build_final_output
from graph.planner.protocol import Composition
from graph.results_view import readable_text
from graph.state import GraphState
from mcp_host.results import McpResult


def answer_without_mcp(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Answer without calling a server: a general question, or why nothing could run.

    Reads ``fallback_reason``, ``fallback_text``, ``intent``, ``request_text``, ``status``.
    Writes ``context_update`` and ``status``. A re-run asks the planner again for a general
    question (a model-backed planner may be called twice); nothing is written outside the
    state.

    Args:
        state: the request's state at a dead end or a general question.
        runtime: the run's context (its planner).

    Returns:
        Gatehouse's own answer.
    """
    reason = state.get("fallback_reason") or "no external capability is needed"
    general = state.get("intent") == "answer_without_mcp"
    answered = runtime.context.planner.answer(state.get("request_text") or "") if general else None
    if answered:
        text = answered
    elif general:
        text = (
            "This reads as a general question, so no MCP server is needed, and Gatehouse has no language "
            "model of its own to answer it. Ask for something the configured servers can do, such as "
            "reading, listing or searching their data."
        )
    else:
        text = state.get("fallback_text") or f"Nothing was run: {reason}."
    status = state.get("status") or "answered_without_mcp"
    return {"context_update": {"source": "gatehouse", "text": text}, "status": status}


def generate_final_response(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Write the operator's answer: graph.state.FinalOutput.

    Reads what graph/output.py build_final_output reads (``status``, ``selected_capability``,
    ``mcp_result``, ``review``, ``fallback_reason``, ``errors``, ``proposed_arguments``) and
    ``request_text``. Writes ``final_output``. With a result the
    planner composes the answer (a model-backed planner is called; a re-run calls it again);
    nothing is written outside the state.

    Args:
        state: the request's finished state.
        runtime: the run's context (its planner and limits).

    Returns:
        The final output.
    """
    output = build_final_output(state, limit=runtime.context.limits.response_chars)
    selected = state.get("selected_capability")
    if output.status == "ok" and output.result is not None:
        # With a result in hand the planner writes the answer (a model summarises it; the
        # deterministic planner keeps the standard text). The raw result is shown beside it.
        written = runtime.context.planner.compose(
            Composition(
                request=state.get("request_text") or "",
                status=output.status,
                draft=output.response,
                result_text=readable_text(McpResult.model_validate(state["mcp_result"])),
                capability=selected["key"] if selected else None,
            )
        )
        output.composed = written != output.response
        first = earlier_failures(state)
        if output.composed and first:
            # The model writes from the result alone: what failed before it is said all the same.
            written = f"{first} {written}"
        output.response = written
    return {"final_output": final_output_data(output)}
