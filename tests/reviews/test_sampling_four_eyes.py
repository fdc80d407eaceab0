"""Who a server's request for a model completion is for: the review records the request whose
call caused it (its thread, the review that let the call run) and the person who made it, and
four-eyes keeps that person (and whoever shaped the request) from deciding it alone. A request
that comes outside any person's request is refused: nobody could be kept out. Real parts: the
app's services on a SQLite file or PostgreSQL, real stdio servers
(tests/mcp_host/sampling_server.py), the pool's own call owners (mcp_host/elicitation.py)."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from gatehouse.wiring import Services
from mcp_host.elicitation import CallOwner, on_behalf_of
from mcp_host.results import McpResult
from reviews.errors import NotPermittedError
from tests.reviews.review_support import services_for
from tests.reviews.test_sampling_reviews import (
    ASKED,
    audit_kinds,
    pending_request,
    text_of,
    writers,
)

# Starts processes of its own (servers over stdio, the CLI): not in `make quick`.
pytestmark = pytest.mark.processes


def draft_for(
    calls: ThreadPoolExecutor, services: Services, owner: CallOwner | None, server: str = "writer"
) -> Future[McpResult]:
    """The server's tool called as the graph calls it, for ``owner``'s request (None: for nobody
    named, as a reviewer's preview reads), on a thread of its own (it waits)."""

    def call() -> McpResult:
        with on_behalf_of(owner):
            return services.mcp.call_tool(server, "draft_reply", {"message": ASKED})

    return calls.submit(call)


def said(result: McpResult) -> str:
    """What the call ended with: the tool's text, or the error (a 2026-07-28 server's call fails
    on the host's side when its request is refused)."""
    return text_of(result) if result.success else (result.error.message if result.error else "")


def test_a_reviewer_whose_own_request_caused_the_sampling_may_not_approve_it_alone(
    data_dir: Path, calls: ThreadPoolExecutor
) -> None:
    with services_for(data_dir, servers=writers(data_dir)) as services:
        owner = CallOwner(
            thread_id="thread-of-reviewer", requester="reviewer", review_id="thread-of-reviewer-r1"
        )
        call = draft_for(calls, services, owner)
        [review] = pending_request(services.ledger)

        # The record names the person and the request, not the server.
        assert review.requester == "reviewer"
        assert review.four_eyes
        assert review.payload["caused_by"] == [
            {
                "thread_id": "thread-of-reviewer",
                "requester": "reviewer",
                "contributors": [],
                "review_id": "thread-of-reviewer-r1",
            }
        ]
        requested = next(e for e in services.audit.events() if e.kind == "sampling_requested")
        assert requested.actor == "reviewer"
        assert requested.data["server"] == "writer"
        assert requested.data["caused_by"] == review.payload["caused_by"]

        for approve in (True, False):
            with pytest.raises(NotPermittedError, match="four-eyes: reviewer"):
                services.reviews.decide(
                    review.id, reviewer="reviewer", approve=approve, answer="Yes.", reason="no"
                )
        assert services.ledger.require(review.id).status == "pending"

        services.reviews.decide(review.id, reviewer="reviewer2", approve=True, answer="Monday works.")
        assert text_of(call.result(timeout=30)) == "draft by gatehouse-reviewer: Monday works."


def test_someone_who_shaped_the_request_may_not_approve_its_sampling_either(
    data_dir: Path, calls: ThreadPoolExecutor
) -> None:
    with services_for(data_dir, servers=writers(data_dir)) as services:
        # admin took the operator's thread over and answered its question: they shaped the call.
        owner = CallOwner(thread_id="t-operator", requester="operator", contributors=("admin",))
        call = draft_for(calls, services, owner)
        [review] = pending_request(services.ledger)

        with pytest.raises(NotPermittedError, match="four-eyes: admin"):
            services.reviews.decide(review.id, reviewer="admin", approve=True, answer="Yes.")
        services.reviews.decide(review.id, reviewer="reviewer", approve=False, reason="not needed")
        assert "a reviewer declined it" in said(call.result(timeout=30))


def test_when_several_requests_may_have_caused_it_none_of_their_people_decides_it(
    data_dir: Path, calls: ThreadPoolExecutor
) -> None:
    # A handshake-era server's request names no call: it may belong to any call in flight.
    with services_for(data_dir, servers=writers(data_dir)) as services:
        first = draft_for(calls, services, CallOwner(thread_id="t1", requester="reviewer"), "legacy")
        [waiting] = pending_request(services.ledger)
        second = draft_for(calls, services, CallOwner(thread_id="t2", requester="reviewer2"), "legacy")
        [later] = [r for r in pending_request(services.ledger, 2) if r.id != waiting.id]

        assert {cause["requester"] for cause in later.payload["caused_by"]} == {"reviewer", "reviewer2"}
        for person in ("reviewer", "reviewer2"):
            with pytest.raises(NotPermittedError, match=f"four-eyes: {person}"):
                services.reviews.decide(later.id, reviewer=person, approve=True, answer="Yes.")
        services.reviews.decide(later.id, reviewer="admin", approve=True, answer="Second.")
        services.reviews.decide(waiting.id, reviewer="reviewer2", approve=True, answer="First.")
        assert text_of(first.result(timeout=30)) == "draft by gatehouse-reviewer: First."
        assert text_of(second.result(timeout=30)) == "draft by gatehouse-reviewer: Second."


@pytest.mark.parametrize("server", ["writer", "legacy"])
def test_a_request_from_a_call_made_for_nobody_is_refused_without_a_review(
    data_dir: Path, calls: ThreadPoolExecutor, server: str
) -> None:
    with services_for(data_dir, servers=writers(data_dir)) as services:
        # A reviewer's preview reads through a server for nobody named: whoever looks at the
        # page could otherwise approve what their own look caused.
        result = draft_for(calls, services, None, server).result(timeout=30)

        why = "Gatehouse refused this request for a model completion: it came outside any person's request"
        assert why in said(result)
        assert services.ledger.queue() == []
        assert "sampling_refused" in audit_kinds(services)
