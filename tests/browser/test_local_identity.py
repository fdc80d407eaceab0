"""Local mode: the person picked in the sidebar is still picked in a new tab of the same browser
(a cookie of the app's origin), never in another browser (a context of its own, no cookie), and
a remembered name that is not in the policy's roster is ignored."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from gatehouse.credentials.local_identity import COOKIE
from tests.browser.harness import (
    AppServer,
    OpenApp,
    no_exception,
    pick_identity,
    selectbox,
    sidebar,
    visit,
)


def shows_identity(page: Page, name: str, role: str) -> None:
    expect(selectbox(page, "You are", within=sidebar(page))).to_have_value(name)
    expect(sidebar(page).get_by_text(re.compile(r"^Role: "))).to_have_text(f"Role: {role}")
    no_exception(page)


def test_a_new_tab_at_the_bare_address_keeps_the_identity_picked_in_another_tab(
    app_server: AppServer, open_app: OpenApp
) -> None:
    first = open_app()
    pick_identity(first, "reviewer")

    # Typed into a new tab: no ?as= in the address, only what the browser keeps for the origin.
    second = first.context.new_page()
    visit(second, app_server.page_url())
    assert "as=" not in app_server.page_url()
    shows_identity(second, "reviewer", "reviewer")

    [cookie] = [c for c in first.context.cookies() if c["name"] == COOKIE]
    assert cookie["value"] == "reviewer"
    assert cookie["sameSite"] == "Strict"
    assert cookie["path"] == "/"
    assert cookie["expires"] > 0  # kept across browser restarts, not only for this one

    # Changing it in one tab is what the next new tab starts with.
    pick_identity(second, "admin")
    third = first.context.new_page()
    visit(third, app_server.page_url("review_queue"))
    shows_identity(third, "admin", "admin")


def test_another_browser_starts_as_the_default_whatever_was_picked_elsewhere(
    app_server: AppServer, open_app: OpenApp
) -> None:
    picked = open_app()
    pick_identity(picked, "reviewer2")

    fresh = open_app()

    assert not [c for c in fresh.context.cookies() if c["name"] == COOKIE]
    shows_identity(fresh, "operator", "operator")


def test_a_remembered_name_outside_the_roster_is_ignored(app_server: AppServer, open_app: OpenApp) -> None:
    page = open_app()
    page.context.add_cookies([{"name": COOKIE, "value": "mallory", "url": app_server.url}])

    visit(page, app_server.page_url())

    shows_identity(page, "operator", "operator")


def test_a_link_with_a_name_wins_over_the_remembered_one(app_server: AppServer, open_app: OpenApp) -> None:
    page = open_app()
    pick_identity(page, "reviewer")

    visit(page, app_server.page_url("?as=admin"))

    shows_identity(page, "admin", "admin")
