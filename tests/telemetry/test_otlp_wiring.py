"""The wiring, end to end: `gatehouse` processes configured only by the standard OTEL_*
variables send their traces and metrics over OTLP/HTTP to a real receiver on 127.0.0.1
(tests/telemetry/otlp_receiver.py), and a decision taken by a separate process later joins the
trace of the request that another process started. Without the variables, nothing is set up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reviews.review_support import EMAIL_REQUEST, REPO, email_servers
from tests.telemetry.otlp_receiver import ReceivedSpan, otlp_receiver

pytestmark = pytest.mark.processes

SESSION_OPENING = {"server/discover", "initialize", "notifications/initialized"}


def _gatehouse(data: Path, otel: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "GATEHOUSE_"))}
    return subprocess.run(
        [sys.executable, "-m", "gatehouse.cli", *args],
        capture_output=True,
        text=True,
        env=env | {"GATEHOUSE_DATA": str(data)} | otel,
        cwd=REPO,
        timeout=120,
        check=False,
    )


def _by_name(spans: list[ReceivedSpan], name: str) -> list[ReceivedSpan]:
    return [span for span in spans if span.name == name]


def test_a_decision_in_another_process_joins_the_requests_trace_at_a_real_otlp_receiver(
    data_dir: Path,
) -> None:
    servers = str(email_servers(data_dir))
    with otlp_receiver() as (endpoint, received):
        otel = {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_SERVICE_NAME": "gatehouse-test"}
        asked = _gatehouse(data_dir, otel, "ask", EMAIL_REQUEST, "--servers", servers, "--json")
        assert asked.returncode == 0, asked.stderr
        review_id = json.loads(asked.stdout)["review"]["id"]
        # Every span of the asking process arrived when it exited (exporters flush at exit).
        asker = list(received.spans)
        decided = _gatehouse(
            data_dir,
            otel,
            "reviews",
            "decide",
            review_id,
            "--approve",
            "--reviewer",
            "reviewer",
            "--servers",
            servers,
        )
        assert decided.returncode == 0, decided.stderr
        decider = received.spans[len(asker) :]
        points = list(received.points)

    assert asker and decider
    assert {span.service for span in asker + decider} == {"gatehouse-test"}
    request_spans = [span for span in asker + decider if span.name not in SESSION_OPENING]
    assert len({span.trace_id for span in request_spans}) == 1
    (root,) = _by_name(asker, "invoke_workflow gatehouse")
    assert root.parent_span_id == ""
    # The deciding process's spans hang under the asking process's request.
    (resumed,) = _by_name(decider, "invoke_workflow gatehouse")
    (wait,) = _by_name(decider, "wait for review")
    assert resumed.parent_span_id == wait.parent_span_id == root.span_id
    assert [name for name, _ in wait.events] == ["gatehouse.review.requested", "gatehouse.review.decided"]
    assert wait.events[1][1]["gatehouse.review.reviewer"] == "reviewer"
    (tool,) = _by_name(decider, "execute_tool send_email")
    (client,) = [
        span for span in _by_name(decider, "tools/call send_email") if span.scope == "mcp-python-sdk"
    ]
    assert client.parent_span_id == tool.span_id
    assert (client.attributes["gatehouse.mcp.server"], client.attributes["network.transport"]) == (
        "email",
        "pipe",
    )
    assert "discover_capabilities" in {s.attributes.get("gatehouse.graph.node") for s in asker}

    metrics = {(point.metric, point.attributes.get("mcp.method.name")) for point in points}
    assert ("mcp.client.operation.duration", "tools/call") in metrics
    assert ("mcp.client.operation.duration", "tools/list") in metrics
    assert ("gatehouse.review.wait.duration", None) in metrics


def test_without_otel_variables_nothing_is_set_up_and_no_exporter_is_imported(data_dir: Path) -> None:
    # (langsmith, under langchain, imports parts of the SDK itself when it is installed; what
    # Gatehouse sets up is the providers and their exporters.)
    probe = (
        "import sys\n"
        "from opentelemetry import metrics, trace\n"
        "from gatehouse.wiring import start_telemetry\n"
        "from telemetry import switch\n"
        "start_telemetry()\n"
        "exporters = sorted(m for m in sys.modules if m.startswith('opentelemetry.exporter'))\n"
        "print(switch.tracing(), switch.metrics(), type(trace.get_tracer_provider()).__name__,\n"
        "      type(metrics.get_meter_provider()).__name__, exporters)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "ProxyTracerProvider", "_ProxyMeterProvider", "[]"]
