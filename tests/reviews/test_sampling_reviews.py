"""A server asking for a model completion during a call: every request is a review in the
ledger, and the server's call waits for it. An approval answers with the reviewer's text or the
configured model's completion; a rejection, an expired wait or a request over the server's rate
limit is an error for the server. Real parts: the app's services (open_services) on a SQLite
file or PostgreSQL, real stdio servers (tests/mcp_host/sampling_server.py), and for the model
the real langchain-openai provider against a scripted endpoint on 127.0.0.1."""

from __future__ import annotations

import json
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import anyio
import pytest
from mcp import StdioServerParameters

from gatehouse.wiring import Services, open_services
from mcp_host.client import McpClient
from mcp_host.elicitation import CallOwner, on_behalf_of
from mcp_host.results import McpResult
from mcp_host.sdk_client import SdkMcpClient
from policies.engine import PolicyEngine
from policies.loader import parse_policy
from reviews.audit import AuditLog
from reviews.errors import DecisionNotAllowedError, NotPermittedError
from reviews.ledger import Review, ReviewLedger
from reviews.sampling import SamplingReviews
from storage import open_database
from tests.graph.test_model_provider import Endpoint, endpoint, openai_extra  # noqa: F401 (fixtures)
from tests.mcp_host.test_sampling import writer as stdio_writer
from tests.reviews.review_support import (
    REPO,
    StillClock,
    gatehouse_process,
    later_reviews,
    policy_file,
    services_for,
    settings_for,
)

# Starts processes of its own (servers over stdio, the CLI): not in `make quick`.
pytestmark = pytest.mark.processes

ASKED = "Lunch on Monday?"
# The request whose call the server's request for a completion comes from, as the graph names it.
OPERATORS_REQUEST = CallOwner(thread_id="operators-thread", requester="operator")


def legacy_writer() -> StdioServerParameters:
    return stdio_writer(legacy=True)


def writers(data: Path) -> Path:
    """A servers file with the sampling server twice: as a 2026-07-28 server (``writer``) and
    serving only the handshake era (``legacy``), where a refusal reaches the server itself."""
    entry = {"command": sys.executable, "args": ["-m", "tests.mcp_host.sampling_server"], "cwd": str(REPO)}
    legacy = entry | {"args": [*entry["args"], "--legacy"]}
    path = data / "writers.json"
    path.write_text(json.dumps({"mcpServers": {"writer": entry, "legacy": legacy}}), encoding="utf-8")
    return path


def draft(calls: ThreadPoolExecutor, services: Services, server: str = "writer") -> Future[McpResult]:
    """The server's tool called as the graph calls it, for the operator's request, on a thread
    of its own (it waits)."""
    return calls.submit(operators_call, services.mcp, server)


def operators_call(pool: McpClient, server: str, message: str = ASKED) -> McpResult:
    with on_behalf_of(OPERATORS_REQUEST):
        return pool.call_tool(server, "draft_reply", {"message": message})


def text_of(result: McpResult) -> str:
    return " ".join(item.text or "" for item in result.content)


def pending_request(ledger: ReviewLedger, count: int = 1) -> list[Review]:
    """The pending sampling reviews once ``count`` are there (a call opens its review on its way)."""
    with anyio.from_thread.start_blocking_portal() as portal:
        return portal.call(_pending, ledger, count)


async def _pending(ledger: ReviewLedger, count: int) -> list[Review]:
    with anyio.fail_after(30):
        while True:
            found = [r for r in ledger.queue("pending") if r.stage == "sampling"]
            if len(found) >= count:
                return found
            await anyio.sleep(0.05)


def audit_kinds(services: Services) -> list[str]:
    return [event.kind for event in services.audit.events()]


def test_the_request_waits_as_a_review_and_the_reviewers_text_is_what_the_servers_tool_gets(
    data_dir: Path, calls: ThreadPoolExecutor
) -> None:
    with services_for(data_dir, servers=writers(data_dir)) as services:
        call = draft(calls, services)
        [review] = pending_request(services.ledger)

        # The reviewer's view: the server, the messages and the limits; nothing answered yet.
        assert review.requester == "operator"
        assert review.payload["caused_by"] == [
            {"thread_id": "operators-thread", "requester": "operator", "contributors": [], "review_id": None}
        ]
        assert review.capability_key == "writer__sampling" and review.category == "sampling"
        assert review.arguments["messages"] == [
            {"role": "user", "content": {"type": "text", "text": f"Draft a reply to: {ASKED}"}}
        ]
        assert review.arguments["systemPrompt"] == "You write short, polite replies."
        assert review.arguments["maxTokens"] == 120
        assert review.arguments["modelPreferences"]["hints"] == [{"name": "claude-haiku"}]
        assert "sampling" in [flag["code"] for flag in review.flags]
        assert not call.done()

        decided = services.reviews.decide(
            review.id, reviewer="reviewer", approve=True, answer="Monday works, see you then."
        )
        result = call.result(timeout=30)

        assert decided.review.status == "approved"
        assert result.success, result.error
        assert text_of(result) == "draft by gatehouse-reviewer: Monday works, see you then."
        assert services.ledger.require(review.id).status == "executed"
        kinds = audit_kinds(services)
        assert {"sampling_requested", "decision", "sampling_answered"} <= set(kinds)
        # The audit log keeps who and what happened, not the conversation itself.
        logged = json.dumps([event.data for event in services.audit.events()])
        assert ASKED not in logged and "Monday works" not in logged


