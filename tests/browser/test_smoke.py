"""The app in a real browser: the first screen, and the local-mode identity picker."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from gatehouse.web.waiting_on_you import LABEL as WAITING_LABEL
from tests.browser.harness import OpenApp, no_exception, pick_identity, screenshot, selectbox, sidebar


def test_the_chat_page_opens_in_local_mode_and_the_identity_can_be_switched(
    open_app: OpenApp, artifacts: Path
) -> None:
    page = open_app()

    expect(page.get_by_test_id("stHeading").filter(has_text="Chat")).to_be_visible()
    expect(sidebar(page).get_by_text("Local mode", exact=False)).to_be_visible()
    # An operator decides no review: no count of reviews waiting on them.
    waiting = sidebar(page).get_by_test_id("stMetric").filter(has_text=WAITING_LABEL)
    expect(waiting).to_have_count(0)
    identity = selectbox(page, "You are", within=sidebar(page))
    expect(identity).to_have_value("operator")
    no_exception(page)
    assert screenshot(page, "chat-empty") == artifacts / "chat-empty.png"

    pick_identity(page, "reviewer")

    expect(identity).to_have_value("reviewer")
    expect(sidebar(page).get_by_text("Role: reviewer", exact=True)).to_be_visible()
    expect(waiting.get_by_test_id("stMetricValue")).to_have_text("0")
    no_exception(page)
