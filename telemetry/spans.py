"""The request's trace: one ``invoke_workflow`` span per run of the graph, a span per step, an
``execute_tool`` span per call or read (OpenTelemetry GenAI conventions, docs/telemetry.md).

A request's trace context is kept as text (a W3C ``traceparent`` carrier) in the thread's
state (graph/state.py ``trace_context``): the run that continues the thread after a person's
decision, in whichever process or replica takes it, starts its span under it, so the whole
request is one trace. Every function here returns at once when tracing is off.

The graph's steps are most of a request's spans (nine of a warm read's twelve), and a step's
span made while its step runs costs three to four times the same span made beside others:
between two steps LangGraph's own work pushes the SDK's code and data out of the CPU's caches,
so each step paid for a cold start and a cold end (docs/benchmark.md, figure 14). So a step is
recorded as it runs (when it started, when it ended, whether it paused) and its span is made
when the run ends, with those times, every step's in one go. A step's span is made at once when
a span is about to start under it: an ``execute_tool`` span, or an MCP request, whose context
is carried to the session pool's loop (``current_context``); and when the step fails, so that
its exception is recorded as it stood. The trace is the same either way; only a span that
other instrumentation starts on the graph's thread during a step (Gatehouse installs none)
would hang under the request's span instead of the step's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar, Token
from time import time_ns
from typing import Any

from opentelemetry import context as context_api
from opentelemetry import propagate
from opentelemetry import trace as trace_api
from opentelemetry.trace import SpanKind, StatusCode

from telemetry.switch import tracer, tracing

# The trace context as it is stored and sent: {"traceparent": ..., "tracestate": ...}.
Carrier = dict[str, str]
WORKFLOW = "gatehouse"
PAUSED = "gatehouse.graph.paused"


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
    stored context). Yields the span's context as text to store with the request (None: off).
    The spans of the steps the run recorded are made as it ends (see the module's docstring)."""
    if not tracing():
        yield None
        return
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "invoke_workflow",
        "gen_ai.workflow.name": WORKFLOW,
        "gen_ai.conversation.id": thread_id,
        "gatehouse.run": run,
    }
    span = tracer().start_span(
        f"invoke_workflow {WORKFLOW}",
        context=context_of(parent),
        kind=SpanKind.INTERNAL,
        attributes=attributes,
    )
    steps: list[graph_step] = []
    collecting = _run_steps.set(steps)
    try:
        # Current while the graph runs; an exception out of the run is recorded on it and
        # fails it (what start_as_current_span does, one generator fewer).
        with trace_api.use_span(span):
            yield carrier_of_current()
    finally:
        _run_steps.reset(collecting)
        for step in steps:
            step.finish()
        span.end()


# The steps of the run in this context whose spans are made when the run ends (workflow_run);
# None outside a run, where a step's span is made when the step ends.
_run_steps: ContextVar[list[graph_step] | None] = ContextVar("gatehouse_run_steps", default=None)
# The step running in this context: a span started under it needs its span made first.
_running_step: ContextVar[graph_step | None] = ContextVar("gatehouse_running_step", default=None)