@pytest.mark.usefixtures("openai_extra")
def test_an_approval_without_text_is_answered_by_the_configured_model(
    data_dir: Path, calls: ThreadPoolExecutor, request: pytest.FixtureRequest
) -> None:
    scripted: Endpoint = request.getfixturevalue("endpoint")  # tests/graph/test_model_provider.py
    scripted.replies.append({"content": "Monday suits me. Noon?"})
    settings = replace(settings_for(data_dir, servers=writers(data_dir)), model="openai:gpt-4.1-mini")
    with open_services(settings) as services:
        call = draft(calls, services)
        [review] = pending_request(services.ledger)

        services.reviews.decide(review.id, reviewer="reviewer", approve=True)
        result = call.result(timeout=30)

    assert text_of(result) == "draft by gpt-4.1-mini: Monday suits me. Noon?"
    [asked] = scripted.requests
    assert asked["messages"] == [
        {"role": "system", "content": "You write short, polite replies."},
        {"role": "user", "content": f"Draft a reply to: {ASKED}"},
    ]
    assert asked.get("max_tokens", asked.get("max_completion_tokens")) == 120


def test_without_a_model_an_approval_needs_the_reviewers_text_and_leaves_the_request_pending(
    data_dir: Path, calls: ThreadPoolExecutor
) -> None:
    with services_for(data_dir, servers=writers(data_dir)) as services:
        call = draft(calls, services)
        [review] = pending_request(services.ledger)

        with pytest.raises(DecisionNotAllowedError, match="no language model is configured"):
            services.reviews.decide(review.id, reviewer="reviewer", approve=True)
        with pytest.raises(NotPermittedError):
            services.reviews.decide(review.id, reviewer="operator", approve=True, answer="Sure.")
        with pytest.raises(DecisionNotAllowedError, match="no arguments to edit"):
            services.reviews.decide(review.id, reviewer="reviewer", approve=True, arguments={"x": 1})
        assert services.ledger.require(review.id).status == "pending"

        services.reviews.decide(review.id, reviewer="reviewer", approve=False, reason="not ours to answer")
        error = call.result(timeout=30).error
        assert error is not None and "a reviewer declined it" in error.message


def test_a_rejection_reaches_the_server_as_an_error(data_dir: Path, calls: ThreadPoolExecutor) -> None:
    with services_for(data_dir, servers=writers(data_dir)) as services:
        legacy = draft(calls, services, "legacy")
        modern = draft(calls, services, "writer")
        reviews = pending_request(services.ledger, 2)

        for review in reviews:
            services.reviews.decide(
                review.id, reviewer="reviewer", approve=False, reason="it asks for too much"
            )
        legacy_result, modern_result = legacy.result(timeout=30), modern.result(timeout=30)
        assert {services.ledger.require(review.id).status for review in reviews} == {"rejected"}

    refusal = "Gatehouse refused this request for a model completion: a reviewer declined it"
    # A handshake-era server receives the error and says so in its own result.
    assert text_of(legacy_result) == f"the host refused: {refusal}"
    # A 2026-07-28 server is never called again: its call fails, saying why.
    assert not modern_result.success
    assert modern_result.error is not None and refusal in modern_result.error.message


