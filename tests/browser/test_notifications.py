"""A webhook received by a local receiver: the real app, two browser contexts, a real HTTP
receiver on 127.0.0.1. The operator's request and the reviewer's approval each arrive once,
and the Reviews page shows them delivered without the webhook's token."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.harness import (
    AppServer,
    expect_waiting_for_a_reviewer,
    go_to,
    new_page,
    no_exception,
    pick_identity,
    running_app,
    send_chat,
    visit,
)
from tests.reviews.webhook_receiver import Receiver, webhook_receiver

EMAIL = "Send an email to bob@example.com saying hi"
TOKEN = "T0KEN-s3cr3t-path"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with webhook_receiver() as listening:
        yield listening


@pytest.fixture
def notifying_app(tmp_path: Path, receiver: Receiver, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppServer]:
    monkeypatch.setenv("GATEHOUSE_WEBHOOK_URL", receiver.url)
    monkeypatch.setenv("GATEHOUSE_PUBLIC_URL", "http://127.0.0.1:9/")
    with running_app(tmp_path / "app") as server:
        yield server


def _page(browser: Browser, server: AppServer, pages: list[Page]) -> Page:
    page = new_page(browser, height=1600)
    pages.append(page)
    visit(page, server.page_url())
    return page


def test_a_local_receiver_is_told_a_review_waits_and_then_that_it_was_approved(
    browser: Browser, notifying_app: AppServer, receiver: Receiver
) -> None:
    pages: list[Page] = []
    try:
        operator = _page(browser, notifying_app, pages)
        send_chat(operator, EMAIL)
        expect_waiting_for_a_reviewer(operator)
        (opened,) = receiver.wait_for(1)
        review = opened.body["review_id"]
        assert opened.headers["Idempotency-Key"] == f"{review}:review_opened"
        assert opened.body["text"].startswith(f"operator asked for email__send_email: review {review} waits")
        assert opened.body["url"] == f"http://127.0.0.1:9/reviews?review={review}"

        reviewer = _page(browser, notifying_app, pages)
        pick_identity(reviewer, "reviewer")
        go_to(reviewer, "Reviews")
        reviewer.get_by_role("button", name="Approve", exact=True).click()
        expect(reviewer.get_by_text("Pending (0)")).to_be_visible()
        _, decided = receiver.wait_for(2)
        assert (decided.body["event"], decided.body["decided_by"], decided.body["status"]) == (
            "review_decided",
            "reviewer",
            "approved",
        )

        go_to(reviewer, "Reviews")
        # The decision's post may still be finishing when the page is drawn: pending 0 or 1.
        section = reviewer.get_by_text(re.compile(r"^Notifications: [01] pending, 0 failed$"))
        # Until the rerun ends, Streamlit keeps the previous run's section (faded) beside the new
        # one: wait for the one that stays, so a real second section would still fail here.
        expect(section).to_have_count(1)
        # A later live refresh can bring the faded copy back for a moment: the one that stays
        # is the last one drawn.
        expect(section.last).to_be_visible()
        section.last.click()
        expect(reviewer.get_by_text("127.0.0.1").first).to_be_visible()
        no_exception(reviewer)
        assert TOKEN not in reviewer.content()
    finally:
        for page in pages:
            page.context.close()
    assert len(receiver.received) == 2, "each event once"
    assert TOKEN not in notifying_app.log.read_text(encoding="utf-8", errors="replace")


def test_the_notifications_section_stays_open_while_its_counts_change(
    browser: Browser, notifying_app: AppServer, receiver: Receiver
) -> None:
    receiver.script.append("hang")  # the first post waits: one notification stays pending
    pages: list[Page] = []
    try:
        operator = _page(browser, notifying_app, pages)
        send_chat(operator, EMAIL)
        expect_waiting_for_a_reviewer(operator)
        assert receiver.hanging.wait(20), "the review's notification never reached the receiver"

        reviewer = _page(browser, notifying_app, pages)
        pick_identity(reviewer, "reviewer")
        go_to(reviewer, "Reviews")
        pending = reviewer.get_by_text("Notifications: 1 pending, 0 failed", exact=True)
        expect(pending).to_have_count(1)
        pending.click()
        posted_to = reviewer.get_by_text(re.compile(r"^Posted to http://127\.0\.0\.1"))
        expect(posted_to).to_be_visible()

        receiver.released.set()  # delivered: the count changes on the next run of the page
        delivered = reviewer.get_by_text("Notifications: 0 pending, 0 failed", exact=True)
        for _ in range(20):
            reviewer.keyboard.press("r")  # Streamlit's key to run the page again
            if delivered.count():
                break
            reviewer.wait_for_timeout(500)
        expect(delivered).to_be_visible()
        expect(posted_to).to_be_visible()
        no_exception(reviewer)
    finally:
        receiver.released.set()
        for page in pages:
            page.context.close()
