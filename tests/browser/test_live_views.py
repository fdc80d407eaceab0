"""Live, consistent views in a real browser: with the Reviews page open, a review asked
elsewhere appears in its queue and in both pending counts by itself, and what the reviewer is
half-way through typing survives that; a review decided in another tab says who decided it,
and its decision buttons go, in every tab that has it open. No reload, no click.

Each test leaves no review pending, so the next one starts from an empty queue."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from gatehouse.web.waiting_on_you import LABEL as WAITING_LABEL
from tests.browser.harness import (
    BROWSER_ZONE_NAME,
    AppServer,
    OpenApp,
    expect_waiting_for_a_reviewer,
    new_thread,
    no_exception,
    reviewer_on_reviews,
    selectbox,
    send_chat,
    sidebar,
    wait_for_app,
)
from tests.browser.test_review_flow import outbox

# The Reviews page refreshes every 3 s (gatehouse/web/live_queue.py); a few rounds on a busy machine.
LIVE_TIMEOUT_MS = 20_000
BODY = "body *"


def ask_for_email(operator: Page, body: str) -> None:
    new_thread(operator)
    send_chat(operator, f"Send an email to bob@example.com saying {body}")
    expect_waiting_for_a_reviewer(operator)


def page_count(page: Page) -> Locator:
    """The Reviews page's own count: its "Pending (N)" heading."""
    return page.get_by_test_id("stHeading").filter(has_text=re.compile(r"^Pending \(\d+\)"))


def sidebar_count(page: Page) -> Locator:
    return (
        sidebar(page)
        .get_by_test_id("stMetric")
        .filter(has_text=WAITING_LABEL)
        .get_by_test_id("stMetricValue")
    )


def counts_show(page: Page, pending: int) -> None:
    """Both counts show ``pending`` (within a few refreshes): here every pending review was
    asked by the operator, so each waits on every reviewer (the sidebar counts only those:
    test_waiting_on_you.py)."""
    expect(page_count(page)).to_have_text(f"Pending ({pending})", timeout=LIVE_TIMEOUT_MS)
    expect(sidebar_count(page)).to_have_text(str(pending), timeout=LIVE_TIMEOUT_MS)


def review_options(page: Page) -> list[str]:
    """The reviews the "Open review" picker offers (its list opens in a popover)."""
    picker = selectbox(page, "Open review")
    picker.click()
    dropdown = page.get_by_test_id("stSelectboxVirtualDropdown")
    options = dropdown.get_by_role("option")
    expect(options.first).to_be_visible()
    texts = options.all_inner_texts()
    picker.press("Escape")
    expect(dropdown).to_have_count(0)
    return texts


def test_a_review_asked_elsewhere_appears_in_the_open_queue_and_both_counts_without_losing_an_edit(
    app_server: AppServer, open_app: OpenApp
) -> None:
    operator = open_app()
    ask_for_email(operator, "first in line")
    reviewer = reviewer_on_reviews(open_app)
    body = reviewer.get_by_role("textbox", name=BODY, exact=True)
    expect(body).to_have_value("first in line")
    counts_show(reviewer, 1)
    # Typed, not yet applied (no Enter, the box keeps the focus): a refresh must not undo it.
    body.fill("half-way through an edit")

    ask_for_email(operator, "second in line")

    counts_show(reviewer, 2)
    expect(body).to_have_value("half-way through an edit")
    expect(body).to_be_focused()
    # The open review stays the one being edited; the new one is offered beside it.
    options = review_options(reviewer)
    assert len(options) == 2
    expect(selectbox(reviewer, "Open review")).to_have_value(options[0])
    no_exception(reviewer)

    # The edit was kept, not merely redrawn: applied and approved, it is what is sent.
    body.press("Control+Enter")
    approve = reviewer.get_by_role("button", name="Approve with my changes", exact=True)
    approve.click()
    expect(reviewer.get_by_text(re.compile(r"Outcome: ok"))).to_be_visible()
    wait_for_app(reviewer)
    assert [m["body"] for m in outbox(app_server.data)][-1] == "half-way through an edit"
    # The page goes on to the other review; the counts follow.
    expect(body).to_have_value("second in line")
    counts_show(reviewer, 1)
    reviewer.get_by_role("textbox", name=re.compile(r"^Reason")).fill("tidying up")
    reviewer.get_by_role("button", name="Reject", exact=True).click()
    expect(reviewer.get_by_text(re.compile(r"Outcome: rejected"))).to_be_visible()
    counts_show(reviewer, 0)


def test_a_review_decided_in_another_tab_shows_who_decided_and_loses_its_buttons_by_itself(
    app_server: AppServer, open_app: OpenApp
) -> None:
    operator = open_app()
    ask_for_email(operator, "decided elsewhere")
    watching = reviewer_on_reviews(open_app, "reviewer")
    deciding = reviewer_on_reviews(open_app, "reviewer2")
    for page in (watching, deciding):
        expect(page.get_by_role("textbox", name=BODY, exact=True)).to_have_value("decided elsewhere")
        expect(page.get_by_role("button", name="Approve", exact=True)).to_be_visible()
        counts_show(page, 1)

    deciding.get_by_role("button", name="Approve", exact=True).click()
    expect(deciding.get_by_text(re.compile(r"Outcome: ok"))).to_be_visible()

    # The watching tab, untouched: who decided and when (in the browser's zone), in place of the
    # buttons. A time of today; with its day only if midnight fell between decision and refresh.
    when = rf"(\d+ \w+, )?\d\d:\d\d {BROWSER_ZONE_NAME}"
    decided = watching.get_by_text(re.compile(rf"decided by reviewer2 at {when}"))
    expect(decided).to_be_visible(timeout=LIVE_TIMEOUT_MS)
    expect(watching.get_by_role("button", name="Approve", exact=True)).to_have_count(0)
    expect(watching.get_by_role("button", name="Reject", exact=True)).to_have_count(0)
    expect(watching.get_by_role("textbox", name=BODY, exact=True)).to_have_count(0)
    counts_show(watching, 0)
    no_exception(watching)
    assert [m["body"] for m in outbox(app_server.data)].count("decided elsewhere") == 1
