"""A side-effecting call whose answer is lost after it was sent (a timeout, the server dying
mid-call) may have run: it is recorded outcome_unknown, never retried by itself, and a person
decides knowing that. Only a call known not to have reached the server is a plain failure."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import MCPError

from graph.runner import pending_interrupt
from mcp_host.errors import error_from_exception
from tests.mcp_host.helpers import child_processes
from tests.reviews.review_support import json_lines, services_for, slow_servers

SEND = "Send a message to bob@example.com saying hi"
# A policy under which this server's messages knowingly run without a review.
_ALLOW_MESSAGES = """
version = 1
[defaults]
action = "review"
reviewer_roles = ["reviewer"]
[roles.operator]
request = true
[roles.reviewer]
review = ["*"]
[users]
operator = "operator"
reviewer = "reviewer"
[[rules]]
name = "messages allowed"
match = ["slow__*"]
action = "allow"
accepts = ["sends messages", "destructive", "open world"]  # it says nothing, so the MCP defaults apply
explanation = "test: messages run unreviewed"
"""


@pytest.mark.processes
@pytest.mark.parametrize(
    ("how", "delay", "exit_after_effect"),
    [
        pytest.param("timeout", 5.0, False, id="the-host-gave-up-waiting"),
        pytest.param("server-died", 0.0, True, id="the-server-acted-then-died"),
    ],
)
def test_an_approved_call_that_may_have_run_is_outcome_unknown_and_goes_back_to_a_person(
    data_dir: Path, how: str, delay: float, exit_after_effect: bool
) -> None:
    effects = data_dir / "effects.jsonl"
    servers = slow_servers(data_dir, effects, delay=delay, timeout=1, exit_after_effect=exit_after_effect)
    with services_for(data_dir, servers=servers) as services:
        paused = services.requests.ask(SEND, requester="operator")
        assert paused.final_output.review is not None
        review_id, thread = paused.final_output.review.id, paused.final_output.thread_id

        done = services.reviews.decide(review_id, reviewer="reviewer", approve=True)

        assert len(json_lines(effects)) == 1  # it did act
        assert done.run is not None
        final = done.run.final_output
        assert final.status == "needs_review"
        assert "may have run" in final.response
        assert services.ledger.require(review_id).status == "outcome_unknown"
        waiting = pending_interrupt(services.graph, thread)
        assert waiting is not None and waiting["stage"] == "after_failure"
        assert waiting["review_id"] != review_id
        assert "outcome_unknown" in [flag["code"] for flag in waiting["flags"]]
        result = next(e for e in services.audit.events(thread_id=thread) if e.kind == "execution_result")
        assert result.data["outcome"] == "outcome_unknown"
        assert services.ledger.require(waiting["review_id"]).status == "pending"
    # Never tried again by itself.
    assert len(json_lines(effects)) == 1


@pytest.mark.processes
def test_an_unreviewed_side_effecting_call_that_timed_out_is_not_tried_on_another_candidate(
    data_dir: Path,
) -> None:
    effects = data_dir / "effects.jsonl"
    servers = slow_servers(data_dir, effects, delay=5.0, timeout=1)
    trusting = data_dir / "allow.toml"
    trusting.write_text(_ALLOW_MESSAGES, encoding="utf-8")
    with services_for(data_dir, servers=servers, policy=trusting) as services:
        run = services.requests.ask(SEND, requester="operator")

        assert run.final_output.status == "needs_review"
        assert "may have run" in run.final_output.response
        assert run.final_output.review is not None
        assert "outcome_unknown" in [flag.code for flag in run.final_output.review.flags]
    assert len(json_lines(effects)) == 1


@pytest.mark.parametrize(
    ("raised", "may_have_run"),
    [
        (TimeoutError(), True),
        (MCPError(code=-32001, message="Request timed out"), True),
        (MCPError(code=-32000, message="Connection closed"), True),
        (anyio.ClosedResourceError(), False),
        (anyio.BrokenResourceError(), False),
        (httpx.ConnectError("connection refused"), False),
        (MCPError(code=-32602, message="bad params"), False),
    ],
)
def test_only_a_failure_before_the_request_left_the_host_is_known_not_to_have_run(
    raised: BaseException, may_have_run: bool
) -> None:
    assert error_from_exception(raised).may_have_run is may_have_run


@pytest.mark.processes  # kills a real server process and waits for its restart
def test_an_approved_call_to_a_server_killed_while_it_waited_runs_on_the_restarted_server(
    data_dir: Path,
) -> None:
    # Issue 32, item 5: the server's process was killed after discovery, the request reviewed,
    # and on approval the call failed at once, flagged "it may have run", with a second review.
    effects = data_dir / "effects.jsonl"
    servers = slow_servers(data_dir, effects, delay=0.0)
    earlier = set(child_processes())
    with services_for(data_dir, servers=servers) as services:
        paused = services.requests.ask(SEND, requester="operator")
        assert paused.final_output.review is not None
        review_id, thread = paused.final_output.review.id, paused.final_output.thread_id
        for pid in set(child_processes()) - earlier:
            os.kill(pid, signal.SIGKILL)
            while pid in child_processes():
                time.sleep(0.02)

        done = services.reviews.decide(review_id, reviewer="reviewer", approve=True)

        assert done.run is not None
        assert done.run.final_output.status == "ok", done.run.final_output
        assert services.ledger.require(review_id).status == "executed"
        assert pending_interrupt(services.graph, thread) is None
    assert len(json_lines(effects)) == 1


def test_a_call_that_never_reached_its_server_ends_not_run() -> None:
    from graph.nodes.invocation import _call_outcome
    from mcp_host.errors import ErrorInfo
    from mcp_host.results import McpResult

    def failed(error: ErrorInfo) -> McpResult:
        return McpResult.failure("slow", "tool", "send_message", error)

    unsent = ErrorInfo(kind="unavailable", message="the server's process was killed (SIGKILL)", sent=False)
    lost = ErrorInfo(kind="unavailable", message="Connection closed", may_have_run=True)
    refused = ErrorInfo(kind="invalid_params", message="bad params")

    assert _call_outcome(failed(unsent)) == "not_run"
    assert _call_outcome(failed(lost)) == "outcome_unknown"
    assert _call_outcome(failed(refused)) == "failed"
