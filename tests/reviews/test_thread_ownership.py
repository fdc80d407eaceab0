"""Only the person who started a thread continues it or answers its questions. A role allowed to
take threads over (admin in the shipped policy) may, it is recorded, and that person then counts
as a requester for four-eyes."""

from __future__ import annotations

from pathlib import Path

import pytest

from gatehouse.errors import NotAllowedError
from graph.runner import pending_interrupt
from reviews.errors import NotPermittedError
from tests.reviews.review_support import email_servers, gatehouse, outbox, services_for

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

ASK_WITHOUT_RECIPIENT = "Send an email saying hi"


def test_someone_else_cannot_answer_a_threads_question_and_nothing_is_applied(data_dir: Path) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        asked = services.requests.ask(ASK_WITHOUT_RECIPIENT, requester="operator")
        assert asked.final_output.status == "needs_clarification"
        thread = asked.final_output.thread_id
        events = len(services.audit.events(thread_id=thread))

        with pytest.raises(NotAllowedError, match="belongs to operator"):
            services.requests.ask("to=eve@evil.test", thread_id=thread, requester="reviewer")

        waiting = pending_interrupt(services.graph, thread)
        assert waiting is not None and waiting["stage"] == "clarification"
        assert len(services.audit.events(thread_id=thread)) == events
        with pytest.raises(NotAllowedError):
            services.requests.ask(
                "Send an email to eve@evil.test saying hi", thread_id=thread, requester="reviewer2"
            )
    assert outbox(data_dir) == []


def test_an_admin_may_answer_for_the_operator_but_is_recorded_and_may_not_approve_it(data_dir: Path) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        asked = services.requests.ask(ASK_WITHOUT_RECIPIENT, requester="operator")
        thread = asked.final_output.thread_id

        answered = services.requests.ask("to=eve@example.com", thread_id=thread, requester="admin")

        assert answered.final_output.status == "needs_review"
        assert answered.final_output.review is not None
        review_id = answered.final_output.review.id
        taken = [e for e in services.audit.events(thread_id=thread) if e.kind == "thread_taken_over"]
        assert [(e.actor, e.data["owner"]) for e in taken] == [("admin", "operator")]
        with pytest.raises(NotPermittedError, match="four-eyes: admin answered"):
            services.reviews.decide(review_id, reviewer="admin", approve=True)
        done = services.reviews.decide(review_id, reviewer="reviewer", approve=True)
        assert done.run is not None and done.run.final_output.status == "ok"
    assert [m["to"] for m in outbox(data_dir)] == ["eve@example.com"]


def test_the_command_line_refuses_another_users_answer_with_exit_2(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        thread = services.requests.ask(ASK_WITHOUT_RECIPIENT, requester="operator").final_output.thread_id

    refused = gatehouse(
        data_dir,
        "ask",
        "--thread",
        thread,
        "--user",
        "reviewer",
        "to=eve@evil.test",
        "--servers",
        str(servers),
    )

    assert refused.returncode == 2
    assert "belongs to operator" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
