"""Every page of the app, in the states its users meet it, passes axe-core with every rule on.

The app here has content: an answered read (a table of files), an e-mail waiting for a
reviewer, one approved (history, an outcome with its reviewer), and a server that fails to
start (the Servers page's failure state). Each page is checked as the person who uses it sees
it: Chat with a thread open and with its picker open, Reviews with a review open, Traces with
a thread's steps unfolded, Servers and Policy as an admin. Serious and critical violations
fail (tests/browser/accessibility.py); so does a skipped heading level, a moderate one, since
a screen reader's user moves through a page by its headings.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from gatehouse.web.short_ids import SHORT_LENGTH, short_review
from reviews.conversations import TITLE_CHARS
from tests.browser.accessibility import Violation, expect_accessible
from tests.browser.harness import (
    BROWSER_ZONE,
    BROWSER_ZONE_NAME,
    VIEWPORT,
    AppServer,
    OpenApp,
    expect_waiting_for_a_reviewer,
    new_page,
    new_thread,
    no_exception,
    reviewer_on_reviews,
    running_app,
    selectbox,
    send_chat,
    sidebar,
    visit,
    wait_for_app,
)

READ = "List the files in the managed project folder."
# Longer than a thread's stored title (reviews/conversations.py's TITLE_CHARS, 80 characters).
WAITING = "Send an email to bob@example.com saying the accessibility check waits for a person to look at it"
APPROVED = "Send an email to carol@example.com saying the accessibility check passed"
# Rules failed on at any impact: the ones axe rates moderate that the pages must still meet.
ALSO_FAILED = ("heading-order",)
PICKER_TRIES = 3
PICKER_WAIT_MS = 5_000


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    """The demo servers, and one that exits at start (the Servers page's failure state)."""
    broken = {"command": sys.executable, "args": ["-c", "raise SystemExit('not a server: exits at once')"]}
    with running_app(tmp_path_factory.mktemp("gatehouse-app"), extra_servers={"broken": broken}) as server:
        yield server


@pytest.fixture(scope="module")
def content(app_server: AppServer, browser: Browser) -> None:
    """An answered read, an approved e-mail and one still waiting, made as people make them."""
    operator = new_page(browser)
    try:
        visit(operator, app_server.page_url("?as=operator"))
        send_chat(operator, READ)
        new_thread(operator)
        send_chat(operator, APPROVED)
        expect_waiting_for_a_reviewer(operator)
        reviewer = new_page(browser)
        try:
            visit(reviewer, app_server.page_url("review_queue?as=reviewer"))
            expect(reviewer.get_by_text("Pending (1)")).to_be_visible()
            reviewer.get_by_role("button", name="Approve", exact=True).click()
            expect(reviewer.get_by_text("Pending (0)")).to_be_visible()
            wait_for_app(reviewer)
        finally:
            reviewer.context.close()
        new_thread(operator)
        send_chat(operator, WAITING)
        expect_waiting_for_a_reviewer(operator)
    finally:
        operator.context.close()


def open_picker(page: Page) -> Locator:
    """Open the thread picker's list from the keyboard (the down arrow, as a person would
    with the box focused). The waiting thread's page redraws itself every few seconds, which
    can close a list opened just then: then open it again."""
    dropdown = page.get_by_test_id("stSelectboxVirtualDropdown")
    for _ in range(PICKER_TRIES):
        wait_for_app(page)
        selectbox(page, "Your threads").focus()
        selectbox(page, "Your threads").press("ArrowDown")
        try:
            expect(dropdown).to_be_visible(timeout=PICKER_WAIT_MS)
            break
        except AssertionError:
            continue
    expect(dropdown).to_be_visible()
    return dropdown


def accessible(page: Page, where: str) -> None:
    no_exception(page)
    violations: list[Violation] = expect_accessible(page, where)
    also = [v for v in violations if v.rule in ALSO_FAILED]
    assert not also, f"on {where}:\n" + "\n".join(v.describe() for v in also)


def test_chat_with_a_waiting_thread_an_answered_one_and_the_picker_open(
    content: None, open_app: OpenApp
) -> None:
    page = open_app("?as=operator")
    expect_waiting_for_a_reviewer(page)
    accessible(page, "Chat, a thread waiting for a reviewer")

    picker = open_picker(page)
    accessible(page, "Chat, the thread picker open")
    picker.get_by_role("option").filter(has_text=READ[:20]).click()
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    wait_for_app(page)
    page.get_by_test_id("stExpander").filter(has_text="Raw result").click()
    accessible(page, "Chat, an answered read with its raw result open")

    new_thread(page)
    accessible(page, "Chat, a new thread (what you can ask)")


def test_reviews_with_a_review_open_and_the_history(content: None, open_app: OpenApp) -> None:
    page = reviewer_on_reviews(open_app)
    expect(page.get_by_text("Pending (1)")).to_be_visible()
    expect(page.get_by_role("button", name="Approve", exact=True)).to_be_visible()
    for table in page.get_by_test_id("stDataFrame").all():
        expect(table.locator("canvas").first).to_be_visible()
    accessible(page, "Reviews, a review open")


def test_traces_with_a_thread_and_its_steps_open(content: None, open_app: OpenApp) -> None:
    page = open_app("traces?as=operator")
    expect(page.get_by_test_id("stGraphVizChart")).to_be_visible()
    steps = page.get_by_test_id("stExpander")
    expect(steps.first).to_be_visible()
    steps.first.click()
    wait_for_app(page)
    accessible(page, "Traces, a thread with a step open")


def test_servers_with_a_failing_server_as_an_admin(content: None, open_app: OpenApp) -> None:
    page = open_app("servers?as=admin")
    expect(page.get_by_text("broken", exact=True)).to_be_visible()
    accessible(page, "Servers, one server failing")


def test_policy_as_an_admin(content: None, open_app: OpenApp) -> None:
    page = open_app("policy?as=admin")
    expect(page.get_by_text("In force")).to_be_visible()
    accessible(page, "Policy, as an admin")


def test_every_page_in_the_dark_theme(content: None, browser: Browser, app_server: AppServer) -> None:
    """A browser that prefers a dark scheme gets Streamlit's dark theme: the same bar there."""
    context = browser.new_context(viewport=VIEWPORT, timezone_id=BROWSER_ZONE, color_scheme="dark")
    try:
        page = context.new_page()
        for path, who in (
            ("", "operator"),
            ("reviews", "reviewer"),
            ("traces", "operator"),
            ("servers", "admin"),
            ("policy", "admin"),
        ):
            visit(page, app_server.page_url(f"{path}?as={who}"))
            accessible(page, f"/{path} as {who}, dark theme")
    finally:
        context.close()


# -- every page at its address, everything it loads from the app itself -----------------------

# Each page's address and the title its heading and sidebar link show.
ADDRESSES = {"": "Chat", "reviews": "Reviews", "traces": "Traces", "servers": "Servers", "policy": "Policy"}
# The Reviews page's old address, kept (unlisted) for links and bookmarks made before.
OLD_REVIEWS = "review_queue"


def pending_review(data: Path) -> str:
    with sqlite3.connect(f"file:{data / 'gatehouse.db'}?mode=ro", uri=True) as db:
        [(review,)] = db.execute("SELECT id FROM reviews WHERE status = 'pending'").fetchall()
    return str(review)


def test_every_page_opens_at_its_address_and_an_old_review_link_still_opens_the_review(
    content: None, app_server: AppServer, open_app: OpenApp
) -> None:
    for path, title in ADDRESSES.items():
        page = open_app(f"{path}?as=admin")
        expect(page.get_by_role("heading", level=1)).to_have_text(title)
        expect(page.get_by_text("Page not found")).to_have_count(0)
        link = sidebar(page).get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True)
        expect(link).to_have_attribute("aria-current", "page")
        page.context.close()

    review = pending_review(app_server.data)
    for path in ("reviews", OLD_REVIEWS):
        page = open_app(f"{path}?as=reviewer&review={review}")
        expect(page.get_by_text("Page not found")).to_have_count(0)
        expect(page.get_by_role("heading", name=f"Review {short_review(review)}")).to_be_visible()
        page.context.close()


