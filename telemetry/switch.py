"""Whether this process traces and measures, and what it traces and measures with.

Everything else in telemetry/ asks ``tracing()`` or ``metrics()`` first: a module global read,
so that with telemetry off (the default) a request pays for nothing else. ``use`` is the one
way to turn it on: telemetry/setup.py calls it with the providers it built from the OTEL_*
variables, tests with providers that keep spans in memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from opentelemetry import metrics as metrics_api
from opentelemetry import trace as trace_api

# Each instrumentation names its scope: the spans and metrics Gatehouse makes itself (the MCP
# SDK's client spans come under its own scope, "mcp-python-sdk").
SCOPE = "gatehouse"
# mcp.client.operation.duration's buckets, as the MCP semantic conventions advise (seconds).
MCP_DURATION_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
# A review waits seconds to days: the wait's buckets reach a week (seconds).
REVIEW_WAIT_BUCKETS = (1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 24 * 3600, 7 * 24 * 3600)


@dataclass(frozen=True)
class Instruments:
    """The metrics Gatehouse records (docs/telemetry.md)."""

    mcp_operation: metrics_api.Histogram
    review_wait: metrics_api.Histogram


@dataclass(frozen=True)
class _State:
    tracer: trace_api.Tracer | None = None
    instruments: Instruments | None = None
    capture_arguments: bool = False


_state = _State()


def use(
    tracer_provider: trace_api.TracerProvider | None,
    meter_provider: metrics_api.MeterProvider | None = None,
    *,
    capture_arguments: bool = False,
) -> None:
    """Trace with ``tracer_provider`` and measure with ``meter_provider`` from now on; None
    turns that off. ``capture_arguments``: spans carry argument values (secrets hidden), which
    only an explicit setting turns on (telemetry/setup.py)."""
    global _state
    tracer = tracer_provider.get_tracer(SCOPE) if tracer_provider is not None else None
    instruments = _instruments(meter_provider.get_meter(SCOPE)) if meter_provider is not None else None
    _state = _State(tracer, instruments, capture_arguments and tracer is not None)


def _instruments(meter: metrics_api.Meter) -> Instruments:
    return Instruments(
        mcp_operation=meter.create_histogram(
            "mcp.client.operation.duration",
            unit="s",
            description="The duration of the MCP request or notification as observed on the sender"
            " from the time it was sent until the response or ack is received.",
            explicit_bucket_boundaries_advisory=list(MCP_DURATION_BUCKETS),
        ),
        review_wait=meter.create_histogram(
            "gatehouse.review.wait.duration",
            unit="s",
            description="How long a call waited for a person: from the review's opening to its decision.",
            explicit_bucket_boundaries_advisory=list(REVIEW_WAIT_BUCKETS),
        ),
    )


def tracing() -> bool:
    return _state.tracer is not None


def metrics() -> bool:
    return _state.instruments is not None


def observed() -> bool:
    """Whether anything records (traces or metrics): what is worth reading for them only then."""
    return tracing() or metrics()


def tracer() -> trace_api.Tracer:
    """The tracer; only called after tracing() said yes."""
    assert _state.tracer is not None, "telemetry is off: ask tracing() first"
    return _state.tracer


def instruments() -> Instruments:
    """The instruments; only called after metrics() said yes."""
    assert _state.instruments is not None, "metrics are off: ask metrics() first"
    return _state.instruments


def capture_arguments() -> bool:
    """Whether spans carry argument values (secrets hidden): off unless explicitly enabled."""
    return _state.capture_arguments
