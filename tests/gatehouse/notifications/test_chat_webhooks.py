"""Slack and Teams notifications through the real sender: posted over HTTP to a receiver on
127.0.0.1 in the format GATEHOUSE_WEBHOOK_FORMAT names, as each chat would accept it, with the
link to the review, and without the secrets the outbox hid."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from gatehouse.notifications.webhook import WebhookSender
from gatehouse.settings import WebhookFormat
from gatehouse.wiring import open_services
from reviews.notifications import Outbox
from tests.gatehouse.notifications.chat_checks import checked_slack_blocks, checked_teams_card, walk
from tests.reviews.review_support import EMAIL_REQUEST, email_servers, settings_for
from tests.reviews.webhook_receiver import webhook_receiver

PUBLIC_URL = "https://gatehouse.example.com/"
TOKEN = "ghp_8fK2mQ7vX1cR9tB4nW6yL3pZ0sD5hJaE"


def _links(fmt: WebhookFormat, body: dict[str, Any]) -> list[str]:
    """Where the message's button goes, once the chat's own definitions accepted the message."""
    if fmt == "slack":
        checked_slack_blocks(body)
        return [item["url"] for item in walk(body["blocks"]) if item.get("type") == "button"]
    card = checked_teams_card(body)
    return [item["url"] for item in walk(card) if item.get("type") == "Action.OpenUrl"]


@pytest.mark.usefixtures("bundled_in_process")
@pytest.mark.parametrize("fmt", ["slack", "teams"])
def test_a_review_that_waits_reaches_the_chat_in_its_format_with_a_button_to_the_review(
    data_dir: Path, fmt: WebhookFormat
) -> None:
    with webhook_receiver() as receiver:
        settings = dataclasses.replace(
            settings_for(data_dir, servers=email_servers(data_dir)),
            webhook_url=receiver.url,
            webhook_format=fmt,
            public_url=PUBLIC_URL,
        )
        with open_services(settings) as services:
            review = services.requests.ask(EMAIL_REQUEST).final_output.review
            (post,) = receiver.wait_for(1)

    assert review is not None
    assert post.headers["Idempotency-Key"] == f"{review.id}:review_opened"
    assert post.headers["Content-Type"] == "application/json"
    assert "event" not in post.body, "only the chat's own fields"
    assert _links(fmt, post.body) == [f"{PUBLIC_URL}reviews?review={review.id}"]


@pytest.mark.parametrize("fmt", ["slack", "teams"])
def test_a_secret_the_outbox_hid_is_in_no_chat_message(data_dir: Path, fmt: WebhookFormat) -> None:
    outbox = Outbox(data_dir / "gatehouse.db")
    try:
        outbox.add(
            "t1-r1:review_opened",
            {
                "event": "review_opened",
                "review_id": "t1-r1",
                "capability": "github__create_issue",
                "requester": f"operator {TOKEN}",
                "flags": [],
            },
        )
        with webhook_receiver() as receiver:
            report = WebhookSender(
                outbox, receiver.url, public_url=PUBLIC_URL, message_format=fmt
            ).deliver_due()
            (post,) = receiver.wait_for(1)
    finally:
        outbox.close()

    assert report.delivered == 1
    assert _links(fmt, post.body) == [f"{PUBLIC_URL}reviews?review=t1-r1"]
    assert TOKEN not in post.raw.decode("utf-8") and "ghp_***" in post.raw.decode("utf-8")
