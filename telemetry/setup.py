"""Turn telemetry on from the standard OpenTelemetry environment variables, and only from them.

Off unless one of these asks for it (docs/telemetry.md):

- ``OTEL_EXPORTER_OTLP_ENDPOINT`` (both signals), ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``,
  ``OTEL_EXPORTER_OTLP_METRICS_ENDPOINT``: send that signal over OTLP/HTTP there;
- ``OTEL_TRACES_EXPORTER`` / ``OTEL_METRICS_EXPORTER``: ``otlp``, ``console`` (to stderr) or
  ``none``; unset, a signal is exported over OTLP when an endpoint for it is set.

``OTEL_SDK_DISABLED=true`` turns everything off. The exporters read their own variables
(endpoint, headers, timeout, compression, certificates), the SDK its own (sampler, batch sizes,
export interval, resource attributes, propagators). OTLP goes over HTTP with protobuf: a
``OTEL_EXPORTER_OTLP_*PROTOCOL`` naming anything else is a configuration error, not a silent
fallback. ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` (``true``, ``span_only`` or
``span_and_event``) puts argument values on the spans, secrets hidden; off by default.

The SDK is imported only when a signal is on: a process with telemetry off imports none of it.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcp_host.reported import UsageError
from telemetry.switch import use

if TYPE_CHECKING:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider

_log = logging.getLogger(__name__)

OTLP_PROTOCOL = "http/protobuf"
_EXPORTERS = {"otlp", "console"}
_CAPTURE_VALUES = {"true", "span_only", "span_and_event"}
DEFAULT_SERVICE_NAME = "gatehouse"


class TelemetryConfigError(UsageError, ValueError):
    """An OTEL_* variable asks for something Gatehouse does not do; the message names it (a
    command exits 2 with it, mcp_host/reported.py)."""


@dataclass(frozen=True)
class Plan:
    """What the environment asks for: the exporters of each signal (empty: that signal off)."""

    traces: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    capture_arguments: bool = False

    @property
    def on(self) -> bool:
        return bool(self.traces or self.metrics)


def _exporters(environ: Mapping[str, str], signal: str) -> tuple[str, ...]:
    variable = f"OTEL_{signal.upper()}_EXPORTER"
    named = environ.get(variable, "").strip().lower()
    if not named:
        endpoints = ("OTEL_EXPORTER_OTLP_ENDPOINT", f"OTEL_EXPORTER_OTLP_{signal.upper()}_ENDPOINT")
        return ("otlp",) if any(environ.get(name, "").strip() for name in endpoints) else ()
    chosen = tuple(dict.fromkeys(part.strip() for part in named.split(",") if part.strip()))
    if "none" in chosen:
        return ()
    unknown = [name for name in chosen if name not in _EXPORTERS]
    if unknown:
        raise TelemetryConfigError(
            f"{variable}={named}: Gatehouse exports with otlp (over HTTP), console or none, not {', '.join(unknown)}"
        )
    return chosen


def _check_protocol(environ: Mapping[str, str], signal: str) -> None:
    for variable in ("OTEL_EXPORTER_OTLP_PROTOCOL", f"OTEL_EXPORTER_OTLP_{signal.upper()}_PROTOCOL"):
        protocol = environ.get(variable, "").strip().lower()
        if protocol and protocol != OTLP_PROTOCOL:
            raise TelemetryConfigError(
                f"{variable}={protocol}: Gatehouse sends OTLP over HTTP as protobuf only ({OTLP_PROTOCOL})"
            )


def plan_from(environ: Mapping[str, str]) -> Plan:
    """What ``environ`` asks for (raises TelemetryConfigError naming a variable it cannot do)."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return Plan()
    traces = _exporters(environ, "traces")
    metrics = _exporters(environ, "metrics")
    for signal, exporters in (("traces", traces), ("metrics", metrics)):
        if "otlp" in exporters:
            _check_protocol(environ, signal)
    capture = environ.get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "").strip().lower()
    return Plan(traces, metrics, capture_arguments=bool(traces) and capture in _CAPTURE_VALUES)


_configured: Plan | None = None


def configure_from_environment(environ: Mapping[str, str] | None = None) -> Plan:
    """Turn on what the OTEL_* variables ask for, once per process: a process sets its global
    providers once, so after telemetry is on a second call returns the first one's plan. While
    it is off the variables are read again at each call (a few lookups). Raises
    TelemetryConfigError for a variable it cannot honour."""
    global _configured
    if _configured is not None:
        return _configured
    plan = plan_from(os.environ if environ is None else environ)
    if plan.on:
        _install(plan)
        _configured = plan
    return plan


def _install(plan: Plan) -> None:
    from opentelemetry import metrics as metrics_api
    from opentelemetry import trace as trace_api
    from opentelemetry.sdk.resources import Resource

    resource = Resource.create()
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win; without them, Gatehouse's name.
        resource = resource.merge(Resource({"service.name": DEFAULT_SERVICE_NAME}))
    tracer_provider = _tracer_provider(plan.traces, resource) if plan.traces else None
    meter_provider = _meter_provider(plan.metrics, resource) if plan.metrics else None
    if tracer_provider is not None:
        # Global, so that the MCP SDK's spans (and any library's) go to the same place.
        trace_api.set_tracer_provider(tracer_provider)
    if meter_provider is not None:
        metrics_api.set_meter_provider(meter_provider)
    use(tracer_provider, meter_provider, capture_arguments=plan.capture_arguments)
    _log.info("OpenTelemetry on: traces %s, metrics %s", plan.traces or "off", plan.metrics or "off")


def _tracer_provider(exporters: tuple[str, ...], resource: Resource) -> TracerProvider:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

    from telemetry.mcp_spans import McpClientSpans

    provider = TracerProvider(resource=resource)
    # First: the MCP SDK's spans are named and attributed before any exporter sees them.
    provider.add_span_processor(McpClientSpans())
    for name in exporters:
        exporter: SpanExporter
        if name == "otlp":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter()
        else:
            exporter = ConsoleSpanExporter(out=sys.stderr)
        provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def _meter_provider(exporters: tuple[str, ...], resource: Resource) -> MeterProvider:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import (
        ConsoleMetricExporter,
        MetricExporter,
        PeriodicExportingMetricReader,
    )

    readers: list[PeriodicExportingMetricReader] = []
    for name in exporters:
        exporter: MetricExporter
        if name == "otlp":
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

            exporter = OTLPMetricExporter()
        else:
            exporter = ConsoleMetricExporter(out=sys.stderr)
        readers.append(PeriodicExportingMetricReader(exporter))
    return MeterProvider(resource=resource, metric_readers=readers)
