"""discover_capabilities: what the configured servers offer."""

from __future__ import annotations

from langgraph.runtime import Runtime

from graph.accessors import errors_with, manifest_data
from graph.context import GraphContext
from graph.output import NOTHING_FITS
from graph.state import GraphState


def discover_capabilities(state: GraphState, runtime: Runtime[GraphContext]) -> GraphState:
    """List what the configured servers offer.

    Reads ``server_preferences``, ``errors``. Writes ``capability_manifest``, ``errors`` (every
    server problem) and, when nothing can be used or a preferred server is unknown,
    ``fallback_reason`` (with nothing usable, ``fallback_text`` too) and possibly ``status``. A re-run lists again (reads from the servers,
    or the client's cached listing).

    Args:
        state: the request's state after classify_intent.
        runtime: the run's context (its MCP client).

    Returns:
        The manifest and what went wrong finding it.
    """
    found = runtime.context.mcp.discover()
    errors = errors_with(state, *found.problems())
    update: GraphState = {"capability_manifest": manifest_data(found), "errors": errors}
    known = found.server_names()
    unknown = [name for name in state.get("server_preferences", []) if name not in known]
    if unknown:
        listed = ", ".join(known) or "none"
        message = f"unknown preferred server {', '.join(map(repr, unknown))}; configured servers: {listed}"
        update |= {"status": "error", "fallback_reason": message, "errors": [*errors, message]}
    elif not known or not found.capabilities():
        reason = (
            "no MCP server is configured"
            if not known
            else "no configured MCP server offers a usable capability"
        )
        update |= {
            "fallback_reason": reason,
            "fallback_text": f"{NOTHING_FITS}: {reason}, so nothing was run.",
        }
        if known and found.problems():
            update["status"] = "error"
    return update
