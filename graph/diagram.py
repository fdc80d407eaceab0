"""The compiled graph drawn from its own structure (DOT), with a thread's route highlighted."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graph.builder import CompiledGraph


def to_dot(graph: CompiledGraph, route: list[str] | None = None) -> str:
    taken = set(route or [])
    steps = list(zip(route or [], (route or [])[1:], strict=False))
    drawn = graph.get_graph()
    lines = [
        "digraph gatehouse {",
        '  rankdir=TB; node [shape=box, style="rounded,filled", fillcolor="#f4f4f5", fontname="Helvetica"];',
    ]
    for name in drawn.nodes:
        label = {"__start__": "START", "__end__": "END"}.get(name, name)
        fill = "#bbf7d0" if name in taken else "#f4f4f5"
        lines.append(f'  "{name}" [label="{label}", fillcolor="{fill}"];')
    for edge in drawn.edges:
        on_route = (edge.source, edge.target) in steps
        style = "dashed" if edge.conditional else "solid"
        color = "#16a34a" if on_route else "#71717a"
        width = "2.5" if on_route else "1"
        lines.append(
            f'  "{edge.source}" -> "{edge.target}" [style={style}, color="{color}", penwidth={width}];'
        )
    lines.append("}")
    return "\n".join(lines)
