"""The requester can take back a request while it waits: the thread ends ``cancelled``, the
review leaves the queue as ``cancelled``, the audit log says who, and nothing runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graph.runner import pending_interrupt
from reviews.errors import AlreadyDecidedError, NothingToResumeError, NotPermittedError
from tests.reviews.review_support import EMAIL_REQUEST, email_servers, gatehouse, outbox, services_for

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")


def test_a_requester_withdraws_a_pending_review_and_nothing_runs(data_dir: Path) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None
        review_id, thread = paused.final_output.review.id, paused.final_output.thread_id

        done = services.reviews.withdraw(thread, by="operator")

        assert done.final_output.status == "cancelled"
        assert "operator withdrew" in done.final_output.response
        assert pending_interrupt(services.graph, thread) is None
        review = services.ledger.require(review_id)
        assert (review.status, review.decided_by) == ("cancelled", "operator")
        assert services.ledger.queue("pending") == []
        cancelled = [e for e in services.audit.events(thread_id=thread) if e.kind == "review_cancelled"]
        assert [(e.review_id, e.actor) for e in cancelled] == [(review_id, "operator")]
        with pytest.raises(AlreadyDecidedError, match="cancelled"):
            services.reviews.decide(review_id, reviewer="reviewer", approve=True)
        with pytest.raises(NothingToResumeError):
            services.reviews.withdraw(thread, by="operator")
        assert services.audit.verify().ok
    assert outbox(data_dir) == []


def test_only_the_requester_or_a_role_that_takes_threads_over_may_withdraw(data_dir: Path) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        thread = paused.final_output.thread_id

        with pytest.raises(NotPermittedError, match="only operator may withdraw"):
            services.reviews.withdraw(thread, by="reviewer")
        assert pending_interrupt(services.graph, thread) is not None

        done = services.reviews.withdraw(thread, by="admin")
        assert done.final_output.status == "cancelled"


def test_a_decided_review_can_no_longer_be_withdrawn_and_the_operator_is_told_who_decided(
    data_dir: Path,
) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None
        review_id = paused.final_output.review.id
        services.reviews.decide(review_id, reviewer="reviewer", approve=True)

        # By thread or by review, as a withdrawal racing the decision is told (exit 3): the
        # same answer whether the decision was still running or had finished.
        for named in (paused.final_output.thread_id, review_id):
            with pytest.raises(AlreadyDecidedError, match=r"already decided by reviewer .*\(executed\)"):
                services.reviews.withdraw(named, by="operator")
    assert len(outbox(data_dir)) == 1


def test_a_question_to_the_operator_can_be_withdrawn_too(data_dir: Path) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        asked = services.requests.ask("Send an email saying hi", requester="operator")
        assert asked.final_output.status == "needs_clarification"

        done = services.reviews.withdraw(asked.final_output.thread_id, by="operator")

        assert done.final_output.status == "cancelled"
        kinds = [e.kind for e in services.audit.events(thread_id=asked.final_output.thread_id)]
        assert "request_withdrawn" in kinds


def test_the_command_line_withdraws_by_thread_or_review_id(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    asked = gatehouse(data_dir, "ask", "--json", "--servers", str(servers), EMAIL_REQUEST)
    review_id = json.loads(asked.stdout)["review"]["id"]

    withdrawn = gatehouse(data_dir, "reviews", "withdraw", review_id, "--user", "operator", "--json")

    assert withdrawn.returncode == 0, withdrawn.stderr
    assert json.loads(withdrawn.stdout)["status"] == "cancelled"
    again = gatehouse(
        data_dir,
        "reviews",
        "decide",
        review_id,
        "--approve",
        "--reviewer",
        "reviewer",
        "--servers",
        str(servers),
    )
    assert again.returncode == 3
    assert outbox(data_dir) == []