def test_a_server_over_its_rate_limit_is_refused_at_once_without_a_review(
    data_dir: Path, calls: ThreadPoolExecutor
) -> None:
    policy = policy_file(data_dir, "policy.toml", ("requests_per_minute = 5 ", "requests_per_minute = 1 "))
    with services_for(data_dir, servers=writers(data_dir), policy=policy) as services:
        first = draft(calls, services, "legacy")
        [review] = pending_request(services.ledger)

        # Refused at once: no review to wait for.
        second = draft(calls, services, "legacy").result(timeout=30)

        assert text_of(second) == (
            "the host refused: Gatehouse refused this request for a model completion: "
            "this server may ask for at most 1 a minute"
        )
        assert [r.id for r in services.ledger.queue()] == [review.id]
        refused = [event for event in services.audit.events() if event.kind == "sampling_refused"]
        assert [event.data for event in refused] == [
            {"server": "legacy", "why": "this server may ask for at most 1 a minute", "limit_per_minute": 1}
        ]
        # Another server has a limit of its own.
        other = draft(calls, services, "writer")
        pending_request(services.ledger, 2)
        for waiting in services.ledger.queue("pending"):
            services.reviews.decide(waiting.id, reviewer="reviewer", approve=True, answer="Fine.")
        assert text_of(first.result(timeout=30)) == "draft by gatehouse-reviewer: Fine."
        assert text_of(other.result(timeout=30)) == "draft by gatehouse-reviewer: Fine."


def test_a_request_nobody_decides_in_time_expires_and_the_server_gets_an_error(
    backend: str | Path, calls: ThreadPoolExecutor
) -> None:
    clock = StillClock()
    # One open database for both stores, as the app wires them: their writes share transactions.
    database = open_database(backend)
    ledger = ReviewLedger(database, clock=clock)
    audit = AuditLog(database, clock=clock)
    policy = PolicyEngine(parse_policy({"sampling": {"wait_minutes": 2}}, source="policy.toml"))
    handler = SamplingReviews(ledger, audit, policy, poll_seconds=0.05)
    try:
        with SdkMcpClient(
            {"writer": legacy_writer()}, connect_timeout=20, call_timeout=5, sampling=handler
        ) as pool:
            call = calls.submit(operators_call, pool, "writer")
            [review] = pending_request(ledger)
            clock.advance(119)
            assert not call.done()

            clock.advance(1)
            result = call.result(timeout=30)

        assert text_of(result) == (
            "the host refused: Gatehouse refused this request for a model completion: "
            "no reviewer decided it within 2 minutes"
        )
        assert ledger.require(review.id).status == "expired"
        assert "review_expired" in [event.kind for event in audit.events()]
    finally:
        ledger.close()
        audit.close()


def test_a_request_the_sweep_expires_ends_the_servers_wait_with_an_error(
    data_dir: Path, calls: ThreadPoolExecutor
) -> None:
    with services_for(data_dir, servers=writers(data_dir)) as services:
        call = draft(calls, services, "legacy")
        [review] = pending_request(services.ledger)

        # Any process's sweep (the Reviews page, `gatehouse reviews sweep`) past the deadline.
        past = StillClock(datetime.fromisoformat(review.expires_at) + timedelta(seconds=1))
        with later_reviews(services, past) as reviews:
            assert reviews.sweep()["expired"] == [review.id]
        result = call.result(timeout=30)

    assert text_of(result) == (
        "the host refused: Gatehouse refused this request for a model completion: "
        "no reviewer decided it within 10 minutes"
    )


def test_a_request_whose_call_ends_leaves_the_queue(backend: str | Path, calls: ThreadPoolExecutor) -> None:
    database = open_database(backend)
    ledger, audit = ReviewLedger(database), AuditLog(database)
    handler = SamplingReviews(ledger, audit, PolicyEngine(parse_policy({}, source="policy.toml")))
    try:
        pool = SdkMcpClient({"writer": legacy_writer()}, connect_timeout=20, sampling=handler)
        call = calls.submit(operators_call, pool, "writer")
        [review] = pending_request(ledger)

        pool.close()  # the process stops while the request waits
        call.result(timeout=30)

        cancelled = ledger.require(review.id)
        assert cancelled.status == "cancelled"
        assert cancelled.reason == "the server's call ended before anyone decided"
    finally:
        ledger.close()
        audit.close()


def test_the_command_line_lists_the_request_and_its_decision_in_another_process_answers_it(
    data_dir: Path, calls: ThreadPoolExecutor
) -> None:
    with services_for(data_dir, servers=writers(data_dir)) as services:
        call = draft(calls, services)
        [review] = pending_request(services.ledger)

        listed = gatehouse_process(data_dir, "reviews", "list", "--status", "pending")
        decided = gatehouse_process(
            data_dir,
            "reviews",
            "decide",
            review.id,
            "--approve",
            "--reviewer",
            "reviewer",
            "--answer",
            "Yes, noon.",
        )
        result = call.result(timeout=30)

    assert listed.returncode == 0, listed.stderr
    assert review.id in listed.stdout and "writer/sampling/createMessage" in listed.stdout
    assert decided.returncode == 0, decided.stderr
    assert decided.stdout.strip() == f"review {review.id}: approved; writer gets the answer"
    assert text_of(result) == "draft by gatehouse-reviewer: Yes, noon."
