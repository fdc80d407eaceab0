"""Build the StateGraph once; compile it with whichever checkpointer the caller owns."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from graph import nodes, routing
from graph.context import GraphContext
from graph.state import GraphInput, GraphState

CompiledGraph = CompiledStateGraph[GraphState, GraphContext, GraphInput, GraphState]


def build_graph() -> StateGraph[GraphState, GraphContext, GraphInput, GraphState]:
    graph = StateGraph(GraphState, context_schema=GraphContext, input_schema=GraphInput)
    graph.add_node("preprocess_request", nodes.preprocess_request)
    graph.add_node("classify_intent", nodes.classify_intent)
    graph.add_node("discover_capabilities", nodes.discover_capabilities)
    graph.add_node("select_capability", nodes.select_capability)
    graph.add_node("validate_capability", nodes.validate_capability)
    graph.add_node("build_mcp_request", nodes.build_mcp_request)
    graph.add_node("invoke_mcp_capability", nodes.invoke_mcp_capability)
    graph.add_node("integrate_result", nodes.integrate_result)
    graph.add_node("generate_final_response", nodes.generate_final_response)
    graph.add_node("answer_without_mcp", nodes.answer_without_mcp)
    graph.add_node("mark_needs_review", nodes.mark_needs_review)

    graph.add_edge(START, "preprocess_request")
    graph.add_conditional_edges("preprocess_request", routing.after_preprocess)
    graph.add_conditional_edges("classify_intent", routing.after_classify)
    graph.add_conditional_edges("discover_capabilities", routing.after_discover)
    graph.add_conditional_edges("select_capability", routing.after_select)
    graph.add_conditional_edges("validate_capability", routing.after_validate)
    graph.add_edge("build_mcp_request", "invoke_mcp_capability")
    graph.add_conditional_edges("invoke_mcp_capability", routing.after_invoke)
    graph.add_conditional_edges("integrate_result", routing.after_integrate)
    graph.add_conditional_edges("mark_needs_review", routing.after_review)
    graph.add_edge("answer_without_mcp", "generate_final_response")
    graph.add_edge("generate_final_response", END)
    return graph


def compile_graph(checkpointer: BaseCheckpointSaver[Any]) -> CompiledGraph:
    return build_graph().compile(checkpointer=checkpointer)


def open_sqlite_checkpointer(path: Path) -> SqliteSaver:
    """A SqliteSaver on a file, in WAL mode, shareable across the app's threads."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # check_same_thread=False: Streamlit serves each session on its own thread; SqliteSaver
    # serialises access with its own lock.
    connection = sqlite3.connect(str(path), check_same_thread=False)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    saver = SqliteSaver(connection)
    saver.setup()
    return saver


def open_postgres_checkpointer(url: str, *, pool_size: int) -> PostgresSaver:
    """LangGraph's PostgresSaver on its own connection pool; its tables created or migrated
    under the lock every Gatehouse replica takes for that. Close with ``saver.conn.close()``."""
    from storage.postgres import checkpointer_pool, migration_lock

    pool = checkpointer_pool(url, pool_size=pool_size)
    saver = PostgresSaver(pool)
    try:
        with migration_lock(url):
            saver.setup()
    except BaseException:
        pool.close()
        raise
    return saver
