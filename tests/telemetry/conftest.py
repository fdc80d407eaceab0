"""Telemetry on, in memory: the OpenTelemetry SDK's in-memory span exporter and metric reader.

OpenTelemetry lets a process set its global tracer provider once, and the MCP SDK's tracer is
bound to that global: so each test process gets one provider (with Gatehouse's processor for
the SDK's client spans, as telemetry/setup.py installs it), and a test turns Gatehouse's
telemetry on with it (telemetry/switch.py use) and off again after."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
from mcp.client._memory import InMemoryTransport
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcp_host import sdk_client
from telemetry import switch
from telemetry.mcp_spans import McpClientSpans
from tests.in_process_servers import serve_bundled_in_process


@cache
def _process_provider() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(McpClientSpans())
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    assert trace.get_tracer_provider() is provider, "another test set the global tracer provider"
    return provider, exporter


@dataclass
class Recorded:
    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        return [span for span in self.spans() if span.name == name]

    def one(self, name: str) -> ReadableSpan:
        found = self.named(name)
        assert len(found) == 1, (name, sorted(span.name for span in self.spans()))
        return found[0]

    def points(self, metric: str) -> list[HistogramDataPoint]:
        data = self.reader.get_metrics_data()
        found: list[HistogramDataPoint] = []
        for resource in data.resource_metrics if data is not None else []:
            for scope in resource.scope_metrics:
                for recorded in scope.metrics:
                    if recorded.name == metric:
                        found += [p for p in recorded.data.data_points if isinstance(p, HistogramDataPoint)]
        return found


def attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


@pytest.fixture
def recorded() -> Iterator[Recorded]:
    """Telemetry on for the test, every span and metric kept in memory."""
    provider, exporter = _process_provider()
    exporter.clear()
    reader = InMemoryMetricReader()
    switch.use(provider, MeterProvider(metric_readers=[reader]))
    try:
        yield Recorded(exporter, reader)
    finally:
        switch.use(None, None)


@pytest.fixture
def recorded_with_arguments() -> Iterator[Recorded]:
    """As ``recorded``, with argument values explicitly enabled on spans."""
    provider, exporter = _process_provider()
    exporter.clear()
    reader = InMemoryMetricReader()
    switch.use(provider, MeterProvider(metric_readers=[reader]), capture_arguments=True)
    try:
        yield Recorded(exporter, reader)
    finally:
        switch.use(None, None)


@pytest.fixture
def servers_over_json_rpc(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bundled servers in this process (tests/in_process_servers.py), reached over JSON-RPC
    on memory streams (the SDK's InMemoryTransport) rather than by the SDK's direct in-process
    calls: so every request goes through the SDK's JSON-RPC dispatcher, which makes the MCP
    client span and puts the trace context into ``_meta``, as over stdio or HTTP."""
    serve_bundled_in_process(monkeypatch)
    served: Any = vars(sdk_client)["client_target"]

    def framed(name: str, target: Any, *args: Any, **options: Any) -> Any:
        made = served(name, target, *args, **options)
        return InMemoryTransport(made) if isinstance(made, MCPServer | Server) else made

    monkeypatch.setattr(sdk_client, "client_target", framed)
