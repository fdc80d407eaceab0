"""Figure 14: the warm read-only request of figure 1 with OpenTelemetry on against off, in one
run (docs/telemetry.md). One Gatehouse (SQLite file, the bundled filesystem server over stdio on
a warm pool); with tracing on, every span (the request's, each step's, execute_tool, the MCP
SDK's client span) and the MCP metric go through the SDK's batch processor and periodic reader
to OTLP/HTTP exporters posting to an endpoint on 127.0.0.1 (bench/otlp_sink.py), as they would
to a collector. Requests alternate between on and off, in rounds each judged by its own ratio
of medians; the figure is the median round, against 1.1x.

OpenTelemetry lets a process set its global tracer provider once, and the MCP SDK's tracer
follows that global: the figure sets one whose tracers follow a switch, handing out the SDK's
tracer when on and the API's no-op tracer (what a process without a provider gets) when off,
so the off requests pay what a process with telemetry off pays. Gatehouse's own spans take the
SDK's tracer straight from its provider (telemetry/switch.py use), as in a process that
telemetry/setup.py turned on: the switch's forwarding is not counted against them."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace as trace_api
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.util.types import Attributes

from bench.backends import SQLITE
from bench.otlp_sink import otlp_sink
from bench.report import Figure, Target, listed, summary_ms
from bench.workspace import READ_REQUEST, Workspace
from graph.runner import start_request
from telemetry import switch
from telemetry.mcp_spans import McpClientSpans

SECTION = "14 a read-only request, warm, traced"
REQUESTS = 420
WARMUP = 30
ROUNDS = 7
RATIO_TARGET = 1.1


class _SwitchedTracer(trace_api.Tracer):
    def __init__(self, switched: SwitchedProvider, real: trace_api.Tracer) -> None:
        self._switched = switched
        self._real = real
        self._off = trace_api.NoOpTracer()

    def _tracer(self) -> trace_api.Tracer:
        return self._real if self._switched.on else self._off

    def start_span(self, *args: Any, **kwargs: Any) -> trace_api.Span:
        return self._tracer().start_span(*args, **kwargs)

    def start_as_current_span(self, *args: Any, **kwargs: Any) -> Any:
        return self._tracer().start_as_current_span(*args, **kwargs)


class SwitchedProvider(trace_api.TracerProvider):
    """The global tracer provider for this figure: the SDK's, or nothing, as ``on`` says."""

    def __init__(self, real: TracerProvider) -> None:
        self.real = real
        self.on = False

    def get_tracer(
        self,
        instrumenting_module_name: str,
        instrumenting_library_version: str | None = None,
        schema_url: str | None = None,
        attributes: Attributes | None = None,
    ) -> trace_api.Tracer:
        real = self.real.get_tracer(
            instrumenting_module_name, instrumenting_library_version, schema_url, attributes
        )
        return _SwitchedTracer(self, real)


@contextmanager
def _telemetry(endpoint: str) -> Iterator[tuple[SwitchedProvider, MeterProvider]]:
    resource = Resource.create({"service.name": "gatehouse-bench"})
    real = TracerProvider(resource=resource)
    real.add_span_processor(McpClientSpans())
    real.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces")))
    # The SDK's defaults, as a process configured by the OTEL_* variables alone runs them: spans
    # exported in batches every 5 s (or 512 at a time), metrics every 60 s and at shutdown.
    reader = PeriodicExportingMetricReader(OTLPMetricExporter(endpoint=f"{endpoint}/v1/metrics"))
    meters = MeterProvider(resource=resource, metric_readers=[reader])
    switched = SwitchedProvider(real)
    trace_api.set_tracer_provider(switched)
    if trace_api.get_tracer_provider() is not switched:
        raise RuntimeError("another tracer provider was set in this process before the traced figure")
    try:
        yield switched, meters
    finally:
        switch.use(None, None)
        switched.on = False
        real.shutdown()
        meters.shutdown()


def _turn(switched: SwitchedProvider, meters: MeterProvider, on: bool) -> None:
    switched.on = on
    switch.use(switched.real if on else None, meters if on else None)


