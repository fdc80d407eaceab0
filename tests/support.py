"""Helpers shared by the graph, review and CLI tests."""

from __future__ import annotations

from graph.builder import CompiledGraph
from graph.context import GraphContext, Limits
from graph.runner import RunOutcome, start_request
from mcp_host.client import McpClient
from policies.high_impact_rule import HighImpactRule


def context_for(mcp: McpClient, **limits: float) -> GraphContext:
    return GraphContext(mcp=mcp, policy=HighImpactRule(), limits=Limits(**limits))  # type: ignore[arg-type]


def ask(graph: CompiledGraph, mcp: McpClient, text: str, **options: object) -> RunOutcome:
    return start_request(graph, context_for(mcp), text, **options)  # type: ignore[arg-type]
