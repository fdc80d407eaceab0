"""Each person's own count, in three browsers at once: the sidebar's "Reviews waiting on you"
and the tab's title count the reviews that person may decide, not the whole queue. Under the
shipped policy's four-eyes a reviewer's own request waits for the other reviewer, and an
operator decides nothing. A new review waiting on you is announced: a toast in a tab in
sight, a browser notification for a tab out of sight (once the person agreed to them, by a
button: nobody is asked unprompted)."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from gatehouse.web.tab_attention import ASK_LABEL, NOTIFICATION_TITLE
from gatehouse.web.waiting_on_you import LABEL
from tests.browser.harness import (
    AppServer,
    OpenApp,
    expect_waiting_for_a_reviewer,
    go_to,
    no_exception,
    pick_identity,
    send_chat,
    sidebar,
    visit,
)

# The sidebar refreshes every 3 s (gatehouse/web/live_queue.py); a few rounds on a busy machine.
LIVE_TIMEOUT_MS = 20_000
EMAIL = "Send an email to bob@example.com saying {body}"

# A tab out of sight (another tab in front, the window minimised), as the page can tell; and a
# record of the notifications it shows, made by the browser's own Notification.
OUT_OF_SIGHT = """
Object.defineProperty(Document.prototype, "visibilityState", { get: () => "hidden", configurable: true });
Object.defineProperty(Document.prototype, "hidden", { get: () => true, configurable: true });
window.__shown = [];
const Real = window.Notification;
window.Notification = class extends Real {
  static get permission() { return Real.permission; }
  static requestPermission() { return Real.requestPermission(); }
  constructor(title, options) {
    window.__shown.push({ title, body: options && options.body });
    super(title, options);
  }
};
"""


def waiting(page: Page) -> Locator:
    return sidebar(page).get_by_test_id("stMetric").filter(has_text=LABEL)


def shows_waiting(page: Page, count: int) -> None:
    """The sidebar and the tab's title both say ``count`` (within a few refreshes)."""
    expect(waiting(page).get_by_test_id("stMetricValue")).to_have_text(str(count), timeout=LIVE_TIMEOUT_MS)
    if count:
        expect(page).to_have_title(re.compile(rf"^\({count}\) "), timeout=LIVE_TIMEOUT_MS)
    else:
        expect(page).not_to_have_title(re.compile(r"^\("), timeout=LIVE_TIMEOUT_MS)


def person(open_app: OpenApp, name: str) -> Page:
    page = open_app()
    pick_identity(page, name)
    return page


def ask(page: Page, body: str) -> None:
    send_chat(page, EMAIL.format(body=body))
    expect_waiting_for_a_reviewer(page)


def notifications(page: Page) -> list[dict[str, str]]:
    shown: list[dict[str, str]] = page.evaluate("window.__shown")
    return shown


def test_each_person_counts_the_reviews_they_may_decide_and_a_new_one_is_announced(
    app_server: AppServer, open_app: OpenApp
) -> None:
    reviewer = person(open_app, "reviewer")
    # reviewer2's tab is out of sight, and reviewer2 agreed to notifications before.
    away = open_app()
    away.context.add_init_script(OUT_OF_SIGHT)
    away.context.grant_permissions(["notifications"], origin=app_server.url)
    visit(away, app_server.page_url())
    pick_identity(away, "reviewer2")
    for page in (reviewer, away):
        shows_waiting(page, 0)
    expect(sidebar(away).get_by_role("button", name=ASK_LABEL)).to_have_count(0)  # agreed already

    # Asked politely: a button, and the browser's own question only once it is clicked.
    ask_button = sidebar(reviewer).get_by_role("button", name=ASK_LABEL)
    expect(ask_button).to_be_visible()
    reviewer.context.grant_permissions(["notifications"], origin=app_server.url)
    ask_button.click()
    expect(ask_button).to_have_count(0)

    operator = person(open_app, "operator")
    ask(operator, "from the operator")

    # Waiting on both reviewers: a toast for the one in sight, a notification for the other.
    toast = reviewer.get_by_test_id("stToast").filter(has_text="operator asks for email__send_email")
    expect(toast).to_be_visible(timeout=LIVE_TIMEOUT_MS)
    shows_waiting(reviewer, 1)
    shows_waiting(away, 1)
    away.wait_for_function("window.__shown.length > 0", timeout=LIVE_TIMEOUT_MS)
    [shown] = notifications(away)
    assert shown["title"] == NOTIFICATION_TITLE
    assert shown["body"].startswith("operator asks for email__send_email (review ")
    # The operator decides nothing: no count, no number in the title.
    expect(waiting(operator)).to_have_count(0)
    expect(operator).not_to_have_title(re.compile(r"^\("))

    # reviewer2 asks too: under four-eyes that waits on reviewer alone.
    ask(away, "from reviewer2")
    shows_waiting(reviewer, 2)
    expect(reviewer.get_by_test_id("stToast").filter(has_text="reviewer2 asks for")).to_be_visible(
        timeout=LIVE_TIMEOUT_MS
    )
    # The queue holds both for everyone; reviewer2's own count and title hold one.
    go_to(away, "Reviews")
    expect(away.get_by_test_id("stHeading").filter(has_text="Pending (2)")).to_be_visible()
    shows_waiting(away, 1)
    assert len(notifications(away)) == 1, "nobody is told about their own request"
    for page in (reviewer, away, operator):
        no_exception(page)
