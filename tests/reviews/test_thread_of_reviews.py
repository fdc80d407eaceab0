"""A thread carries many requests, and every reviewed one gets a review of its own that can be
decided, from the service and from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graph.runner import pending_interrupt
from tests.reviews.review_support import email_servers, gatehouse, outbox, services_for

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")


def test_three_reviewed_requests_in_one_thread_each_get_their_own_decidable_review(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        first = services.requests.ask("Send an email to bob@example.com saying one", requester="operator")
        thread = first.final_output.thread_id
        assert first.final_output.review is not None
        services.reviews.decide(first.final_output.review.id, reviewer="reviewer", approve=True)

        second = services.requests.ask("Send an email to bob@example.com saying two", thread_id=thread)
        assert second.final_output.status == "needs_review"
        assert second.final_output.review is not None
        assert second.final_output.review.id != first.final_output.review.id
        rejected = services.reviews.decide(
            second.final_output.review.id, reviewer="reviewer", approve=False, reason="not today"
        )
        assert rejected.run is not None and rejected.run.final_output.status == "rejected"

        third = services.requests.ask("Send an email to bob@example.com saying three", thread_id=thread)
        assert third.final_output.review is not None
        ids = {r.final_output.review.id for r in (first, second, third) if r.final_output.review}
        assert len(ids) == 3
        done = services.reviews.decide(third.final_output.review.id, reviewer="reviewer", approve=True)
        assert done.run is not None and done.run.final_output.status == "ok"
        assert pending_interrupt(services.graph, thread) is None

        statuses = [services.ledger.require(review_id).status for review_id in sorted(ids)]
        assert sorted(statuses) == ["executed", "executed", "rejected"]
        assert [r.thread_id for r in services.ledger.queue()] == [thread] * 3
    assert [m["body"] for m in outbox(data_dir)] == ["one", "three"]


def test_the_command_line_decides_a_second_review_in_the_same_thread(data_dir: Path) -> None:
    servers = email_servers(data_dir)

    def run(*args: str) -> dict[str, object]:
        done = gatehouse(data_dir, *args, "--servers", str(servers), "--json")
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    first = run("ask", "Send an email to bob@example.com saying one")
    review_one = first["review"]["id"]  # type: ignore[index]
    run("reviews", "decide", review_one, "--approve", "--reviewer", "reviewer")

    second = run("ask", "--thread", str(first["thread_id"]), "Send an email to bob@example.com saying two")
    assert second["status"] == "needs_review"
    review_two = second["review"]["id"]  # type: ignore[index]
    assert review_two != review_one
    decided = run("reviews", "decide", review_two, "--approve", "--reviewer", "reviewer")
    assert decided["review"]["status"] == "executed"  # type: ignore[index]
    assert [m["body"] for m in outbox(data_dir)] == ["one", "two"]
