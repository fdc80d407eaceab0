"""Build the StateGraph once; compile it with whichever checkpointer the caller owns."""

from __future__ import annotations

from collections.abc import Callable
from inspect import signature
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast, get_args, get_type_hints

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command

from graph import nodes, routing
from graph.context import GraphContext
from graph.state import GraphInput, GraphState, changes
from storage.sqlite import connect_sqlite
from telemetry.spans import graph_step
from telemetry.switch import tracing

CompiledGraph = CompiledStateGraph[GraphState, GraphContext, GraphInput, GraphState]
# A node of graph/nodes/: (state) or (state, runtime), returning the keys it changes.
Node = Callable[..., GraphState]
# A routing function of graph/routing.py: (state) or (state, runtime), returning the next node.
Route = Callable[..., str]
StepT = TypeVar("StepT", bound=Callable[..., Any])


class RoutedNode(Protocol):
    """A node and its routing function as one step (then_route); LangGraph passes ``runtime``
    by name."""

    def __call__(self, state: GraphState, *, runtime: Runtime[GraphContext]) -> Command[str]: ...


def build_graph(
    bound: GraphContext | None = None,
) -> StateGraph[GraphState, GraphContext, GraphInput, GraphState]:
    """The workflow. With ``bound``, every step runs on that context whatever context its
    caller passes (compile_served_graph)."""
    # A bound graph declares no context schema: a server reads the schema to offer its callers
    # a context to fill in, and there is none to give.
    graph = StateGraph(
        GraphState, context_schema=GraphContext if bound is None else None, input_schema=GraphInput
    )
    routed: list[tuple[str, Node, Route]] = [
        ("preprocess_request", nodes.preprocess_request, routing.after_preprocess),
        ("classify_intent", nodes.classify_intent, routing.after_classify),
        ("discover_capabilities", nodes.discover_capabilities, routing.after_discover),
        ("select_capability", nodes.select_capability, routing.after_select),
        ("validate_capability", nodes.validate_capability, routing.after_validate),
        ("invoke_mcp_capability", nodes.invoke_mcp_capability, routing.after_invoke),
        ("integrate_result", nodes.integrate_result, routing.after_integrate),
        ("mark_needs_review", nodes.mark_needs_review, routing.after_review),
    ]
    for name, node, route in routed:
        graph.add_node(name, then_route(node, route, bound), destinations=destinations_of(route))
    plain: list[tuple[str, Node]] = [
        ("build_mcp_request", nodes.build_mcp_request),
        ("generate_final_response", nodes.generate_final_response),
        ("answer_without_mcp", nodes.answer_without_mcp),
    ]
    for name, node in plain:
        graph.add_node(name, _traced(changes_only(node, bound)))

    graph.add_edge(START, "preprocess_request")
    graph.add_edge("build_mcp_request", "invoke_mcp_capability")
    graph.add_edge("answer_without_mcp", "generate_final_response")
    graph.add_edge("generate_final_response", END)
    return graph


def then_route(node: Node, route: Route, bound: GraphContext | None = None) -> RoutedNode:
    """``node``, then its routing function, as one step that says where the graph goes next.

    The decision is the one a conditional edge after the node would make, on the same state: the
    node's input with its update applied (no channel of GraphState has a reducer: each keeps the
    last value written). A conditional edge costs more to read that state: LangGraph copies
    every channel to apply the node's writes before calling the routing function, about a tenth
    of a millisecond per edge, and a warm request passes seven of them (bench figure 1). The
    step writes only the fields the node changes (graph.state.changes)."""
    update_of = changes_only(node, bound)
    route_takes_runtime = len(signature(route).parameters) == 2

    def step(state: GraphState, *, runtime: Runtime[GraphContext]) -> Command[str]:
        runtime = _on_context(runtime, bound)
        update = update_of(state, runtime=runtime)
        after: GraphState = {**state, **update}
        goto = route(after, runtime) if route_takes_runtime else route(after)
        return Command(update=update, goto=goto)

    return _traced(_named_as(step, node))