def run(space: Workspace) -> list[Figure]:
    settings = space.on(SQLITE, "filesystem")
    on_samples: list[float] = []
    off_samples: list[float] = []
    round_ratios: list[float] = []
    cpu_ratios: list[float] = []
    on_cpu_total = off_cpu_total = 0.0
    per_round = REQUESTS // ROUNDS
    with otlp_sink() as (endpoint, counts), _telemetry(endpoint) as (switched, meters):
        with space.services(settings) as services:

            def timed(on: bool) -> tuple[float, float]:
                """The request's wall time, and the CPU time the whole process spent meanwhile
                (every thread: the batch exporters' too)."""
                _turn(switched, meters, on)
                began, cpu = time.perf_counter(), time.process_time()
                outcome = start_request(services.graph, services.context, READ_REQUEST)
                seconds, cpu_seconds = time.perf_counter() - began, time.process_time() - cpu
                if outcome.final_output.status != "ok":
                    raise RuntimeError(
                        f"the read-only request did not succeed: {outcome.final_output.response}"
                    )
                return seconds, cpu_seconds

            for n in range(WARMUP):
                timed(n % 2 == 0)
            for _ in range(ROUNDS):
                on_round: list[tuple[float, float]] = []
                off_round: list[tuple[float, float]] = []
                for n in range(per_round):
                    # Alternating, and which goes first alternating too: load hits both alike.
                    first = n % 2 == 0
                    (on_round if first else off_round).append(timed(first))
                    (off_round if first else on_round).append(timed(not first))
                on_wall, off_wall = [w for w, _ in on_round], [w for w, _ in off_round]
                round_ratios.append(statistics.median(on_wall) / statistics.median(off_wall))
                on_cpu, off_cpu = [c for _, c in on_round], [c for _, c in off_round]
                cpu_ratios.append(statistics.median(on_cpu) / statistics.median(off_cpu))
                on_samples += on_wall
                off_samples += off_wall
                on_cpu_total += sum(on_cpu)
                off_cpu_total += sum(off_cpu)
            _turn(switched, meters, False)
        switched.real.force_flush()
        meters.force_flush()
        exported = counts.exports
    return _figures(on_samples, off_samples, round_ratios, cpu_ratios, on_cpu_total / off_cpu_total, exported)


def _figures(
    on: Sequence[float],
    off: Sequence[float],
    ratios: Sequence[float],
    cpu_ratios: Sequence[float],
    cpu_total_ratio: float,
    exports: int,
) -> list[Figure]:
    traced, plain = summary_ms(on), summary_ms(off)
    return [
        Figure(
            SECTION,
            "median, tracing on / off",
            statistics.median(ratios),
            "x",
            Target("<=", RATIO_TARGET),
            f"median of {ROUNDS} rounds, each its own ratio of medians ({listed(ratios)}); "
            f"{len(on)} requests each way after {WARMUP} warm-up, alternating",
            {"rounds": list(ratios)},
        ),
        Figure(
            SECTION,
            "CPU time, tracing on / off",
            statistics.median(cpu_ratios),
            "x",
            None,
            f"the process's CPU time (every thread) during each request, median of {ROUNDS} rounds, "
            f"each its own ratio of medians ({listed(cpu_ratios)}); over the whole run, with the exports "
            f"and garbage collections that fall on some requests, {cpu_total_ratio:.2f}x",
            {"rounds": list(cpu_ratios), "whole_run": cpu_total_ratio},
        ),
        Figure(
            SECTION,
            "median, tracing on",
            traced["median_ms"],
            "ms",
            None,
            f"spans and the MCP metric exported over OTLP/HTTP to 127.0.0.1 ({exports} exports)",
            traced,
        ),
        Figure(
            SECTION,
            "median, tracing off",
            plain["median_ms"],
            "ms",
            None,
            "no provider: the API's no-op",
            plain,
        ),
        Figure(SECTION, "p95, tracing on", traced["p95_ms"], "ms", None, "", traced),
        Figure(SECTION, "p95, tracing off", plain["p95_ms"], "ms", None, "", plain),
    ]
