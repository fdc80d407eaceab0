"""The operator reads how a reviewed request ended, in a real browser: who approved it, when
(in the browser's own time zone), the diff of what the reviewer changed, and the result as a
table with its raw JSON behind an expander."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from playwright.sync_api import Browser, Page, expect

from tests.browser.harness import (
    AppServer,
    OpenApp,
    new_page,
    new_thread,
    no_exception,
    reviewer_on_reviews,
    screenshot,
    send_chat,
    visit,
    wait_for_app,
)

# Not the server's zone (UTC here): the time shown must be the reader's.
ZONE = "Asia/Kolkata"


def operator_in(browser: Browser, app_server: AppServer) -> Page:
    """The operator's browser, its clock in ZONE (a context of its own, closed by the test)."""
    page = new_page(browser, height=1600, zone=ZONE)
    visit(page, app_server.page_url())
    return page


def test_an_edited_approvals_answer_names_the_approver_the_time_the_diff_and_shows_a_table(
    browser: Browser, app_server: AppServer, open_app: OpenApp
) -> None:
    operator = operator_in(browser, app_server)
    try:
        new_thread(operator)
        send_chat(operator, "Send an email to bob@example.com saying as proposed")
        reviewer = reviewer_on_reviews(open_app)
        body = reviewer.get_by_role("textbox", name="body *", exact=True)
        body.fill("as the reviewer wrote it")
        body.press("Control+Enter")
        expect(reviewer.get_by_role("button", name="Approve with my changes")).to_be_visible()
        wait_for_app(reviewer)
        before = datetime.now(UTC)
        reviewer.get_by_role("button", name="Approve with my changes").click()
        expect(reviewer.get_by_text(re.compile(r"Outcome: ok"))).to_be_visible()
        after = datetime.now(UTC)

        # The waiting thread follows the decision by itself.
        answer = operator.get_by_test_id("stChatMessage").last
        headline = answer.get_by_text(re.compile(r"^Approved by reviewer at \d\d:\d\d IST$"))
        expect(headline).to_be_visible()
        shown = re.search(r"\d\d:\d\d", headline.inner_text())
        assert shown is not None
        local = {moment.astimezone(ZoneInfo(ZONE)).strftime("%H:%M") for moment in (before, after)}
        assert shown.group() in local
        # The diff, literally: the proposal and what ran.
        expect(answer.get_by_test_id("stCode").filter(has_text="- as proposed")).to_contain_text(
            "+ as the reviewer wrote it"
        )
        # The e-mail server's answer as a table; its JSON only behind the expander.
        expect(answer.get_by_test_id("stDataFrame")).to_have_count(1)
        json_shown = [part for part in answer.get_by_text(re.compile(r'"queued"')).all() if part.is_visible()]
        assert json_shown == []
        raw = answer.get_by_test_id("stExpander").filter(has_text="Raw result")
        raw.get_by_text("Raw result").click()
        expect(raw.get_by_test_id("stCode")).to_contain_text('"queued": true')
        no_exception(operator)
        screenshot(operator, "outcome-edited-approval")
    finally:
        operator.context.close()
