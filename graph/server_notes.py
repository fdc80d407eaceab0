"""Which servers' trouble an answer mentions, and how: quietly, and only where it mattered.

A broken server's trouble belongs on the Servers page. Discovery records every server's error
in the run's ``errors`` (the trace keeps them), but an answer shows the operator only the
trouble of servers it needed, as notes rather than errors: a server the operator preferred,
the server of the capability chosen, or every troubled server when nothing was chosen (what
a server that could not be listed offers might have served the request). A successful answer
from another server carries none.
"""

from __future__ import annotations

from graph.accessors import manifest
from graph.state import GraphState
from mcp_host.manifest import ServerManifest


def _note(server: ServerManifest) -> list[str]:
    notes: list[str] = []
    if server.error is not None:
        notes.append(
            f"{server.name} is not available, so what it offers was not considered: {server.error.message}"
        )
    notes.extend(f"{server.name} offers something the host left out: {reason}" for reason in server.rejected)
    return notes


def server_notes(state: GraphState) -> list[str]:
    """The notes on the trouble of the servers this answer needed (see the module's docstring)."""
    found = manifest(state)
    troubled = [server for server in found.servers if server.error is not None or server.rejected]
    if not troubled:
        return []
    selected = state.get("selected_capability")
    needed = set(state.get("server_preferences") or [])
    if selected:
        needed.add(selected["server"])
    else:
        needed.update(server.name for server in troubled)
    return [note for server in troubled if server.name in needed for note in _note(server)]


def answer_errors(state: GraphState) -> list[str]:
    """The run's errors less the servers' trouble discovery recorded (which server_notes tells
    where it mattered): what went wrong with this answer itself."""
    recorded = set(manifest(state).problems())
    return [error for error in state.get("errors") or [] if error not in recorded]
