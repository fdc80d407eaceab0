"""Gatehouse's graph for a server that checkpoints its threads itself: the LangGraph API of
`langgraph dev` (gatehouse/langgraph_server.py builds it when the server imports it).

The graph is Gatehouse's own, on the configured database, policy and servers, with two
differences such a server needs:

- no checkpointer: the server keeps its threads in checkpoints of its own, so a demo's threads
  are there and the app's are not (graph/builder.py compile_served_graph);
- every step runs on these services' context, whatever context a caller sends, and its
  reviews are marked ``served_by = 'langgraph-api'`` in the ledger: the review service records
  decisions on them and resumes nothing, and the caller resumes the thread with the decision
  recorded (``gatehouse reviews resume-value``), which the graph checks against the ledger and
  takes once (reviews/hooks.py, reviews/resume_check.py).
"""

from __future__ import annotations

from gatehouse.settings import Settings
from gatehouse.wiring import Services, build_services
from graph.builder import CompiledGraph, compile_served_graph

# What the ledger calls a thread checkpointed by the LangGraph API server.
SERVED_BY = "langgraph-api"


def serve(settings: Settings) -> tuple[Services, CompiledGraph]:
    """The process's services, their reviews marked as served by the LangGraph API, and the
    graph bound to their context. The caller closes the services."""
    services = build_services(settings, served_by=SERVED_BY)
    return services, compile_served_graph(services.context)
