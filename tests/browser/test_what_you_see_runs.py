"""The reviewer sees exactly what will run, in a real browser: the one decision button runs the
arguments the form shows, a request dressed up as the app's own markup is shown as the text it
is (and the browser fetches none of its images), and a decision from a stale tab is refused
with the winner's name where the review was.

Each test leaves no review pending, so the next one opens its own."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.harness import (
    BROWSER_ZONE_NAME,
    AppServer,
    OpenApp,
    go_to,
    no_exception,
    operator_asks,
    reviewer_on_reviews,
    selectbox,
    wait_for_app,
)
from tests.browser.test_review_flow import outbox
from tests.support import SHUTDOWN_POLL_SECONDS


class ImageHost:
    """A second HTTP server on 127.0.0.1 that records every request it gets: the host of the
    images and links in a dressed-up request. The browser must never ask it for anything."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        seen = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append(self.path)
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def image_host() -> Iterator[ImageHost]:
    host = ImageHost()
    thread = threading.Thread(
        target=host.server.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL_SECONDS}, daemon=True
    )
    thread.start()
    try:
        yield host
    finally:
        host.server.shutdown()
        host.server.server_close()
        thread.join()


def sent_with_body(data: Path, body: str) -> list[dict[str, object]]:
    return [message for message in outbox(data) if message["body"] == body]


def test_editing_a_field_and_clicking_the_primary_button_runs_the_edited_content(
    app_server: AppServer, open_app: OpenApp
) -> None:
    operator_asks(open_app, "Send an email to bob@example.com saying as proposed")
    reviewer = reviewer_on_reviews(open_app)
    expect(reviewer.get_by_role("textbox", name="body *", exact=True)).to_have_value("as proposed")

    body = reviewer.get_by_role("textbox", name="body *", exact=True)
    body.fill("as the reviewer left it")
    body.press("Control+Enter")
    # The preview follows the form: the edit has reached the server.
    expect(reviewer.get_by_test_id("stText").filter(has_text="as the reviewer left it")).to_be_visible()
    wait_for_app(reviewer)
    # The primary button of the decision row (Streamlit draws a button with help text twice).
    reviewer.get_by_test_id("stMain").get_by_test_id("stBaseButton-primary").first.click()
    expect(reviewer.get_by_text(re.compile(r"Outcome: ok"))).to_be_visible()
    no_exception(reviewer)

    assert sent_with_body(app_server.data, "as the reviewer left it") != []
    assert sent_with_body(app_server.data, "as proposed") == []


def dressed_up(image_host: ImageHost) -> str:
    return (
        "Send an email to bob@example.com saying # Urgent <b>bold</b> "
        f"[the docs]({image_host.url}/docs) ![logo]({image_host.url}/logo.png) "
        "> :green-badge[Pre-approved by Security] Safe to approve"
    )


def shows_no_markup_from(page: Page, image_host: ImageHost) -> None:
    """Nothing of the dressed-up request became an element: no badge, link, image, heading or
    bold text of its own."""
    expect(page.get_by_text("Pre-approved by Security", exact=True)).to_have_count(0)
    expect(page.locator(f"a[href^='{image_host.url}']")).to_have_count(0)
    expect(page.locator(f"img[src^='{image_host.url}']")).to_have_count(0)
    expect(page.locator("h1, h2, h3").filter(has_text="Urgent")).to_have_count(0)
    expect(page.locator("b, strong").filter(has_text="bold")).to_have_count(0)


def test_a_request_dressed_up_as_markup_shows_literally_on_every_page_and_fetches_nothing(
    app_server: AppServer, open_app: OpenApp, image_host: ImageHost
) -> None:
    request = dressed_up(image_host)
    operator = operator_asks(open_app, request)
    expect(operator.get_by_test_id("stText").filter(has_text=request)).to_be_visible()
    shows_no_markup_from(operator, image_host)

    reviewer = reviewer_on_reviews(open_app)
    expect(reviewer.get_by_test_id("stText").filter(has_text=request).first).to_be_visible()
    shows_no_markup_from(reviewer, image_host)
    no_exception(reviewer)

    go_to(operator, "Traces")
    # The thread is listed by its first words, as typed.
    expect(selectbox(operator, "Thread")).to_have_value(
        re.compile(r"^Send an email to bob@example\.com saying # Urgent <b>bold</b>")
    )
    shows_no_markup_from(operator, image_host)
    no_exception(operator)

    reviewer.get_by_role("textbox", name=re.compile(r"^Reason")).fill("dressed up")
    reviewer.get_by_role("button", name="Reject", exact=True).click()
    expect(reviewer.get_by_text(re.compile(r"Outcome: rejected"))).to_be_visible()
    wait_for_app(reviewer)
    assert image_host.requests == []


def test_a_decision_from_a_stale_tab_is_refused_and_names_who_decided(
    app_server: AppServer, open_app: OpenApp
) -> None:
    operator_asks(open_app, "Send an email to bob@example.com saying only once")
    stale = reviewer_on_reviews(open_app, "reviewer")
    winner = reviewer_on_reviews(open_app, "reviewer2")
    expect(stale.get_by_role("textbox", name="body *", exact=True)).to_have_value("only once")
    expect(winner.get_by_role("textbox", name="body *", exact=True)).to_have_value("only once")
    # A tab whose refresh has not come yet (live updates off holds it there; a live tab loses
    # its buttons within seconds, tests/browser/test_live_views.py): its click is refused.
    live = stale.get_by_test_id("stCheckbox").filter(has_text="Live updates")
    live.click()
    # The switch flips in the browser at once; its rerun (which stops the refresh) may start
    # later. Wait for what only that rerun draws, then for it to end: a refresh still to come
    # after the winner's decision would take the stale tab's buttons away (seen in CI).
    expect(stale.get_by_text("Live updates are off")).to_be_visible()
    wait_for_app(stale)

    winner.get_by_role("button", name="Approve", exact=True).click()
    expect(winner.get_by_text(re.compile(r"Outcome: ok"))).to_be_visible()
    stale.get_by_role("button", name="Approve", exact=True).click()

    expect(stale.get_by_text(re.compile(rf"decided by reviewer2 at .* {BROWSER_ZONE_NAME}"))).to_be_visible()
    expect(stale.get_by_role("button", name="Approve", exact=True)).to_have_count(0)
    no_exception(stale)
    assert len(sent_with_body(app_server.data, "only once")) == 1
