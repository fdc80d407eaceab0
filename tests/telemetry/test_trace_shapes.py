"""The shapes of a request's trace, from the OpenTelemetry SDK's in-memory exporter: one trace
from the ask through the wait for a person to the call, the GenAI conventions' execute_tool
span, the MCP conventions' client span (the MCP SDK's own, completed), the wait as a span with
its events, and the metrics (docs/telemetry.md)."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind

from gatehouse_verify.canonical import canonical_json
from mcp_host.sdk_client import SdkMcpClient
from tests.held_server import Hold, mail_server
from tests.reviews.review_support import EMAIL_REQUEST, email_servers, services_for
from tests.telemetry.conftest import Recorded, attributes

pytestmark = pytest.mark.usefixtures("servers_over_json_rpc")

WORKFLOW = "invoke_workflow gatehouse"
SESSION_OPENING = {"server/discover", "initialize", "notifications/initialized"}


def _ns(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp() * 1_000_000_000)


def _parent_id(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def _ask_and_approve(data_dir: Path) -> tuple[str, dict[str, object], int | None]:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        paused = services.requests.ask(EMAIL_REQUEST)
        assert paused.final_output.review is not None
        review_id = paused.final_output.review.id
        done = services.reviews.decide(review_id, reviewer="reviewer", approve=True)
        assert done.run is not None and done.run.final_output.status == "ok"
        review = services.ledger.require(review_id)
        return review_id, review.model_dump(), services.policy.version


def test_a_reviewed_request_is_one_trace_from_the_ask_through_the_wait_to_the_call(
    data_dir: Path, recorded: Recorded
) -> None:
    review_id, review, policy_version = _ask_and_approve(data_dir)
    spans = recorded.spans()

    # Everything but opening the sessions (before any request, a trace of its own) is the
    # request's one trace.
    request_spans = [span for span in spans if span.name not in SESSION_OPENING]
    assert len({span.context.trace_id for span in request_spans}) == 1
    request, resumed = sorted(recorded.named(WORKFLOW), key=lambda span: span.start_time or 0)
    assert request.parent is None and _parent_id(resumed) == request.context.span_id
    assert attributes(request)["gen_ai.operation.name"] == "invoke_workflow"
    assert (attributes(request)["gatehouse.run"], attributes(resumed)["gatehouse.run"]) == (
        "request",
        "resume",
    )
    workflow_ids = {request.context.span_id, resumed.context.span_id}
    steps = [span for span in spans if span.name.startswith("step ")]
    assert {"step preprocess_request", "step mark_needs_review", "step invoke_mcp_capability"} <= {
        step.name for step in steps
    }
    assert all(_parent_id(step) in workflow_ids for step in steps)
    # The review paused the graph: a pause, not a failure.
    paused_step = next(s for s in steps if s.name == "step mark_needs_review" and s.events)
    assert [event.name for event in paused_step.events] == ["gatehouse.graph.paused"]
    assert paused_step.status.is_ok

    wait = recorded.one("wait for review")
    assert _parent_id(wait) == request.context.span_id
    assert (wait.start_time, wait.end_time) == (
        _ns(str(review["created_at"])),
        _ns(str(review["decided_at"])),
    )
    assert (
        attributes(wait).items()
        >= {
            "gatehouse.review.id": review_id,
            "gatehouse.review.decision": "approve",
            "gen_ai.tool.name": "send_email",
        }.items()
    )
    requested, decided = wait.events
    digest = hashlib.sha256(canonical_json(review["arguments"]).encode()).hexdigest()
    assert (requested.name, requested.timestamp) == ("gatehouse.review.requested", wait.start_time)
    assert decided.name == "gatehouse.review.decided"
    assert dict(decided.attributes or {}) == {
        "gatehouse.review.reviewer": "reviewer",
        "gatehouse.review.decision": "approve",
        "gatehouse.review.arguments.digest": digest,
        "gatehouse.policy.version": policy_version,
    }


def test_a_call_is_an_execute_tool_span_over_the_sdks_mcp_client_span_and_the_server_joins_by_meta(
    data_dir: Path, recorded: Recorded
) -> None:
    _ask_and_approve(data_dir)

    tool = recorded.one("execute_tool send_email")
    assert tool.kind is SpanKind.INTERNAL
    assert (
        attributes(tool).items()
        >= {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "send_email",
            "gen_ai.tool.type": "extension",
            "mcp.method.name": "tools/call",
        }.items()
    )
    assert len(str(attributes(tool)["gen_ai.tool.call.id"])) == 32
    assert "gen_ai.tool.call.arguments" not in attributes(tool)
    step = recorded.one("step invoke_mcp_capability")
    assert _parent_id(tool) == step.context.span_id

    # The MCP SDK's client span, named and completed as the MCP conventions say: no second one.
    client, server = sorted(
        recorded.named("tools/call send_email"), key=lambda span: span.kind is SpanKind.SERVER
    )
    assert client.kind is SpanKind.CLIENT and client.instrumentation_scope is not None
    assert client.instrumentation_scope.name == "mcp-python-sdk"
    assert _parent_id(client) == tool.context.span_id
    assert (
        attributes(client).items()
        >= {
            "mcp.method.name": "tools/call",
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "send_email",
            "gatehouse.mcp.server": "email",
            "network.transport": "pipe",
        }.items()
    )
    assert attributes(client)["jsonrpc.request.id"]
    assert not [span for span in recorded.spans() if span.name.startswith("MCP send")]
    # The server read the trace context from the request's _meta (SEP-414): its span is the
    # client span's child.
    assert server.kind is SpanKind.SERVER and _parent_id(server) == client.context.span_id

    durations = recorded.points("mcp.client.operation.duration")
    methods = {str(dict(point.attributes or {})["mcp.method.name"]) for point in durations}
    assert {"tools/call", "tools/list"} <= methods
    call = next(p for p in durations if dict(p.attributes or {})["mcp.method.name"] == "tools/call")
    assert (
        dict(call.attributes or {}).items()
        >= {"gen_ai.tool.name": "send_email", "gatehouse.mcp.server": "email"}.items()
    )
    waits = recorded.points("gatehouse.review.wait.duration")
    assert [(w.count, dict(w.attributes or {})["gatehouse.review.decision"]) for w in waits] == [
        (1, "approve")
    ]


SECRET_REQUEST = "Send a message to bob@example.com api_token=abc123 saying hi"


def test_argument_values_go_on_spans_only_when_enabled_and_never_a_secret(
    data_dir: Path, recorded_with_arguments: Recorded
) -> None:
    effects = data_dir / "effects.jsonl"
    with (
        SdkMcpClient({"slow": mail_server(effects, Hold(0))}) as pool,
        services_for(data_dir, mcp=pool) as services,
    ):
        paused = services.requests.ask(SECRET_REQUEST)
        assert paused.final_output.review is not None
        edited = {"to": "bob@example.com", "body": "hi", "api_token": "xyz789"}
        done = services.reviews.decide(
            paused.final_output.review.id, reviewer="reviewer", approve=True, arguments=edited
        )
        assert done.run is not None and done.run.final_output.status == "ok"

    tool = recorded_with_arguments.one("execute_tool send_message")
    shown = json.loads(str(attributes(tool)["gen_ai.tool.call.arguments"]))
    assert shown == {"to": "bob@example.com", "body": "hi", "api_token": "***"}
    decided = recorded_with_arguments.one("wait for review").events[-1]
    assert json.loads(str(dict(decided.attributes or {})["gatehouse.review.arguments"]))["api_token"] == "***"
    everything = json.dumps([json.loads(span.to_json()) for span in recorded_with_arguments.spans()])
    assert "abc123" not in everything and "xyz789" not in everything
