"""The Reviews page shows how review notifications stand: pending, delivered, failed with the
receiver's error, and where they go without the webhook's token."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from gatehouse.web.literal import markdown_literal
from gatehouse.web.page import services
from tests.app.test_app import APP, EMAIL, app_env, ask, on_page, session  # noqa: F401 (app_env: a fixture)
from tests.gatehouse.notifications.chat_checks import checked_teams_card
from tests.reviews.webhook_receiver import webhook_receiver

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

TOKEN = "T0KEN-s3cr3t-path"


@pytest.mark.usefixtures("app_env")
def test_the_reviews_page_shows_a_failed_delivery_with_the_receivers_error_and_no_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with webhook_receiver(500) as receiver:
        monkeypatch.setenv("GATEHOUSE_WEBHOOK_URL", receiver.url)
        ask(session("operator"), EMAIL)
        (post,) = receiver.wait_for(1)
        sender = services().webhook
        assert sender is not None
        sender.stop()  # its attempt is recorded; the retry is not due yet

        reviewer = on_page(session("reviewer"), "review_queue")

    assert post.body["event"] == "review_opened"
    (section,) = [e for e in reviewer.expander if e.label.startswith("Notifications")]
    assert section.label == "Notifications: 1 pending, 0 failed"
    (table,) = [d.value for d in reviewer.dataframe if "receiver's error" in d.value.columns]
    assert list(table["event"]) == ["review_opened"]
    assert list(table["receiver's error"]) == ["HTTP 500: receiver says no"]
    shown = " ".join(c.value for c in reviewer.caption) + table.to_string()
    assert markdown_literal("127.0.0.1") in shown and markdown_literal("/***") in shown
    assert TOKEN not in shown


@pytest.mark.usefixtures("app_env")
def test_the_reviews_page_says_notifications_are_off_without_a_webhook(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GATEHOUSE_WEBHOOK_URL", raising=False)

    reviewer = on_page(session("reviewer"), "review_queue")

    assert [e.label for e in reviewer.expander if e.label.startswith("Notifications")] == [
        "Notifications: off"
    ]


@pytest.mark.usefixtures("app_env")
def test_the_app_takes_the_webhook_and_its_public_address_from_its_secrets_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GATEHOUSE_WEBHOOK_URL", raising=False)
    monkeypatch.delenv("GATEHOUSE_PUBLIC_URL", raising=False)
    with webhook_receiver() as receiver:
        app = AppTest.from_file(str(APP), default_timeout=60)
        app.secrets["notifications"] = {"webhook_url": receiver.url, "public_url": "https://gh.example.com/"}
        app.run()
        ask(app, EMAIL)
        (post,) = receiver.wait_for(1)

    review = post.body["review_id"]
    assert post.body["url"] == f"https://gh.example.com/reviews?review={review}"
    assert post.body["text"].endswith(f" https://gh.example.com/reviews?review={review}")


@pytest.mark.usefixtures("app_env")
def test_the_app_takes_the_webhooks_format_from_its_secrets_file(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("GATEHOUSE_WEBHOOK_URL", "GATEHOUSE_WEBHOOK_FORMAT", "GATEHOUSE_PUBLIC_URL"):
        monkeypatch.delenv(variable, raising=False)
    with webhook_receiver() as receiver:
        app = AppTest.from_file(str(APP), default_timeout=60)
        app.secrets["notifications"] = {
            "webhook_url": receiver.url,
            "webhook_format": "teams",
            "public_url": "https://gh.example.com/",
        }
        app.run()
        ask(app, EMAIL)
        (post,) = receiver.wait_for(1)

    card = checked_teams_card(post.body)
    (action,) = card["actions"]
    assert action["url"].startswith("https://gh.example.com/reviews?review=")
