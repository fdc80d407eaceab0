"""preprocess_request and classify_intent: a request's text made clean, and whether it needs
an MCP capability at all."""

from __future__ import annotations

from langgraph.runtime import Runtime

from graph.context import GraphContext
from graph.nodes.shared import normalize
from graph.state import GraphState, fresh_request_state


def preprocess_request(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Start a request: normalise its text and reset every per-request field.

    Reads ``input``, ``requester``, ``server_preferences``; the limit on input length.
    Writes every field of graph.state.fresh_request_state (all but ``input``, ``thread_id``
    and ``review_round``): the graph keeps those the thread does not already read as fresh
    (graph.state.changes); ``status``, ``fallback_reason`` and ``errors`` for a blank or too
    long request. No I/O: a re-run computes the same update.

    Args:
        state: the thread's state with the new request's input.
        runtime: the run's context (for ``limits.max_input_chars``).

    Returns:
        The fresh request's fields.
    """
    limit = runtime.context.limits.max_input_chars
    text = normalize(state.get("input") or "")
    # A thread can carry several requests: every per-request field starts afresh here.
    update = fresh_request_state(
        text, state.get("requester") or "operator", list(state.get("server_preferences") or [])
    )
    if not text:
        update |= {
            "status": "error",
            "fallback_reason": "blank request",
            "errors": [
                "The request is empty: say what you need, e.g. 'List the files in the project folder.'"
            ],
        }
    elif len(text) > limit:
        update |= {
            "status": "error",
            "fallback_reason": "request too long",
            "errors": [
                f"The request is {len(text)} characters long; the limit is {limit}. Shorten or split it."
            ],
        }
    return update


def classify_intent(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """Decide whether the request needs an MCP capability, and of which type.

    Reads ``request_text``. Writes ``intent``, ``operation_type`` and, for a request that
    needs no capability, ``fallback_reason``. A re-run asks the planner again (a model-backed
    planner may be called twice; nothing is written outside the state).

    Args:
        state: the request's state after preprocess_request.
        runtime: the run's context (its planner).

    Returns:
        The intent and operation type.
    """
    decision = runtime.context.planner.classify(state["request_text"])
    update: GraphState = {"intent": decision.intent, "operation_type": decision.operation_type}
    if decision.intent == "answer_without_mcp":
        update["fallback_reason"] = decision.reason
    return update