def outside(url: str) -> bool:
    """A URL the browser would fetch from anywhere but the app's own 127.0.0.1 (data: and blob:
    URLs are the page's own bytes)."""
    parts = urlsplit(url)
    return parts.scheme not in ("data", "blob", "about") and parts.hostname != "127.0.0.1"


def test_no_page_asks_any_host_but_the_app_for_anything(
    content: None, browser: Browser, app_server: AppServer
) -> None:
    """Offline, or behind a firewall, the app looks the same: every request of every page (the
    favicon, fonts, icons, scripts) goes to the app's own address. Headless Chromium fetches no
    favicon, so the icon the page declares is checked too."""
    page = new_page(browser)
    requested: list[str] = []
    page.context.on("request", lambda request: requested.append(request.url))
    try:
        for path in [*ADDRESSES, OLD_REVIEWS]:
            visit(page, app_server.page_url(f"{path}?as=admin"))
            page.wait_for_load_state("networkidle")
            icons = page.locator("link[rel~='icon']")
            expect(icons.first).to_be_attached()
            requested += [str(icons.nth(n).evaluate("link => link.href")) for n in range(icons.count())]
    finally:
        page.context.close()
    assert requested
    assert [url for url in requested if outside(url)] == []


# -- the thread picker -------------------------------------------------------------------------


def cut_off(option: Locator) -> list[str]:
    """The texts of the option's elements that do not fit their box (cut off or scrolled)."""
    found: list[str] = option.evaluate(
        """option => [option, ...option.querySelectorAll("*")]
            .filter(e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
            .map(e => e.innerText)"""
    )
    return found


def test_the_thread_picker_shows_each_thread_in_full_with_its_status_and_time(
    content: None, open_app: OpenApp
) -> None:
    page = open_app("?as=operator")
    expect_waiting_for_a_reviewer(page)
    # Newest first; the time in the browser's zone (the harness's is Japan's), named.
    clock = r"(\d{1,2} [A-Z][a-z]{2}( \d{4})?, )?\d\d:\d\d " + BROWSER_ZONE_NAME
    title = WAITING[:TITLE_CHARS] + "…"  # as stored: cut, and marked so
    expected = [(title, "waiting for a reviewer"), (APPROVED, "done"), (READ, "done")]
    # The waiting thread's page redraws itself every few seconds, which can close the list while
    # it is read (see open_picker): then it is opened and read again, whole.
    for attempt in range(1, PICKER_TRIES + 1):
        try:
            options = open_picker(page).get_by_role("option")
            expect(options).to_have_count(len(expected))
            for n, (request, status) in enumerate(expected):
                # Then the thread's short id: two threads of one title, status and minute stay two options.
                expect(options.nth(n)).to_have_text(
                    re.compile(rf"^{re.escape(request)} · {status} · {clock} · [0-9a-f]{{{SHORT_LENGTH}}}$"),
                    timeout=PICKER_WAIT_MS,
                )
                assert cut_off(options.nth(n)) == [], f"option {n + 1} is cut off"
            break
        except AssertionError:
            if attempt == PICKER_TRIES:
                raise
