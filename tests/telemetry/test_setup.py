"""Telemetry is off unless the standard OTEL_* variables turn it on, and a variable Gatehouse
cannot honour is a configuration error that names it (telemetry/setup.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from telemetry import switch
from telemetry.setup import Plan, TelemetryConfigError, plan_from
from tests.cli_support import run_cli

ENDPOINT = "http://127.0.0.1:4318"


def test_nothing_is_on_without_otel_variables() -> None:
    assert plan_from({}) == Plan()
    assert not plan_from({"GATEHOUSE_DATA": "/tmp/x"}).on


def test_an_otlp_endpoint_turns_on_both_signals_and_a_signals_own_endpoint_only_that_one() -> None:
    assert plan_from({"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}) == Plan(("otlp",), ("otlp",))
    assert plan_from({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": ENDPOINT}) == Plan(("otlp",), ())
    assert plan_from({"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": ENDPOINT}) == Plan((), ("otlp",))


def test_the_exporter_variables_choose_and_none_or_the_sdk_switch_turns_off() -> None:
    chosen = {"OTEL_TRACES_EXPORTER": "console", "OTEL_METRICS_EXPORTER": "none"}
    assert plan_from(chosen) == Plan(("console",), ())
    both = {"OTEL_TRACES_EXPORTER": "otlp,console", "OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}
    assert plan_from(both).traces == ("otlp", "console")
    assert plan_from({"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT, "OTEL_SDK_DISABLED": "true"}) == Plan()


def test_argument_values_are_captured_only_when_the_genai_capture_variable_says_so() -> None:
    on = {"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}
    assert not plan_from(on).capture_arguments
    assert plan_from(on | {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}).capture_arguments
    assert not plan_from(
        on | {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "NO_CONTENT"}
    ).capture_arguments
    # Nothing to capture into without traces.
    assert not plan_from({"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}).capture_arguments


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
            "OTEL_EXPORTER_OTLP_PROTOCOL=grpc",
        ),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT, "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/json"},
            "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=http/json",
        ),
        ({"OTEL_TRACES_EXPORTER": "zipkin"}, "OTEL_TRACES_EXPORTER=zipkin"),
    ],
)
def test_what_gatehouse_cannot_do_is_refused_naming_the_variable(environ: dict[str, str], named: str) -> None:
    with pytest.raises(TelemetryConfigError, match=named):
        plan_from(environ)


def test_the_command_line_exits_2_naming_the_variable_and_turns_nothing_on(tmp_path: Path) -> None:
    env: dict[str, str | None] = {
        "GATEHOUSE_DATA": str(tmp_path),
        "OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT,
        "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
    }
    ran = run_cli("ask", "What is MCP?", env=env)
    assert ran.returncode == 2
    assert "OTEL_EXPORTER_OTLP_PROTOCOL=grpc" in ran.stderr and "http/protobuf" in ran.stderr
    assert not switch.tracing() and not switch.metrics()