class graph_step:
    """One step of the graph (a node and its routing) as a span, recorded while the step runs
    and made when the run ends, or as soon as a span starts under it or the step fails (see the
    module's docstring). ``pauses``: the exceptions that stop the graph without failing it
    (LangGraph's interrupt): the span records a pause. A class rather than a generator: a
    request makes one per step, and this is the cheapest way in and out."""

    __slots__ = (
        "_attributes",
        "_ended",
        "_name",
        "_parent",
        "_paused",
        "_pauses",
        "_span",
        "_started",
        "_token",
        "_tracer",
    )

    def __init__(self, node: str, *, pauses: tuple[type[BaseException], ...] = ()) -> None:
        self._name = f"step {node}"
        self._attributes = {"gatehouse.graph.node": node}
        self._pauses = pauses
        self._span: trace_api.Span | None = None
        self._token: Token[graph_step | None] | None = None
        self._paused = False

    def __enter__(self) -> None:
        self._tracer = tracer()
        self._parent = context_api.get_current()
        self._started = time_ns()
        self._token = _running_step.set(self)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, _tb: object) -> None:
        self._ended = time_ns()
        if self._token is not None:
            _running_step.reset(self._token)
            # A token holds its context, which holds the run's steps: kept, it would make each
            # step a reference cycle, left for the garbage collector.
            self._token = None
        if exc is not None and not isinstance(exc, self._pauses):
            # A failure is recorded now, with its traceback as it stands at the step.
            failed(self.span(), type(exc).__qualname__, str(exc), exc)
            self.finish()
            return
        self._paused = exc is not None
        steps = _run_steps.get()
        if steps is None:
            self.finish()
        else:
            # Made (or, when a span started under it, ended) with the run's other steps.
            steps.append(self)

    def span(self) -> trace_api.Span:
        """The step's span, made now (from when the step started) if it was not yet."""
        if self._span is None:
            self._span = self._tracer.start_span(
                self._name, context=self._parent, attributes=self._attributes, start_time=self._started
            )
        return self._span

    def finish(self) -> None:
        """End the step's span (made now if it was not yet) when the step ended."""
        span = self.span()
        if self._paused:
            span.add_event(PAUSED, timestamp=self._ended)
        span.end(end_time=self._ended)

    def under(self, current: context_api.Context) -> context_api.Context:
        """``current`` with this step's span as the span a new one starts under, when nothing
        started in the step is current already (an execute_tool span is: it stays)."""
        if trace_api.get_current_span(current) is not trace_api.get_current_span(self._parent):
            return current
        return trace_api.set_span_in_context(self.span(), current)


def _under_running_step() -> context_api.Context:
    """The current context, to start a span under: with the running step's span, made now, as
    its span when the step is what the new span belongs under."""
    current = context_api.get_current()
    step = _running_step.get()
    return current if step is None else step.under(current)


def failed(
    span: trace_api.Span, error_type: str, message: str | None, exc: BaseException | None = None
) -> None:
    """Mark a span failed as the conventions say: ``error.type`` and the ERROR status (nothing
    on a span that records nothing: the trace was not sampled)."""
    if not span.is_recording():
        return
    span.set_attribute("error.type", error_type)
    if exc is not None:
        span.record_exception(exc)
    span.set_status(StatusCode.ERROR, message)


@contextmanager
def tool_execution(
    tool_name: str,
    *,
    call_id: str,
    tool_type: str,
    attributes: Mapping[str, Any],
    recorded_only: Callable[[], Mapping[str, Any]] | None = None,
) -> Iterator[trace_api.Span | None]:
    """One call of a capability (a tool call, a resource read, a prompt) as the GenAI
    conventions' ``execute_tool`` span, current while the MCP request is made (the SDK's client
    span becomes its child). ``recorded_only``: attributes worth computing only for a span that
    records (values with their secrets hidden): not called when the trace is not sampled.
    Yields the span (None when tracing is off) for its outcome."""
    if not tracing():
        yield None
        return
    base: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool_name,
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.type": tool_type,
    }
    span = tracer().start_span(
        f"execute_tool {tool_name}",
        context=_under_running_step(),
        kind=SpanKind.INTERNAL,
        attributes=base | dict(attributes),
    )
    if recorded_only is not None and span.is_recording():
        values = recorded_only()
        if values:
            span.set_attributes(values)
    with trace_api.use_span(span, end_on_exit=True):
        yield span


def current_context() -> context_api.Context | None:
    """The caller's context, to carry to another task or thread (a portal's task does not
    inherit it), with the running step's span in it; None when tracing is off, so nothing is
    carried."""
    return _under_running_step() if tracing() else None


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