def changes_only(node: Node, bound: GraphContext | None = None) -> Node:
    """``node`` writing only what it changes (graph.state.changes); LangGraph passes ``runtime``
    by name."""
    takes_runtime = len(signature(node).parameters) == 2

    def step(state: GraphState, *, runtime: Runtime[GraphContext]) -> GraphState:
        runtime = _on_context(runtime, bound)
        return changes(state, node(state, runtime) if takes_runtime else node(state))

    return _named_as(step, node)


def _traced(step: StepT) -> StepT:
    """``step`` as a span of the request's trace when tracing is on (telemetry/spans.py); with
    it off, one flag read per step. An interrupt (LangGraph's GraphBubbleUp: a review, a
    question) pauses the graph and is recorded as a pause, not a failure."""
    name = step.__name__

    def traced(state: GraphState, *, runtime: Runtime[GraphContext]) -> Any:
        if not tracing():
            return step(state, runtime=runtime)
        with graph_step(name, pauses=(GraphBubbleUp,)):
            return step(state, runtime=runtime)

    return cast("StepT", _named_as(traced, step))


def _on_context(runtime: Runtime[GraphContext], bound: GraphContext | None) -> Runtime[GraphContext]:
    """The run's runtime, on the bound context when there is one (the caller's is dropped)."""
    return runtime if bound is None else runtime.override(context=bound)


def _named_as(step: StepT, node: Node) -> StepT:
    # Not functools.wraps: it sets __wrapped__, and LangGraph would then read the node's own
    # signature to decide how to call the step.
    step.__name__ = node.__name__
    step.__qualname__ = node.__qualname__
    step.__doc__ = node.__doc__
    return step


def destinations_of(route: Route) -> tuple[str, ...]:
    """The nodes a routing function can send the graph to: its return type's Literal (what
    LangGraph read from a conditional edge's function to draw the graph)."""
    return tuple(str(name) for name in get_args(get_type_hints(route)["return"]))


def compile_graph(checkpointer: BaseCheckpointSaver[Any]) -> CompiledGraph:
    return build_graph().compile(checkpointer=checkpointer)


def compile_served_graph(context: GraphContext) -> CompiledGraph:
    """The graph for a server that runs it itself (the LangGraph API of `langgraph dev`):
    compiled without a checkpointer (the server brings its own) and bound to ``context``.

    The server passes each run the context its caller sent. Bound, every step runs on
    Gatehouse's context instead, whatever a caller sends: a context from outside could
    otherwise bring its own review hooks, ones that accept any resume."""
    return build_graph(bound=context).compile()


def open_sqlite_checkpointer(path: Path) -> SqliteSaver:
    """A SqliteSaver on a file, connected as every Gatehouse connection to the file is
    (storage/sqlite.py connect_sqlite: WAL, and the same wait for another writer's lock as the
    ledger's). Shared across the app's threads: Streamlit serves each session on its own thread
    and SqliteSaver serialises access with its own lock."""
    saver = SqliteSaver(connect_sqlite(path))
    saver.setup()
    return saver


def open_sqlite_reader(path: Path) -> SqliteSaver:
    """A second SqliteSaver on the checkpoint file, for reads made while a store transaction
    holds the file's write lock (runner.py thread_secret_sources). It has its own connection
    and lock: in WAL mode its reads never wait for a writer, while the graph's saver may be held
    by a background write that waits for that transaction to commit."""
    reader = SqliteSaver(connect_sqlite(path))
    reader.setup()  # now, outside any transaction: its first read would otherwise create tables
    return reader


def open_postgres_checkpointer(
    url: str, *, pool_size: int, prepared_statements: bool = True
) -> PostgresSaver:
    """LangGraph's PostgresSaver on its own connection pool (storage/postgres.py
    checkpointer_pool); its tables created or migrated under the lock every Gatehouse replica
    takes for that. Close with ``saver.conn.close()``."""
    from storage.postgres import checkpointer_pool, migration_lock

    pool = checkpointer_pool(url, pool_size=pool_size, prepared_statements=prepared_statements)
    saver = PostgresSaver(pool)
    try:
        with migration_lock(url):
            saver.setup()
    except BaseException:
        pool.close()
        raise
    return saver
