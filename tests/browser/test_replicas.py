"""Two `streamlit run` processes on one PostgreSQL database are replicas: the same queue, and a
review approved in one shows as decided in the other."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.backends import postgres_schema
from tests.browser.harness import (
    AppServer,
    approve_the_one_pending_review,
    expect_waiting_for_a_reviewer,
    go_to,
    new_page,
    no_exception,
    pick_identity,
    running_app,
    send_chat,
    visit,
)

EMAIL = "Send an email to bob@example.com saying hi from replica one"
# A replica sees the other's decision on its next run; the pending count refreshes every 5 s.
REFRESH_TIMEOUT_MS = 20_000


@pytest.fixture
def two_replicas(tmp_path: Path) -> Iterator[tuple[AppServer, AppServer]]:
    # Each replica has its own data folder (its own demo servers and MCP session pool); only
    # the database is shared.
    with (
        postgres_schema() as url,
        running_app(tmp_path / "one", db_url=url) as one,
        running_app(tmp_path / "two", db_url=url) as two,
    ):
        yield one, two


def _open(browser: Browser, server: AppServer, pages: list[Page]) -> Page:
    page = new_page(browser)
    pages.append(page)
    visit(page, server.page_url())
    return page


def test_a_review_asked_on_one_replica_is_approved_on_the_other_and_shows_decided_on_both(
    browser: Browser, two_replicas: tuple[AppServer, AppServer]
) -> None:
    one, two = two_replicas
    pages: list[Page] = []
    try:
        operator = _open(browser, one, pages)
        send_chat(operator, EMAIL)
        expect_waiting_for_a_reviewer(operator)

        watcher = _open(browser, one, pages)
        pick_identity(watcher, "reviewer2")
        go_to(watcher, "Reviews")
        expect(watcher.get_by_text("Pending (1)")).to_be_visible()

        reviewer = _open(browser, two, pages)
        approve_the_one_pending_review(reviewer, EMAIL)  # the same queue: Pending (1)

        # Replica one: its pending count drops by itself; a rerun of its queue shows the decision.
        sidebar_count = watcher.get_by_test_id("stSidebar").get_by_test_id("stMetricValue")
        expect(sidebar_count).to_have_text("0", timeout=REFRESH_TIMEOUT_MS)
        go_to(watcher, "Traces")
        go_to(watcher, "Reviews")
        expect(watcher.get_by_text("Pending (0)")).to_be_visible()
        expect(watcher.get_by_text("Decided (1)")).to_be_visible()
        # The operator on replica one sees the result the other replica's approval produced.
        expect(operator.get_by_test_id("stChatMessage").last.get_by_text("done")).to_be_visible(
            timeout=REFRESH_TIMEOUT_MS
        )
        for page in pages:
            no_exception(page)
    finally:
        for page in pages:
            page.context.close()
