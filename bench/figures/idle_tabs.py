"""Figure 10: idle tabs. What a browser tab left open costs the Streamlit server while nothing
happens, and how soon a change still reaches it.

The real app (`streamlit run app.py`, the filesystem and e-mail demo servers over stdio) with
one review pending; TABS Chromium tabs (one browser context, each tab a Streamlit session of
its own) resting on the Reviews page as a reviewer, then TABS resting on Chat as the operator. For each set the server
process's CPU time (user + system, from /proc, every thread; not its MCP servers, which idle)
is read over a WINDOW-second window and divided by the window and the tabs: the share of one
core each idle tab costs. Then a review is opened from this process on the same SQLite file (as
another replica or a `gatehouse` command would), and the figure times how long until every
resting Reviews tab shows it in both pending counts, the page's and the sidebar's.
"""

from __future__ import annotations

import os
import statistics
import time
from typing import TYPE_CHECKING

from bench.browser_tabs import chromium, cpu_seconds, open_tabs, streamlit_app
from bench.report import Figure, Target
from bench.workspace import Workspace, email_for_review, under_new_ids
from gatehouse.settings import DB_ENV, POLICY_ENV, Settings
from reviews.ledger import ReviewLedger

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from graph.state import ReviewPayload

SECTION = "10 idle tabs"
TABS = 4
WINDOW_SECONDS = 15.0
# Before a window: the tabs' first refreshes after loading are not idle yet.
SETTLE_SECONDS = 3.0
# The live views look for changes every 3 s (gatehouse/web/live_queue.py REFRESH_SECONDS): a
# change shows within one look and the run it starts.
CHANGE_TARGET_SECONDS = 4.0
PER_TAB_TARGET_PERCENT = 1.0


def _open_review(space: Workspace, settings: Settings) -> ReviewPayload:
    """One real paused e-mail (a review pending); returns its payload, to open copies of it."""
    with space.services(settings) as app:
        return email_for_review(app)


def _open_copy(settings: Settings, template: ReviewPayload) -> float:
    """Open a copy of ``template`` under new ids; returns when it was committed (monotonic)."""
    ledger = ReviewLedger(settings.open_database())
    try:
        ledger.open_review(under_new_ids(template))
        return time.monotonic()
    finally:
        ledger.close()


def _app_env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {DB_ENV, POLICY_ENV}}
    env["GATEHOUSE_DATA"] = str(settings.data_dir)
    env["GATEHOUSE_SERVERS"] = str(settings.servers_path)
    return env


def _idle_share(pid: int, tabs: int) -> float:
    """Percent of one core per tab the server spent over WINDOW_SECONDS."""
    time.sleep(SETTLE_SECONDS)
    before, began = cpu_seconds(pid), time.monotonic()
    time.sleep(WINDOW_SECONDS)
    spent, elapsed = cpu_seconds(pid) - before, time.monotonic() - began
    return 100.0 * spent / elapsed / tabs


def _shows_pending(page: Page, count: int) -> None:
    """Wait until both counts show ``count``, looking every 50 ms in the page itself."""
    page.wait_for_function(
        """count => {
            const headings = [...document.querySelectorAll('[data-testid="stHeading"]')];
            const metric = document.querySelector('[data-testid="stSidebar"] [data-testid="stMetricValue"]');
            return headings.some(h => h.innerText.trim() === `Pending (${count})`)
                && metric !== null && metric.innerText.trim() === String(count);
        }""",
        arg=count,
        polling=50,
        timeout=30_000,
    )


def _say(began: float, what: str) -> None:
    print(f"   {time.monotonic() - began:5.1f} s {what}", flush=True)


def run(space: Workspace) -> list[Figure]:
    began = time.monotonic()
    settings = space.demo("filesystem", "email", name="idle")
    template = _open_review(space, settings)
    _say(began, "a review pending")
    with streamlit_app(space.root, _app_env(settings)) as server, chromium() as browser:
        _say(began, "the app answers")
        reviews = open_tabs(browser, f"{server.url}/review_queue?as=reviewer", TABS)
        for page in reviews:
            _shows_pending(page, 1)
        _say(began, f"{TABS} tabs on Reviews")
        on_reviews = _idle_share(server.pid, TABS)
        asked = _open_copy(settings, template)
        seen = []
        for page in reviews:  # in turn: a tab that showed it while another was waited on counts then
            _shows_pending(page, 2)
            seen.append(time.monotonic() - asked)
        reviews[0].context.close()
        open_tabs(browser, f"{server.url}/?as=operator", TABS)
        _say(began, f"{TABS} tabs on Chat")
        on_chat = _idle_share(server.pid, TABS)
    _say(began, "the app stopped")
    scene = (
        f"{TABS} Chromium tabs, each its own browser context, resting for {WINDOW_SECONDS:g} s; "
        "the Streamlit process's CPU time over the window / window / tabs"
    )
    return [
        Figure(
            SECTION,
            "CPU per idle tab on Reviews",
            on_reviews,
            "%",
            Target("<=", PER_TAB_TARGET_PERCENT),
            f"% of one core; {scene}; reviewer tabs on the Reviews page with one review pending and open",
        ),
        Figure(
            SECTION,
            "CPU per idle tab on Chat",
            on_chat,
            "%",
            Target("<=", PER_TAB_TARGET_PERCENT),
            f"% of one core; {scene}; operator tabs on Chat",
        ),
        Figure(
            SECTION,
            "a new review shows in every resting Reviews tab within",
            max(seen),
            "s",
            Target("<=", CHANGE_TARGET_SECONDS),
            f"opened on the same SQLite file from another process; until each of the {TABS} tabs shows it "
            f"in the page's and the sidebar's pending counts (median {statistics.median(seen):.2f} s); the "
            f"views look every 3 s, so one look plus the run it starts",
        ),
    ]


if __name__ == "__main__":  # a quick look without writing results: python -m bench.figures.idle_tabs
    from bench.report import render_line
    from bench.workspace import workspace

    with workspace() as scratch:
        for line in run(scratch):
            print(render_line(line), flush=True)
