"""What tracing does, and when (telemetry/spans.py): a step's span is made when the run ends,
with the times the step ran, unless a span starts under it; values that take hiding secrets
are worked out only for a span that records. The trace is the same as if each span were made
as it happened (tests/telemetry/test_trace_shapes.py checks its shape)."""

from __future__ import annotations

import gc
import itertools
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from opentelemetry.trace import StatusCode

from graph.context import GraphContext
from graph.runner import execute, new_thread_id, start_request
from policies.decision import Policy
from telemetry import switch
from telemetry.spans import graph_step, workflow_run
from tests.reviews.review_support import services_for
from tests.support import bundled_server_entry
from tests.telemetry.conftest import Recorded

pytestmark = pytest.mark.usefixtures("servers_over_json_rpc")

READ_REQUEST = "List the files in the managed project folder."
WORKFLOW = "invoke_workflow gatehouse"


def _filesystem_servers(data: Path) -> Path:
    path = data / "servers.json"
    entry = bundled_server_entry("filesystem", data / "demo")
    path.write_text(json.dumps({"mcpServers": {"filesystem": entry}}), encoding="utf-8")
    return path


def _steps(recorded: Recorded) -> list[ReadableSpan]:
    steps = [span for span in recorded.spans() if span.name.startswith("step ")]
    return sorted(steps, key=lambda span: span.start_time or 0)


def _parent_id(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def test_a_requests_step_spans_are_made_as_its_run_ends_with_the_times_each_step_ran(
    data_dir: Path, recorded: Recorded
) -> None:
    finished_during_the_run: list[list[str]] = []
    with services_for(data_dir, servers=_filesystem_servers(data_dir)) as services:
        outcome = start_request(
            services.graph,
            services.context,
            READ_REQUEST,
            on_step=lambda _step: finished_during_the_run.append([s.name for s in _steps(recorded)]),
        )
    assert outcome.final_output.status == "ok"

    # While the run went on, no step's span was ended (made and exported) yet...
    assert len(finished_during_the_run) == len(outcome.path) and not any(finished_during_the_run)
    # ...and when it ended, there was one per step, in the order they ran, under the request's
    # span, one after the other within it.
    workflow = recorded.one(WORKFLOW)
    steps = _steps(recorded)
    assert [step.name for step in steps] == [f"step {node}" for node in outcome.path]
    assert all(_parent_id(step) == workflow.context.span_id for step in steps)
    assert all(
        dict(step.attributes or {})["gatehouse.graph.node"] == node
        for step, node in zip(steps, outcome.path, strict=True)
    )
    assert (workflow.start_time or 0) <= (steps[0].start_time or 0)
    for step, following in itertools.pairwise(steps):
        assert (step.start_time or 0) <= (step.end_time or 0) <= (following.start_time or 0)
    assert (steps[-1].end_time or 0) <= (workflow.end_time or 0)

    # The call's span started under its step, whose span was made for it then: its child, in it.
    step = recorded.one("step invoke_mcp_capability")
    tool = recorded.one("execute_tool list_directory")
    assert _parent_id(tool) == step.context.span_id
    assert (step.start_time or 0) <= (tool.start_time or 0) <= (tool.end_time or 0) <= (step.end_time or 0)


def test_a_graph_run_outside_a_request_span_still_has_each_step_span_made_as_the_step_ends(
    data_dir: Path, recorded: Recorded
) -> None:
    # As `langgraph dev` runs the graph: no invoke_workflow span around it.
    finished_during_the_run: list[list[str]] = []
    with services_for(data_dir, servers=_filesystem_servers(data_dir)) as services:
        thread = new_thread_id()
        outcome = execute(
            services.graph,
            services.context,
            {"input": READ_REQUEST, "thread_id": thread, "requester": "operator", "server_preferences": []},
            thread,
            on_step=lambda _step: finished_during_the_run.append([s.name for s in _steps(recorded)]),
        )
    assert outcome.final_output.status == "ok"
    assert not recorded.named(WORKFLOW)
    assert finished_during_the_run[-1] == [f"step {node}" for node in outcome.path]
    assert [len(names) for names in finished_during_the_run] == list(range(1, len(outcome.path) + 1))


class _CountingSecrets:
    """The request's policy, counting how often it is asked to hide secrets (what only
    telemetry asks of it during a request)."""

    def __init__(self, policy: Policy) -> None:
        self._policy = policy
        self.hidden = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._policy, name)

    def hide_secrets(self, value: Any, *, thread_id: str | None = None) -> Any:
        self.hidden += 1
        return self._policy.hide_secrets(value, thread_id=thread_id)


@pytest.fixture
def unsampled_with_arguments() -> Iterator[None]:
    """Tracing on, argument values enabled, and a sampler that keeps no trace (as
    OTEL_TRACES_SAMPLER=always_off, or a ratio that left this one out, would)."""
    switch.use(TracerProvider(sampler=ALWAYS_OFF), None, capture_arguments=True)
    try:
        yield
    finally:
        switch.use(None, None)


def _ask_counting(data_dir: Path) -> int:
    with services_for(data_dir, servers=_filesystem_servers(data_dir)) as services:
        policy = _CountingSecrets(services.context.policy)
        context: GraphContext = replace(services.context, policy=cast("Policy", policy))
        outcome = start_request(services.graph, context, READ_REQUEST)
    assert outcome.final_output.status == "ok"
    return policy.hidden


def test_an_unsampled_request_works_out_no_argument_values_for_its_spans(
    data_dir: Path, unsampled_with_arguments: None
) -> None:
    assert _ask_counting(data_dir) == 0


def test_a_sampled_request_with_argument_values_enabled_hides_their_secrets_for_its_span(
    data_dir: Path, recorded_with_arguments: Recorded
) -> None:
    assert _ask_counting(data_dir) == 1
    tool = recorded_with_arguments.one("execute_tool list_directory")
    assert "gen_ai.tool.call.arguments" in dict(tool.attributes or {})


def test_a_step_that_fails_is_recorded_failed_at_once_under_its_run(recorded: Recorded) -> None:
    with (
        pytest.raises(ValueError, match="no such folder"),
        workflow_run("thread-1", run="request"),
        graph_step("broken"),
    ):
        raise ValueError("no such folder")
    workflow, step = recorded.one(WORKFLOW), recorded.one("step broken")
    assert _parent_id(step) == workflow.context.span_id
    assert dict(step.attributes or {})["error.type"] == "ValueError"
    assert step.status.status_code is StatusCode.ERROR and step.status.description == "no such folder"
    assert [event.name for event in step.events] == ["exception"]
    assert workflow.status.status_code is StatusCode.ERROR


def test_a_traced_request_leaves_none_of_its_spans_or_steps_to_the_garbage_collector(
    data_dir: Path, recorded: Recorded
) -> None:
    # What reference cycles keep waits for a collection (a full one costs a warm request many
    # times over): a request's steps and spans are freed as soon as they are done with.
    with services_for(data_dir, servers=_filesystem_servers(data_dir)) as services:
        start_request(services.graph, services.context, READ_REQUEST)
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            outcome = start_request(services.graph, services.context, READ_REQUEST)
            gc.collect()
            left = {type(found).__qualname__ for found in gc.garbage}
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
    assert outcome.final_output.status == "ok"
    assert not left & {"graph_step", "_Span", "ReadableSpan"}, left
