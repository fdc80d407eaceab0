"""`gatehouse reviews list` and `gatehouse trace` read what the ledger and the checkpoints hold."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from policies.secrets import REDACTED
from tests.graph.routes import TO_REVIEW
from tests.reviews.review_support import (
    EMAIL_REQUEST,
    email_servers,
    finish,
    gatehouse,
    postgres,
    run_sql,
    services_for,
    start_gatehouse,
)

# Starts processes of its own (servers over stdio, the CLI): not in `make quick`.
pytestmark = pytest.mark.processes


def test_reviews_list_shows_ledger_rows_oldest_first_with_their_expiry(data_dir: Path) -> None:
    # Thread ids that sort the other way round from the order the reviews were opened in.
    threads = ["t-zulu", "t-mike", "t-alpha"]
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        for thread in threads:
            services.requests.ask(EMAIL_REQUEST, thread_id=thread)
        services.reviews.decide("t-mike-r1", reviewer="reviewer", approve=False, reason="not now")
        rows = {r.id: r for r in services.ledger.queue()}
    # The queue is the ledger's rows, not a scan of the checkpoints: without any checkpoint left
    # it is the same.
    run_sql(
        data_dir,
        "DELETE FROM checkpoints",
        "DELETE FROM " + ("checkpoint_writes" if postgres() else "writes"),
    )

    everything = start_gatehouse(data_dir, "reviews", "list", "--json")
    pending = start_gatehouse(data_dir, "reviews", "list", "--status", "pending", "--json")
    listed = {name: finish(process) for name, process in (("all", everything), ("pending", pending))}
    for name, (code, _, err) in listed.items():
        assert code == 0, (name, err)

    reviews = json.loads(listed["all"][1])["reviews"]
    assert [r["id"] for r in reviews] == ["t-zulu-r1", "t-mike-r1", "t-alpha-r1"]
    assert [r["status"] for r in reviews] == ["pending", "rejected", "pending"]
    for row in reviews:
        stored = rows[row["id"]]
        assert (row["created_at"], row["expires_at"]) == (stored.created_at, stored.expires_at)
        lasts = datetime.fromisoformat(row["expires_at"]) - datetime.fromisoformat(row["created_at"])
        assert lasts == timedelta(minutes=30)
        assert (row["server"], row["capability"], row["category"]) == (
            "email",
            "send_email",
            "sends messages",
        )
    assert [r["seconds_left"] is not None and 0 < r["seconds_left"] <= 1800 for r in reviews] == [
        True,
        False,
        True,
    ]
    assert reviews[1]["decided_by"] == "reviewer"
    assert [r["id"] for r in json.loads(listed["pending"][1])["reviews"]] == ["t-zulu-r1", "t-alpha-r1"]


def test_trace_lists_the_threads_steps_in_order_with_the_reviewers_decision(data_dir: Path) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        paused = services.requests.ask(EMAIL_REQUEST)
        assert paused.final_output.review is not None
        thread_id = paused.final_output.thread_id
        services.reviews.decide(paused.final_output.review.id, reviewer="reviewer", approve=True)

    code, out, err = finish(start_gatehouse(data_dir, "trace", thread_id, "--json"))

    assert code == 0, err
    report = json.loads(out)
    assert report["thread_id"] == thread_id
    steps = report["steps"]
    after_approval = [
        "build_mcp_request",
        "invoke_mcp_capability",
        "integrate_result",
        "generate_final_response",
    ]
    ran = [s for s in steps if s["node"] is not None]
    assert [s["node"] for s in ran] == [*TO_REVIEW, *after_approval]
    # The wait for the reviewer is a step of its own, right before the decision it ended with.
    [wait] = [s for s in steps if s["node"] is None]
    assert steps[steps.index(wait) + 1]["node"] == "mark_needs_review"
    assert (wait["waiting"], wait["decided_by"]) == ("before_execution", "reviewer")
    assert wait["duration_s"] >= 0
    assert {s["request"] for s in steps} == {1}
    offsets = [s["offset_s"] for s in steps]
    assert offsets == sorted(offsets) and offsets[0] >= 0
    decided = [s for s in steps if s.get("decision")]
    assert [s["node"] for s in decided] == ["mark_needs_review"]
    assert decided[0]["decision"]["action"] == "approve"
    assert decided[0]["decision"]["by"] == "reviewer"
    assert "final_output" in steps[-1]["changed"]
    assert steps[-1]["values"]["final_output"]["status"] == "ok"
    numbers = [s["step"] for s in ran]
    assert numbers == sorted(numbers)


def test_a_trace_shows_each_request_of_a_thread_as_its_own_route_with_times(data_dir: Path) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        first = services.requests.ask(EMAIL_REQUEST)
        thread_id = first.final_output.thread_id
        assert first.final_output.review is not None
        services.reviews.decide(first.final_output.review.id, reviewer="reviewer", approve=True)
        services.requests.ask("Send an email to bob@example.com saying again", thread_id=thread_id)

    code, out, err = finish(start_gatehouse(data_dir, "trace", thread_id))

    assert code == 0, err
    assert "Request 1" in out and "Request 2" in out
    assert "for a person (before execution)" in out and "Approved by reviewer" in out
    assert re.search(r"^ +1\. Read the request +\+\d+\.\d\d s +\d+ ms", out, flags=re.MULTILINE)
    first_request = out[out.index("Request 1") : out.index("Request 2")]
    assert first_request.count("Read the request") == 1


def test_the_text_queue_shows_each_reviews_arguments_with_secrets_hidden(data_dir: Path) -> None:
    token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        services.requests.ask(EMAIL_REQUEST, thread_id="t-plain")
        services.requests.ask(
            f"Send an email to bob@example.com saying the token is {token}", thread_id="t-token"
        )

    listed = gatehouse(data_dir, "reviews", "list")

    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()}
    # What the reviewer decides on, in the row (docs/cli.md): as --json has it, compact.
    assert 'email/send_email  args: {"to": "bob@example.com"' in rows["t-plain-r1"]
    assert token not in listed.stdout
    assert "args: {" in rows["t-token-r1"] and REDACTED in rows["t-token-r1"]
