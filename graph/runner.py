"""Run the compiled graph for one thread and report what happened.

The runner starts requests and executes whatever input it is handed; it never builds a
resume command itself (reviews/ owns that), so there is exactly one place that decides
how a paused thread continues.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver

from graph.hitl_request import without_hitl
from graph.output import build_final_output
from graph.state import FinalOutput, GraphInput, GraphState, ReviewPayload, with_empty_fields
from graph.streaming import answer_text_of
from telemetry.spans import workflow_run
from telemetry.switch import tracing

if TYPE_CHECKING:
    from langgraph.types import Command, Durability, StateSnapshot, StreamMode

    from graph.builder import CompiledGraph
    from graph.context import GraphContext


@dataclass(frozen=True)
class RunOutcome:
    final_output: FinalOutput
    # Nodes that ran in this invocation, in order; a paused run ends with the node it paused in.
    path: list[str]
    # The interrupt payload when the thread waits for a person.
    pending: ReviewPayload | None = None
    # The thread's state, every field of GraphState present (graph.state.with_empty_fields).
    state: dict[str, Any] = field(default_factory=dict)
    # The checkpoint the run ended in: names this answer (a conversation records it once).
    checkpoint_id: str | None = None
    # LangGraph's id of the interrupt a paused run waits in (the ledger ties its review to it).
    interrupt_id: str | None = None


def thread_config(thread_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id}}


def new_thread_id() -> str:
    return uuid.uuid4().hex


def pending_interrupt(graph: CompiledGraph, thread_id: str) -> ReviewPayload | None:
    """The payload a paused thread is waiting on, or None."""
    return _waiting_on(graph.get_state(thread_config(thread_id)))


def _waiting_on(snapshot: StateSnapshot) -> ReviewPayload | None:
    for interrupt in snapshot.interrupts:
        if isinstance(interrupt.value, dict):
            # The graph's one interrupt() is mark_needs_review's, with review_payload's value
            # (a thread an older release paused may lack keys added since: read those with .get).
            # Without the HITL schemas beside it (graph/hitl_request.py): Gatehouse reads its own.
            return without_hitl(interrupt.value)
    return None


def thread_exists(graph: CompiledGraph, thread_id: str) -> bool:
    return graph.checkpointer is not None and graph.get_state(thread_config(thread_id)).created_at is not None


# What a thread's state holds that may carry a secret a person or a server wrote: the request
# and the answers to its questions, the arguments (as proposed and as a reviewer approved
# them), the call and its result. Not the servers' listings: a description is no one's secret,
# and a value it calls one would be hidden from the thread's reviewers.
_SECRET_SOURCES = (
    "input",
    "request_text",
    "clarifications",
    "answered_arguments",
    "proposed_arguments",
    "mcp_request",
    "mcp_result",
    "context_update",
    "review",
)


def thread_secret_sources(checkpointer: BaseCheckpointSaver[Any] | None, thread_id: str) -> list[Any]:
    """The values of a thread's latest checkpoint that may carry a secret, for a process that
    meets the thread for the first time (policies/secrets.py recall_threads_with): the
    checkpoint keeps them in clear anyway, as the call needs them.

    ``checkpointer`` must not be the one the graph writes with on SQLite (graph/builder.py
    open_sqlite_reader): the recall runs inside the stores' write transaction, while LangGraph's
    background writer may hold that saver's lock waiting for the file's write lock."""
    if checkpointer is None:
        return []
    found = checkpointer.get_tuple(thread_config(thread_id))
    if found is None:
        return []
    values = found.checkpoint["channel_values"]
    return [values[key] for key in _SECRET_SOURCES if values.get(key)]


def outcome(graph: CompiledGraph, context: GraphContext, thread_id: str, path: list[str]) -> RunOutcome:
    snapshot = graph.get_state(thread_config(thread_id))
    values = cast("GraphState", dict(snapshot.values))
    pending = _waiting_on(snapshot)
    if pending is not None:
        final = build_final_output(values, limit=context.limits.response_chars, pending=pending)
        path = [*path, *snapshot.next]
    elif values.get("final_output"):
        final = FinalOutput.model_validate(values["final_output"])
    else:
        final = build_final_output(values, limit=context.limits.response_chars)
    checkpoint_id = snapshot.config.get("configurable", {}).get("checkpoint_id")
    return RunOutcome(
        final_output=final,
        path=path,
        pending=pending,
        state=with_empty_fields(dict(values)),
        checkpoint_id=checkpoint_id,
        interrupt_id=snapshot.interrupts[0].id if snapshot.interrupts else None,
    )


# Told the name of each node as it completes (a progress display follows the run with it).
StepListener = Callable[[str], None]
# Told each piece of the answer as a language model writes it (graph/streaming.py).
TextListener = Callable[[str], None]


def execute(
    graph: CompiledGraph,
    context: GraphContext,
    graph_input: GraphInput | Command[Any] | None,
    thread_id: str,
    *,
    on_step: StepListener | None = None,
    on_text: TextListener | None = None,
) -> RunOutcome:
    """Run the graph on a thread: a new request, a resume command, or None to continue a
    thread from its last checkpoint (after a crash)."""
    path: list[str] = []
    # durability="async" (LangGraph's default): every step's checkpoint is written, in order,
    # by a background writer while the next step runs, and all of them are on disk before this
    # returns. A crash mid-run can lose the last steps' checkpoints, and that is safe: the run
    # is continued from the last one written, and an approved call cannot run twice because
    # the execution journal (reviews/ledger.py) is committed before the call, not after the
    # step. Waiting for each write ("sync") measurably slowed a warm request (bench/: warm_request).
    durability: Durability | None = "async" if graph.checkpointer is not None else None
    # One node runs at a time on every route of this graph: one worker thread per run is
    # enough for LangGraph's background writes, and starting fewer threads is measurably faster.
    # Streaming text from inside a node (on_text) makes LangGraph run a waiter for the stream
    # beside the node: that needs a second worker, and only then is one started.
    streaming = on_text is not None
    config: RunnableConfig = {**thread_config(thread_id), "max_concurrency": 2 if streaming else 1}
    modes: list[StreamMode] = ["updates", "custom"] if streaming else ["updates"]
    for mode, chunk in graph.stream(
        graph_input, config, context=context, stream_mode=modes, durability=durability
    ):
        if mode == "custom":
            text = answer_text_of(chunk)
            if text is not None and on_text is not None:
                on_text(text)
            continue
        steps = [name for name in chunk if not name.startswith("__")]
        path.extend(steps)
        if on_step is not None:
            for step in steps:
                on_step(step)
    return outcome(graph, context, thread_id, path)


def start_request(
    graph: CompiledGraph,
    context: GraphContext,
    text: str,
    *,
    thread_id: str | None = None,
    requester: str = "operator",
    server_preferences: list[str] | None = None,
    on_step: StepListener | None = None,
    on_text: TextListener | None = None,
) -> RunOutcome:
    thread = thread_id or new_thread_id()
    graph_input: GraphInput = {
        # NUL is stripped before the request is checkpointed: PostgreSQL cannot store it, and
        # preprocess_request would drop it as a control character anyway.
        "input": text.replace("\x00", ""),
        "thread_id": thread,
        "requester": requester,
        "server_preferences": list(server_preferences or []),
    }
    # A request is one trace: its context is checkpointed with it, so whoever continues the
    # thread (after a decision, in another process) joins it (telemetry/spans.py).
    with workflow_run(thread, run="request") as trace_context:
        if trace_context is not None:
            graph_input["trace_context"] = trace_context
        return execute(graph, context, graph_input, thread, on_step=on_step, on_text=on_text)


def stored_trace(graph: CompiledGraph, thread_id: str) -> dict[str, str] | None:
    """The trace context the thread's request was started with (None: none stored, or tracing
    is off here, when it is not even read)."""
    if not tracing():
        return None
    stored = graph.get_state(thread_config(thread_id)).values.get("trace_context")
    return dict(stored) if stored else None
