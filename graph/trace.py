"""Read a thread's route back from its checkpoints: the trace is the checkpoint history.

The checkpoints keep the real values (a call needs them); the steps shown have their secrets
hidden (policies/secrets.py).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from graph.runner import thread_config
from policies.secrets import DEFAULT_REDACTOR, SecretRedactor

if TYPE_CHECKING:
    from graph.builder import CompiledGraph


def route_from_checkpoints(graph: CompiledGraph, thread_id: str) -> list[str]:
    """Every node the thread executed, oldest first, across all its runs and resumes.

    Each checkpoint records the nodes scheduled next; the graph runs one node per step, so
    the sequence of scheduled nodes is the route. A node paused at an interrupt is scheduled
    again when it resumes and is counted once per execution that completed, plus once if it
    is paused now.
    """
    history = list(graph.get_state_history(thread_config(thread_id)))
    route: list[str] = []
    for snapshot in reversed(history):
        for name in snapshot.next:
            if not name.startswith("__"):
                route.append(name)
    return _collapse_resumes(route)


def _collapse_resumes(route: list[str]) -> list[str]:
    # A step whose node was interrupted leaves the same "next" in the checkpoint written on
    # resume; consecutive duplicates of mark_needs_review are one execution.
    collapsed: list[str] = []
    for name in route:
        if collapsed and name == collapsed[-1] == "mark_needs_review":
            continue
        collapsed.append(name)
    return collapsed


def _changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    return {key: after[key] for key in after if key not in before or before[key] != after[key]}


def trace_steps(
    graph: CompiledGraph, thread_id: str, secrets: SecretRedactor = DEFAULT_REDACTOR
) -> list[dict[str, Any]]:
    """The thread's steps from its checkpoints, oldest first: which node ran, when, the state
    keys it changed (with their new values, secrets hidden), and any interrupt it raised or
    decision it got."""
    history = list(reversed(list(graph.get_state_history(thread_config(thread_id)))))
    steps: list[dict[str, Any]] = []
    for earlier, later in itertools.pairwise(history):
        nodes = [name for name in earlier.next if not name.startswith("__")]
        if not nodes:
            continue
        changes = _changed(dict(earlier.values), dict(later.values))
        step: dict[str, Any] = {
            "step": (later.metadata or {}).get("step"),
            "node": nodes[0],
            "at": later.created_at,
            "changed": sorted(changes),
            "values": changes,
        }
        if changes.get("review"):
            step["decision"] = changes["review"].get("decision")
        steps.append(step)
    current = history[-1] if history else None
    if current is not None and current.interrupts:
        steps.append(
            {
                "step": (current.metadata or {}).get("step"),
                "node": current.next[0] if current.next else None,
                "at": current.created_at,
                "changed": [],
                "values": {},
                "interrupt": current.interrupts[0].value,
            }
        )
    shown: list[dict[str, Any]] = secrets.value(steps)
    return shown
