"""The compiled graph drawn from its own structure (DOT), with a thread's route highlighted and
numbered: each node on the route carries the numbers of the steps it ran as (a node run twice,
in a loop, carries two)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graph.builder import CompiledGraph

# What the lines and colours mean; the page that shows the diagram says it in words beside it.
ON_ROUTE = "#15803d"  # green: the route the thread took
OFF_ROUTE = "#71717a"  # grey: not taken
TAKEN_FILL = "#bbf7d0"
IDLE_FILL = "#f4f4f5"


def _quoted(text: str) -> str:
    # A line break is DOT's centred one, ``\n``.
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def step_numbers(route: list[str]) -> dict[str, list[int]]:
    """Each node of the route with the numbers (from 1) of the steps it ran as."""
    numbers: dict[str, list[int]] = {}
    for number, node in enumerate(route, start=1):
        numbers.setdefault(node, []).append(number)
    return numbers


def _label(name: str, labels: Mapping[str, str], numbers: list[int]) -> str:
    label = labels.get(name, {"__start__": "START", "__end__": "END"}.get(name, name))
    if numbers:
        word = "step" if len(numbers) == 1 else "steps"
        label += f"\n{word} {', '.join(str(n) for n in numbers)}"
    return label


def to_dot(
    graph: CompiledGraph, route: list[str] | None = None, labels: Mapping[str, str] | None = None
) -> str:
    """The graph in Graphviz's language. ``route``: the nodes a thread ran, in order (drawn in
    green, numbered); ``labels``: words to show instead of the nodes' names (a node keeps its
    name as its tooltip)."""
    route = route or []
    numbers = step_numbers(route)
    drawn = graph.get_graph()
    # The route starts at START; it reached END when its last step has an edge there.
    ends = ["__start__", *route, "__end__"] if route else []
    steps = set(itertools.pairwise(ends))
    edges = {(edge.source, edge.target) for edge in drawn.edges}
    reached = {name for pair in steps & edges for name in pair}
    lines = [
        "digraph gatehouse {",
        f'  rankdir=TB; node [shape=box, style="rounded,filled", fillcolor="{IDLE_FILL}", fontname="Helvetica"];',
    ]
    for name in drawn.nodes:
        taken = name in numbers or name in reached
        fill = TAKEN_FILL if taken else IDLE_FILL
        border = ON_ROUTE if taken else OFF_ROUTE
        label = _label(name, labels or {}, numbers.get(name, []))
        lines.append(
            f"  {_quoted(name)} [label={_quoted(label)}, tooltip={_quoted(name)},"
            f' fillcolor="{fill}", color="{border}"];'
        )
    for edge in drawn.edges:
        on_route = (edge.source, edge.target) in steps
        style = "dashed" if edge.conditional else "solid"
        color = ON_ROUTE if on_route else OFF_ROUTE
        width = "2.5" if on_route else "1"
        lines.append(
            f'  {_quoted(edge.source)} -> {_quoted(edge.target)} [style={style}, color="{color}", penwidth={width}];'
        )
    lines.append("}")
    return "\n".join(lines)
