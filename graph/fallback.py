"""What a failed call may lead to within the same request, and what the answer says of it.

A call that never reached its tool (the server unavailable, no answer in time) says nothing
about the request, so any other capability that fits may answer it. A tool error is different:
the tool ran and answered about this call (the file is missing, the row does not exist).
Another capability asked the same thing would at best say it again in other words, and may
say it inside a successful result (server-filesystem's read_multiple_files reports a missing
file as text in a result that succeeded), so trying it turns the error into an "ok" that
hides it. Servers give tool errors no codes, and Gatehouse does not guess from their words
whether a tool is broken or is reporting on the operator's data. So after a tool error only
the same tool offered by another server (the same type and name: a replica) may stand in: it
does exactly what was asked, so its answer, success or error, is an answer to the request.
"""

from __future__ import annotations

from graph.accessors import manifest
from graph.state import GraphState
from mcp_host.errors import TRANSPORT_KINDS


def excluded_capabilities(state: GraphState) -> frozenset[str]:
    """The capability keys select_capability may not pick in this request (and after_invoke
    does not count as alternatives): every one tried, and after a tool error every capability
    but the failed tool's replicas on other servers (see the module's docstring)."""
    tried = frozenset(state.get("tried_capabilities") or [])
    result = state.get("mcp_result")
    error = result["error"] if result else None
    if result is None or error is None or error["kind"] in TRANSPORT_KINDS:
        return tried
    offered = manifest(state).capabilities()
    others = {
        c.key
        for c in offered
        if not (
            c.type == result["capability_type"] and c.name == result["name"] and c.server != result["server"]
        )
    }
    return tried | others


def earlier_failures(state: GraphState) -> str | None:
    """The sentence an answer opens with when the result it shows is not the first call's:
    each capability tried before it failed, with the error the run recorded for it (so an
    answer from a stand-in never reads as if the first call had answered). None when the
    first call gave the result."""
    tried = state.get("tried_capabilities") or []
    if len(tried) < 2:
        return None
    errors = state.get("errors") or []
    parts: list[str] = []
    for position, key in enumerate(tried[:-1]):
        # invoke_mcp_capability records each failure as "<key>: <kind>: <message>".
        recorded = next((e.removeprefix(f"{key}: ") for e in errors if e.startswith(f"{key}: ")), None)
        failed = "failed first" if position == 0 else "then failed"
        parts.append(f"{key} {failed} ({recorded})" if recorded else f"{key} {failed}")
    return "; ".join(parts) + "."
