"""Tabs left open cost the server little while nothing changes, and still show a change by
themselves within a few seconds: reviewers resting on the Reviews page, operators on Chat.

The server's CPU time is read from /proc for the Streamlit process (every thread, not its MCP
servers). The bound is generous for a busy two-core machine; a tab that redraws its live views
every 3 s whether or not anything changed cost 7.5-8.6% of a core (issue 32), one that looks
for a change and draws only then well under 1% (docs/benchmark.md, figure 10)."""

from __future__ import annotations

import re
import time

from playwright.sync_api import Page, expect

from bench.browser_tabs import cpu_seconds
from tests.browser.harness import (
    AppServer,
    OpenApp,
    expect_waiting_for_a_reviewer,
    send_chat,
    sidebar,
    wait_for_app,
)
from tests.browser.test_live_views import ask_for_email, counts_show

TABS = 3
# Long enough for three looks (every 3 s) by each tab, after the tabs' first refresh.
WINDOW_SECONDS = 9.0
SETTLE_SECONDS = 3.5
PER_TAB_LIMIT_PERCENT = 2.5
# A change shows within one look (3 s) and its run; this bounds it on a busy machine.
CHANGE_TIMEOUT_MS = 8_000


def idle_share(pid: int, tabs: int) -> float:
    """Percent of one core per tab the server spent while the tabs rested."""
    time.sleep(SETTLE_SECONDS)
    before, began = cpu_seconds(pid), time.monotonic()
    time.sleep(WINDOW_SECONDS)
    return 100.0 * (cpu_seconds(pid) - before) / (time.monotonic() - began) / tabs


def reviewers(open_app: OpenApp) -> list[Page]:
    return [open_app("review_queue?as=reviewer") for _ in range(TABS)]


def test_operators_resting_on_chat_cost_the_server_little_and_still_see_the_reviewers_decision(
    app_server: AppServer, open_app: OpenApp
) -> None:
    tabs = [open_app() for _ in range(TABS)]
    waiting = tabs[0]
    send_chat(waiting, "Send an email to bob@example.com saying decided while resting")
    expect_waiting_for_a_reviewer(waiting)
    for tab in tabs:
        wait_for_app(tab)

    share = idle_share(app_server.pid, TABS)
    assert share <= PER_TAB_LIMIT_PERCENT, f"{share:.1f}% of a core per idle Chat tab"

    reviewer = open_app("review_queue?as=reviewer")
    counts_show(reviewer, 1)  # the review that tab waits for, and no other
    reviewer.get_by_role("button", name="Approve", exact=True).click()
    expect(reviewer.get_by_text(re.compile(r"Outcome: ok"))).to_be_visible()
    answer = waiting.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("done")).to_be_visible(timeout=CHANGE_TIMEOUT_MS)


def test_reviewers_resting_on_the_reviews_page_cost_the_server_little_and_still_see_a_new_review(
    app_server: AppServer, open_app: OpenApp
) -> None:
    operator = open_app()
    ask_for_email(operator, "first while resting")
    tabs = reviewers(open_app)
    for tab in tabs:
        counts_show(tab, 1)  # the module's tests before this one leave none pending

    share = idle_share(app_server.pid, TABS)
    assert share <= PER_TAB_LIMIT_PERCENT, f"{share:.1f}% of a core per idle Reviews tab"

    ask_for_email(operator, "second while resting")
    for tab in tabs:
        heading = tab.get_by_test_id("stHeading").filter(has_text=re.compile(r"^Pending \(\d+\)"))
        expect(heading).to_have_text("Pending (2)", timeout=CHANGE_TIMEOUT_MS)
        metric = sidebar(tab).get_by_test_id("stMetricValue")
        expect(metric).to_have_text("2", timeout=CHANGE_TIMEOUT_MS)
