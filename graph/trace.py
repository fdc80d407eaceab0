"""Read a thread's route back from its checkpoints: the trace is the checkpoint history."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graph.runner import thread_config

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
