"""The request's trace: one ``invoke_workflow`` span per run of the graph, a span per step, an
``execute_tool`` span per call or read (OpenTelemetry GenAI conventions, docs/telemetry.md).

A request's trace context is kept as text (a W3C ``traceparent`` carrier) in the thread's
state (graph/state.py ``trace_context``): the run that continues the thread after a person's
decision, in whichever process or replica takes it, starts its span under it, so the whole
request is one trace. Every function here returns at once when tracing is off.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from opentelemetry import context as context_api
from opentelemetry import propagate
from opentelemetry import trace as trace_api
from opentelemetry.trace import SpanKind, StatusCode

from telemetry.switch import tracer, tracing

# The trace context as it is stored and sent: {"traceparent": ..., "tracestate": ...}.
Carrier = dict[str, str]
WORKFLOW = "gatehouse"


def carrier_of_current() -> Carrier:
    """The current span's context as text (the propagators OTEL_PROPAGATORS names: W3C trace
    context by default), as the MCP SDK puts it into a request's ``_meta``."""
    carrier: Carrier = {}
    propagate.inject(carrier)
    return carrier


def context_of(carrier: Mapping[str, str] | None) -> context_api.Context | None:
    """The context a stored carrier names, or None (nothing stored, or nothing valid in it)."""
    if not carrier:
        return None
    found = propagate.extract(dict(carrier))
    return found if trace_api.get_current_span(found).get_span_context().is_valid else None


@contextmanager
def workflow_run(
    thread_id: str, *, run: str, parent: Mapping[str, str] | None = None
) -> Iterator[Carrier | None]:
    """One run of the graph on a thread as an ``invoke_workflow`` span, current while it runs:
    a new request (``run="request"``: a trace of its own) or its continuation (``"resume"``
    after a person's decision, ``"continue"`` after a crash: under ``parent``, the request's
    stored context). Yields the span's context as text to store with the request (None: off)."""
    if not tracing():
        yield None
        return
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "invoke_workflow",
        "gen_ai.workflow.name": WORKFLOW,
        "gen_ai.conversation.id": thread_id,
        "gatehouse.run": run,
    }
    with tracer().start_as_current_span(
        f"invoke_workflow {WORKFLOW}",
        context=context_of(parent),
        kind=SpanKind.INTERNAL,
        attributes=attributes,
    ):
        yield carrier_of_current()


class graph_step:
    """One step of the graph (a node and its routing) as a span, current while the step runs.
    ``pauses``: the exceptions that stop the graph without failing it (LangGraph's interrupt):
    the span records a pause. A class rather than a generator: a request makes one per step,
    and this is the cheapest way in and out of a span (docs/benchmark.md, figure 14)."""

    __slots__ = ("_attributes", "_name", "_pauses", "_span", "_token")

    def __init__(self, node: str, *, pauses: tuple[type[BaseException], ...] = ()) -> None:
        self._name = f"step {node}"
        self._attributes = {"gatehouse.graph.node": node}
        self._pauses = pauses

    def __enter__(self) -> None:
        self._span = tracer().start_span(self._name, attributes=self._attributes)
        self._token = context_api.attach(trace_api.set_span_in_context(self._span))

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, _tb: object) -> None:
        context_api.detach(self._token)
        if exc is not None:
            if isinstance(exc, self._pauses):
                self._span.add_event("gatehouse.graph.paused")
            else:
                failed(self._span, type(exc).__qualname__, str(exc), exc)
        self._span.end()


def failed(
    span: trace_api.Span, error_type: str, message: str | None, exc: BaseException | None = None
) -> None:
    """Mark a span failed as the conventions say: ``error.type`` and the ERROR status."""
    span.set_attribute("error.type", error_type)
    if exc is not None:
        span.record_exception(exc)
    span.set_status(StatusCode.ERROR, message)


@contextmanager
def tool_execution(
    tool_name: str, *, call_id: str, tool_type: str, attributes: Mapping[str, Any]
) -> Iterator[trace_api.Span | None]:
    """One call of a capability (a tool call, a resource read, a prompt) as the GenAI
    conventions' ``execute_tool`` span, current while the MCP request is made (the SDK's client
    span becomes its child). Yields the span (None when tracing is off) for its outcome."""
    if not tracing():
        yield None
        return
    base: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool_name,
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.type": tool_type,
    }
    with tracer().start_as_current_span(
        f"execute_tool {tool_name}", kind=SpanKind.INTERNAL, attributes=base | dict(attributes)
    ) as span:
        yield span


def current_context() -> context_api.Context | None:
    """The caller's context, to carry to another task or thread (a portal's task does not
    inherit it); None when tracing is off, so nothing is carried."""
    return context_api.get_current() if tracing() else None


@contextmanager
def attached(carried: context_api.Context | None) -> Iterator[None]:
    """Make a carried context current for the block (nothing when None)."""
    if carried is None:
        yield
        return
    token = context_api.attach(carried)
    try:
        yield
    finally:
        context_api.detach(token)
