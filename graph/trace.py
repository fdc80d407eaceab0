"""Read a thread's route back from its checkpoints: the trace is the checkpoint history.

The checkpoints keep the real values (a call needs them); the steps shown have their secrets
hidden (policies/secrets.py).
"""

from __future__ import annotations

import itertools
import re
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from graph import nodes
from graph.hitl_request import without_hitl
from graph.runner import thread_config
from graph.state import GraphState
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


# A node's docstring says which state fields it reads: "Reads ``a``, ``b``. Writes ...".
_READS = re.compile(r"Reads (?P<reads>.*?)Writes", re.DOTALL)
_FIELD = re.compile(r"``(\w+)``")


@cache
def node_reads(node: str) -> tuple[str, ...]:
    """The state fields a node reads, as its docstring in graph/nodes/ says (the one place
    that says it): a step's inputs. None named (an unknown node): nothing."""
    function = getattr(nodes, node, None)
    found = _READS.search(getattr(function, "__doc__", None) or "")
    if found is None:
        return ()
    fields = GraphState.__annotations__
    return tuple(dict.fromkeys(name for name in _FIELD.findall(found["reads"]) if name in fields))


def _inputs(node: str, before: dict[str, Any]) -> dict[str, Any]:
    return {name: before[name] for name in node_reads(node) if name in before}


def _changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    return {key: after[key] for key in after if key not in before or before[key] != after[key]}


def _seconds(start: str | None, end: str | None) -> float | None:
    if not start or not end:
        return None
    return round((datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds(), 3)


def summarise_changes(changed: list[str], shown: int = 4) -> str:
    """``a, b, c and 5 more``: what a step changed, short enough for one line."""
    if not changed:
        return "nothing"
    head = ", ".join(changed[:shown])
    return head if len(changed) <= shown else f"{head} and {len(changed) - shown} more"


def trace_steps(
    graph: CompiledGraph, thread_id: str, secrets: SecretRedactor = DEFAULT_REDACTOR
) -> list[dict[str, Any]]:
    """The thread's steps from its checkpoints, oldest first: which node ran, for which of the
    thread's requests (``request``, from 1), when (``at``; ``offset_s`` from the thread's first
    checkpoint), how long it took (``duration_s``), the state keys it changed (with their new
    values, secrets hidden), the fields it read as they were before it (``inputs``:
    node_reads), and any interrupt it raised or decision it got. The time a thread
    waited for a person is a step of its own (``node`` None, ``waiting``)."""
    history = list(reversed(list(graph.get_state_history(thread_config(thread_id)))))
    first = history[0].created_at if history else None
    steps: list[dict[str, Any]] = []
    request = 0
    for earlier, later in itertools.pairwise(history):
        scheduled = [name for name in earlier.next if not name.startswith("__")]
        if not scheduled:
            continue
        if scheduled[0] == "preprocess_request":
            request += 1
        changes = _changed(dict(earlier.values), dict(later.values))
        decision = (changes.get("review") or {}).get("decision")
        if decision and earlier.interrupts:
            # The checkpoint before a resumed mark_needs_review is where the thread waited.
            steps.append(
                {
                    "step": None,
                    "node": None,
                    "request": max(request, 1),
                    "waiting": earlier.interrupts[0].value.get("stage")
                    if isinstance(earlier.interrupts[0].value, dict)
                    else None,
                    "at": earlier.created_at,
                    "offset_s": _seconds(first, earlier.created_at),
                    "duration_s": _seconds(earlier.created_at, later.created_at),
                    "changed": [],
                    "values": {},
                    "decided_by": decision.get("by"),
                }
            )
        step: dict[str, Any] = {
            "step": (later.metadata or {}).get("step"),
            "node": scheduled[0],
            "request": max(request, 1),
            "at": later.created_at,
            "offset_s": _seconds(first, later.created_at),
            "duration_s": None
            if decision and earlier.interrupts
            else _seconds(earlier.created_at, later.created_at),
            "changed": sorted(changes),
            "values": changes,
            "inputs": _inputs(scheduled[0], dict(earlier.values)),
        }
        if decision:
            step["decision"] = decision
        steps.append(step)
    current = history[-1] if history else None
    if current is not None and current.interrupts:
        steps.append(
            {
                "step": (current.metadata or {}).get("step"),
                "node": current.next[0] if current.next else None,
                "request": max(request, 1),
                "at": current.created_at,
                "offset_s": _seconds(first, current.created_at),
                "duration_s": None,
                "changed": [],
                "values": {},
                "inputs": _inputs(current.next[0], dict(current.values)) if current.next else {},
                "interrupt": without_hitl(current.interrupts[0].value)
                if isinstance(current.interrupts[0].value, dict)
                else current.interrupts[0].value,
            }
        )
    # With the thread's remembered secrets (its request's, recalled from its checkpoint): a
    # fragment of it in the arguments or a result echoing it is hidden like the request.
    shown: list[dict[str, Any]] = secrets.value(steps, thread_id=thread_id)
    return shown
