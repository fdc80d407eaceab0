"""Reading the review queue writes nothing; expiring what is overdue is a sweep's job, which
the app and `gatehouse reviews sweep` run explicitly."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from gatehouse.cli import main
from graph.runner import pending_interrupt, thread_config
from tests.reviews.review_support import (
    EMAIL_REQUEST,
    TEST_DB_URL,
    StillClock,
    email_servers,
    later_reviews,
    run_sql,
    services_for,
)

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")


def test_listing_the_queue_leaves_an_overdue_review_and_its_thread_alone_and_a_sweep_expires_them(
    data_dir: Path,
) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None
        review = services.ledger.require(paused.final_output.review.id)
        thread_id = review.thread_id
        with later_reviews(services, StillClock(datetime.fromisoformat(review.expires_at))) as later:
            listed = later.queue("pending")

            assert [r.id for r in listed] == [review.id]
            assert later.ledger.require(review.id).status == "pending"
            waiting = pending_interrupt(services.graph, thread_id)
            assert waiting is not None and waiting["review_id"] == review.id
            assert "review_expired" not in [e.kind for e in services.audit.events(thread_id=thread_id)]

            swept = later.sweep()

        assert swept["expired"] == [review.id]
        assert services.ledger.require(review.id).status == "expired"
        assert pending_interrupt(services.graph, thread_id) is None
        final = services.graph.get_state(thread_config(thread_id)).values["final_output"]
        assert final["status"] == "expired"


def test_reviews_list_shows_an_overdue_review_as_overdue_and_expires_nothing(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None
        review_id = paused.final_output.review.id
    run_sql(
        data_dir, f"UPDATE reviews SET expires_at = '2000-01-01T00:00:00.000+00:00' WHERE id = '{review_id}'"
    )
    monkeypatch.setenv("GATEHOUSE_DATA", str(data_dir))
    for variable in ("GATEHOUSE_DB", "GATEHOUSE_SERVERS", "GATEHOUSE_POLICY", "GATEHOUSE_WEBHOOK_URL"):
        monkeypatch.delenv(variable, raising=False)
    if os.environ.get(TEST_DB_URL):
        monkeypatch.setenv("GATEHOUSE_DB", os.environ[TEST_DB_URL])

    assert main(["reviews", "list", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)["reviews"]
    assert main(["reviews", "list"]) == 0
    text = capsys.readouterr().out

    assert (row["id"], row["status"], row["overdue"], row["seconds_left"]) == (review_id, "pending", True, 0)
    assert "overdue" in text
    assert "1 past the deadline: `gatehouse reviews sweep` expires them" in text
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        assert services.ledger.require(review_id).status == "pending"
        assert pending_interrupt(services.graph, services.ledger.require(review_id).thread_id) is not None
        assert "review_expired" not in [e.kind for e in services.audit.events()]
