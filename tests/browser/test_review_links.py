"""A notification's link, followed in a real browser: the app posts to a real webhook receiver
on 127.0.0.1, and the reviewer opens the very link it received in a new tab. It lands on that
review, ready to decide; so does the same ``?review=`` on any other page of the app (links
sent before they named the Reviews page went to the root, the Chat page) and the short id
shown on screen. An id that names no review says so instead of opening another one."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from gatehouse.credentials.local_identity import COOKIE
from gatehouse.web.short_ids import short_review
from tests.browser.harness import (
    AppServer,
    OpenApp,
    expect_waiting_for_a_reviewer,
    go_to,
    new_thread,
    no_exception,
    pick_identity,
    running_app,
    send_chat,
    visit,
)
from tests.reviews.webhook_receiver import Receiver, webhook_receiver

EMAIL = "Send an email to bob@example.com saying {body}"
BODY = "body *"


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    with webhook_receiver() as listening:
        yield listening


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory, receiver: Receiver) -> Iterator[AppServer]:
    """The app, posting its notifications to ``receiver``, with its own address as the public
    one: the links it sends lead back to it."""
    with running_app(
        tmp_path_factory.mktemp("gatehouse-links"),
        extra_env={"GATEHOUSE_WEBHOOK_URL": receiver.url},
        knows_its_address=True,
    ) as server:
        yield server


def notified_review(open_app: OpenApp, receiver: Receiver, body: str) -> tuple[str, str]:
    """The operator asks for an e-mail; the review's id and the link its notification carries."""
    before = len(receiver.received)
    operator = open_app()
    new_thread(operator)
    send_chat(operator, EMAIL.format(body=body))
    expect_waiting_for_a_reviewer(operator)
    opened = receiver.wait_for(before + 1)[-1]
    operator.close()  # each open tab refreshes its views: on a busy machine, keep few
    assert opened.body["event"] == "review_opened"
    link = str(opened.body["url"])
    assert opened.body["text"].endswith(f" {link}"), "the text a person reads carries the same link"
    return str(opened.body["review_id"]), link


def reviewer_browser(open_app: OpenApp) -> Page:
    """The reviewer's browser: picked once, remembered for new tabs (local mode's cookie)."""
    page = open_app()
    pick_identity(page, "reviewer")
    # The sidebar's script stores the name after the run that drew it: wait for it to be there.
    page.wait_for_function(f"document.cookie.split('; ').includes('{COOKIE}=reviewer')")
    return page


def follow(browser_page: Page, link: str) -> Page:
    """Open ``link`` in a new tab of the same browser, as a click in a chat or an e-mail does."""
    tab = browser_page.context.new_page()
    visit(tab, link)
    return tab


def shows_review(tab: Page, review: str, body: str) -> None:
    """The Reviews page with ``review`` open: its heading, its proposal, its decision."""
    expect(tab.get_by_test_id("stHeading").filter(has_text=re.compile(r"^Reviews$"))).to_be_visible()
    heading = tab.get_by_test_id("stHeading").filter(has_text=f"Review {short_review(review)}")
    expect(heading).to_be_visible()
    expect(tab.get_by_role("textbox", name=BODY, exact=True)).to_have_value(body)
    expect(tab.get_by_role("button", name="Approve", exact=True)).to_be_enabled()
    no_exception(tab)


def test_the_link_a_notification_sends_opens_its_review_ready_to_decide(
    app_server: AppServer, open_app: OpenApp, receiver: Receiver
) -> None:
    review, link = notified_review(open_app, receiver, "follow the link")
    assert link.startswith(app_server.url), "the link leads to the app's public address"
    reviewer = reviewer_browser(open_app)

    tab = follow(reviewer, link)

    shows_review(tab, review, "follow the link")
    tab.get_by_role("button", name="Approve", exact=True).click()
    expect(tab.get_by_text(f"Review {short_review(review)} executed. Outcome: ok.")).to_be_visible()


def test_a_review_link_on_any_page_or_with_the_short_id_lands_on_the_review(
    app_server: AppServer, open_app: OpenApp, receiver: Receiver
) -> None:
    # An older review first: the newer one, not the queue's oldest, must be what opens.
    notified_review(open_app, receiver, "the older one")
    review, link = notified_review(open_app, receiver, "the linked one")
    query = link.split("?", 1)[1]
    reviewer = reviewer_browser(open_app)

    # The same query on the root (Chat: where notifications used to link) and on other pages.
    for page in ("", "traces", "servers"):
        tab = follow(reviewer, f"{app_server.page_url(page)}?{query}")
        shows_review(tab, review, "the linked one")
        tab.close()
    # The short id people see on screen and copy.
    short = link.replace(quote(review, safe=""), quote(short_review(review), safe=""))
    tab = follow(reviewer, short)
    shows_review(tab, review, "the linked one")

    # Once followed, the link no longer holds the session: Chat stays Chat.
    go_to(tab, "Chat")
    expect(tab.get_by_test_id("stHeading").filter(has_text=re.compile(r"^Chat$"))).to_be_visible()
    expect(tab.get_by_test_id("stHeading").filter(has_text=re.compile(r"^Reviews$"))).to_have_count(0)


@pytest.mark.parametrize(
    ("linked", "said"),
    [
        ("0123456789abcdef0123456789abcdef-r1", "no review has the id 0123456789abcdef0123456789abcdef-r1"),
        ("abc", "abc is too short to name a review"),
    ],
)
def test_a_link_whose_id_names_no_review_says_so(
    app_server: AppServer, open_app: OpenApp, receiver: Receiver, linked: str, said: str
) -> None:
    reviewer = reviewer_browser(open_app)

    tab = follow(reviewer, f"{app_server.page_url()}?review={linked}")

    expect(tab.get_by_test_id("stHeading").filter(has_text=re.compile(r"^Reviews$"))).to_be_visible()
    warning = tab.get_by_test_id("stAlert").filter(has_text="The link does not open a review")
    expect(warning).to_contain_text(said)
    no_exception(tab)
