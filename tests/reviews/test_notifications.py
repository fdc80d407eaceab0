"""Review notifications: a webhook on review opened, decided and expired, posted from a durable
outbox by a background sender, against a real HTTP receiver on 127.0.0.1."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import pytest

from gatehouse.notifications.webhook import WebhookSender
from gatehouse.notifications.webhook_message import webhook_body
from gatehouse.wiring import Services, open_services
from reviews.ledger import ReviewLedger
from reviews.notifications import Outbox, RetryPolicy
from tests.reviews.review_support import (
    EMAIL_REQUEST,
    StillClock,
    email_review,
    email_servers,
    gatehouse,
    gatehouse_process,
    run_sql,
    settings_for,
)
from tests.reviews.webhook_receiver import webhook_receiver

PUBLIC_URL = "https://gatehouse.example.com/"
TOKEN = "T0KEN-s3cr3t-path"


@contextmanager
def notifying_services(data: Path, url: str, *, send: bool = True) -> Iterator[Services]:
    settings = dataclasses.replace(
        settings_for(data, servers=email_servers(data)), webhook_url=url, public_url=PUBLIC_URL
    )
    with open_services(settings, send_notifications=send) as services:
        yield services


def _open_review(backend: str | Path, clock: StillClock) -> str:
    ledger = ReviewLedger(backend, clock=clock)
    try:
        review, _ = ledger.open_review(
            email_review(
                "t1-r1",
                "t1",
                {"to": "bob@example.com"},
                flags=[{"code": "sends_messages", "severity": "high", "message": "sends"}],
                terms=None,
            )
        )
    finally:
        ledger.close()
    return review.id


@pytest.mark.usefixtures("bundled_in_process")
def test_opened_decided_and_expired_reach_the_webhook_once_each_with_their_fields(data_dir: Path) -> None:
    with webhook_receiver() as receiver, notifying_services(data_dir, receiver.url) as services:
        approved = services.requests.ask(EMAIL_REQUEST).final_output.review
        rejected = services.requests.ask("Send an email to bob@example.com saying no").final_output.review
        expiring = services.requests.ask("Send an email to bob@example.com saying later").final_output.review
        assert approved and rejected and expiring
        services.reviews.decide(approved.id, reviewer="reviewer", approve=True)
        services.reviews.decide(rejected.id, reviewer="reviewer", approve=False, reason="not today")
        run_sql(
            data_dir,
            f"UPDATE reviews SET expires_at = '2000-01-01T00:00:00.000+00:00' WHERE id = '{expiring.id}'",
        )
        services.reviews.sweep()

        posts = receiver.wait_for(6)
        assert services.webhook is not None
        services.webhook.stop()
        assert services.webhook.deliver_due().delivered == 0
        assert len(receiver.received) == 6, "every event arrives once"

    by_key = {post.headers["Idempotency-Key"]: post.body for post in posts}
    opened_keys = [f"{review.id}:review_opened" for review in (approved, rejected, expiring)]
    settled_keys = [
        f"{approved.id}:review_decided",
        f"{rejected.id}:review_decided",
        f"{expiring.id}:review_expired",
    ]
    assert sorted(by_key) == sorted(opened_keys + settled_keys)
    opened = by_key[f"{approved.id}:review_opened"]
    assert {
        k: opened[k] for k in ("event", "review_id", "capability", "requester", "decided_by", "status")
    } == {
        "event": "review_opened",
        "review_id": approved.id,
        "capability": "email__send_email",
        "requester": "operator",
        "decided_by": None,
        "status": "pending",
    }
    assert opened["thread_id"] == approved.id.rsplit("-r", 1)[0]
    assert datetime.fromisoformat(opened["at"]).tzinfo is not None
    link = f"{PUBLIC_URL}reviews?review={approved.id}"
    assert opened["url"] == link
    assert opened["text"] == (
        f"operator asked for email__send_email: review {approved.id} waits for a reviewer."
        f" Flags: {', '.join(opened['flags'])}. {link}"
    )
    assert "sends_messages" in opened["flags"]

    decided = by_key[f"{approved.id}:review_decided"]
    assert (decided["status"], decided["decided_by"]) == ("approved", "reviewer")
    assert decided["text"].startswith(
        f"reviewer approved operator's request for email__send_email (review {approved.id})."
    )
    refused = by_key[f"{rejected.id}:review_decided"]
    assert (refused["status"], refused["decided_by"]) == ("rejected", "reviewer")
    assert refused["text"].startswith("reviewer rejected operator's request")
    expired = by_key[f"{expiring.id}:review_expired"]
    assert (expired["event"], expired["status"], expired["decided_by"]) == ("review_expired", "expired", None)
    assert "expired before anyone decided it" in expired["text"]


def test_a_receiver_answering_500_gets_the_notification_again_after_a_pause_that_doubles(
    backend: str | Path,
) -> None:
    clock = StillClock()
    review_id = _open_review(backend, clock)
    outbox = Outbox(backend, clock=clock, retry=RetryPolicy(first_delay=5, max_attempts=5))
    ledger = ReviewLedger(backend)
    try:
        outbox.review_event("review_opened", ledger.require(review_id))
        with webhook_receiver(500, 500, 200) as receiver:
            sender = WebhookSender(outbox, receiver.url)
            assert sender.deliver_due().retrying == 1
            clock.advance(4.9)
            sender.deliver_due()
            assert len(receiver.received) == 1, "not again before the pause is over"
            clock.advance(0.1)
            assert sender.deliver_due().retrying == 1
            clock.advance(9.9)
            sender.deliver_due()
            assert len(receiver.received) == 2, "the second pause is twice the first"
            clock.advance(0.1)
            assert sender.deliver_due().delivered == 1
            keys = {post.headers["Idempotency-Key"] for post in receiver.received}
        assert keys == {f"{review_id}:review_opened"}
        row = outbox.get(f"{review_id}:review_opened")
        assert row is not None and (row.status, row.attempts) == ("delivered", 3)
        assert outbox.counts() == {"pending": 0, "delivered": 1, "failed": 0}
    finally:
        outbox.close()
        ledger.close()


@pytest.mark.parametrize(("answers", "attempts"), [((503, 503, 503), 3), ((404,), 1)])
def test_a_receiver_that_keeps_failing_is_given_up_after_the_last_attempt_with_its_error_kept(
    backend: str | Path, answers: tuple[int, ...], attempts: int
) -> None:
    clock = StillClock()
    review_id = _open_review(backend, clock)
    outbox = Outbox(backend, clock=clock, retry=RetryPolicy(first_delay=1, max_attempts=3))
    ledger = ReviewLedger(backend)
    try:
        outbox.review_event("review_opened", ledger.require(review_id))
        with webhook_receiver(*answers, 200) as receiver:
            sender = WebhookSender(outbox, receiver.url)
            for _ in range(5):
                sender.deliver_due()
                clock.advance(60)
            assert len(receiver.received) == attempts
        failed = outbox.recent(status="failed")
        assert [(n.attempts, n.last_error) for n in failed] == [
            (attempts, f"HTTP {answers[0]}: receiver says no")
        ]
        assert outbox.due() == []
    finally:
        outbox.close()
        ledger.close()


@pytest.mark.usefixtures("bundled_in_process")
def test_a_receiver_that_hangs_does_not_slow_ask_and_the_notification_is_retried(data_dir: Path) -> None:
    timeout = 1.5
    with (
        webhook_receiver("hang", hang_seconds=30) as receiver,
        notifying_services(data_dir, receiver.url, send=False) as services,
    ):
        assert services.outbox is not None
        services.outbox.retry = RetryPolicy(first_delay=0.01)
        sender = WebhookSender(services.outbox, receiver.url, timeout=timeout)
        services.mcp.discover()  # the server is up: what is timed is the request alone
        sender.start()
        try:
            started = time.monotonic()
            outcome = services.requests.ask(EMAIL_REQUEST)
            took = time.monotonic() - started
            assert outcome.final_output.status == "needs_review"
            assert took < timeout, f"ask took {took:.2f} s: it waited for the receiver"
            assert receiver.hanging.wait(20), "the notification was posted meanwhile"
            first, second = receiver.wait_for(2)
        finally:
            sender.stop(grace=10)
        assert first.headers["Idempotency-Key"] == second.headers["Idempotency-Key"]
        assert outcome.final_output.review is not None
        row = services.outbox.get(f"{outcome.final_output.review.id}:review_opened")
        assert row is not None and (row.status, row.attempts) == ("delivered", 2)


@pytest.mark.processes
def test_notifications_not_yet_sent_are_delivered_by_the_next_process(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with webhook_receiver() as receiver:
        with notifying_services(data_dir, receiver.url, send=False) as services:
            review = services.requests.ask(EMAIL_REQUEST).final_output.review
            assert review is not None
        assert receiver.received == []

        monkeypatch.setenv("GATEHOUSE_WEBHOOK_URL", receiver.url)
        done = gatehouse_process(data_dir, "reviews", "sweep", "--servers", str(email_servers(data_dir)))
        assert done.returncode == 0, done.stderr
        assert "notifications delivered: 1" in done.stdout
        (post,) = receiver.wait_for(1)
        assert post.headers["Idempotency-Key"] == f"{review.id}:review_opened"
        assert TOKEN not in done.stdout + done.stderr


@pytest.mark.usefixtures("bundled_in_process")
def test_the_webhook_token_is_never_printed(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with webhook_receiver(500, 500) as receiver:
        with notifying_services(data_dir, receiver.url, send=False):
            pass
        run_sql(
            data_dir,
            "INSERT INTO notification_outbox (id, event, review_id, body, status, attempts, created_at,"
            " next_attempt_at) VALUES ('x-r1:review_opened', 'review_opened', 'x-r1', '{}', 'pending', 0,"
            " '2000-01-01T00:00:00.000+00:00', '2000-01-01T00:00:00.000+00:00')",
        )
        monkeypatch.setenv("GATEHOUSE_WEBHOOK_URL", receiver.url)
        failing = gatehouse(data_dir, "reviews", "sweep", "--servers", str(email_servers(data_dir)))
        assert failing.returncode == 0, failing.stderr
        assert "HTTP 500" in failing.stderr and "/***" in failing.stderr
        assert TOKEN not in failing.stdout + failing.stderr

    monkeypatch.setenv("GATEHOUSE_WEBHOOK_URL", f"ftp://hooks.example.com/{TOKEN}")
    refused = gatehouse(data_dir, "reviews", "list")
    assert refused.returncode == 2
    assert refused.stderr.startswith("gatehouse: GATEHOUSE_WEBHOOK_URL: expected an http:// or https:// URL")
    assert TOKEN not in refused.stdout + refused.stderr


def test_a_withdrawn_request_is_reported_as_cancelled_by_whoever_withdrew_it(backend: str | Path) -> None:
    clock = StillClock()
    review_id = _open_review(backend, clock)
    outbox = Outbox(backend, clock=clock)
    ledger = ReviewLedger(backend)
    try:
        outbox.review_event(
            "review_cancelled", ledger.require(review_id), by="operator", at="2026-11-01T12:05:00.000+00:00"
        )
        (row,) = outbox.due()
    finally:
        outbox.close()
        ledger.close()
    assert row.id == f"{review_id}:review_cancelled"
    fields = {k: row.body[k] for k in ("event", "status", "decided_by", "requester", "at")}
    assert fields == {
        "event": "review_cancelled",
        "status": "cancelled",
        "decided_by": "operator",
        "requester": "operator",
        "at": "2026-11-01T12:05:00.000+00:00",
    }
    assert webhook_body(row.body, None)["text"].startswith(
        f"operator withdrew their request for email__send_email (review {review_id})."
    )


def test_an_attempt_is_claimed_by_one_sender_and_is_due_again_if_that_sender_dies(
    backend: str | Path,
) -> None:
    clock = StillClock()
    review_id = _open_review(backend, clock)
    first = Outbox(backend, clock=clock, retry=RetryPolicy(lease=60))
    second = Outbox(backend, clock=clock, retry=RetryPolicy(lease=60))
    ledger = ReviewLedger(backend)
    try:
        first.review_event("review_opened", ledger.require(review_id))
        first.review_event("review_opened", ledger.require(review_id))
        (seen_by_first,) = first.due()
        (seen_by_second,) = second.due()

        assert first.claim(seen_by_first)
        assert not second.claim(seen_by_second), "one attempt, one sender"
        clock.advance(59)
        assert second.due() == [], "the claiming sender is still within its lease"
        clock.advance(1)
        (again,) = second.due()
        assert (again.attempts, second.claim(again)) == (1, True)
    finally:
        first.close()
        second.close()
        ledger.close()


@pytest.mark.usefixtures("bundled_in_process")
def test_withdrawing_a_request_reaches_the_webhook_as_cancelled(data_dir: Path) -> None:
    with webhook_receiver() as receiver, notifying_services(data_dir, receiver.url) as services:
        paused = services.requests.ask(EMAIL_REQUEST).final_output
        assert paused.review is not None
        services.reviews.withdraw(paused.thread_id, by="operator")

        posts = receiver.wait_for(2)

    by_key = {post.headers["Idempotency-Key"]: post.body for post in posts}
    cancelled = by_key[f"{paused.review.id}:review_cancelled"]
    assert (cancelled["event"], cancelled["status"], cancelled["decided_by"]) == (
        "review_cancelled",
        "cancelled",
        "operator",
    )
