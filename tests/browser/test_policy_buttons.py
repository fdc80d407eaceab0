"""The Policy page's buttons in a real browser, in the light and the dark theme: approving a
change ("Approve and apply") reads as the positive action, as Approve does on the Reviews page
(green, never the theme's red, which would make applying look like the dangerous choice);
Reject reads as a distinct one; proposing is not in the theme's red either; every label meets
WCAG AA on its button, as the browser computes the colours; and axe-core finds nothing serious on
the page while a change waits (its diff included) in either theme. The Reviews page's
"Propose as policy change" (a suggested rule) is a forward action too: not in the theme's red.

An admin proposes the change; another admin (four-eyes) meets the buttons."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from gatehouse.settings import Settings
from gatehouse.web.suggestion_panel import PROPOSE_LABEL
from gatehouse.wiring import open_services
from tests.browser.accessibility import expect_accessible
from tests.browser.harness import (
    BROWSER_ZONE,
    VIEWPORT,
    AppServer,
    OpenApp,
    no_exception,
    visit,
    wait_for_app,
)
from tests.browser.layout import THEME_PRIMARY, WCAG_AA, colours, contrast
from tests.reviews.test_suggestions import record

RULE = """
[[rules]]
name = "no e-mail this week"
match = ["email__*"]
action = "deny"
explanation = "e-mail is paused while the mail relay moves"
"""


@pytest.fixture(scope="module")
def proposed(app_server: AppServer) -> None:
    """A change proposed by admin on the app's database, waiting for another admin (the page's
    own Propose is tests/app/test_app_policy.py's)."""
    settings = Settings.resolve(environ={"GATEHOUSE_DATA": str(app_server.data)})
    with open_services(settings) as services:
        text = services.policy_changes.current().text + RULE
        services.policy_changes.propose(text, by="admin", reason="the relay moves")


def button(page: Page, name: str) -> Locator:
    return page.get_by_test_id("stMain").get_by_role("button", name=name, exact=True)


def is_green(rgb: tuple[int, ...]) -> bool:
    return rgb[1] > rgb[0] and rgb[1] > rgb[2]


def is_red(rgb: tuple[int, ...]) -> bool:
    return rgb[0] > rgb[1] and rgb[0] > rgb[2]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_approving_a_change_reads_as_positive_and_every_button_is_readable(
    proposed: None, browser: Browser, app_server: AppServer, scheme: str
) -> None:
    context = browser.new_context(viewport=VIEWPORT, timezone_id=BROWSER_ZONE, color_scheme=scheme)  # type: ignore[arg-type]
    try:
        page = context.new_page()
        visit(page, app_server.page_url("policy?as=admin2"))
        approve, reject, propose = (button(page, n) for n in ("Approve and apply", "Reject", "Propose"))
        for each in (approve, reject, propose):
            expect(each).to_be_enabled()
        approve_background, approve_text = colours(approve)
        reject_background, reject_text = colours(reject)
        propose_background, propose_text = colours(propose)
        assert is_green(approve_background), f"{scheme}: Approve and apply is not green: {approve_background}"
        assert THEME_PRIMARY not in (approve_background, reject_background, propose_background), scheme
        assert reject_background != approve_background and is_red(reject_text), (
            f"{scheme}: Reject does not read as distinct: {reject_background} / {reject_text}"
        )
        for name, (background, text) in {
            "Approve and apply": (approve_background, approve_text),
            "Reject": (reject_background, reject_text),
            "Propose": (propose_background, propose_text),
        }.items():
            assert contrast(background, text) >= WCAG_AA, (
                f"{scheme}: {name}'s label is {contrast(background, text):.2f}:1 ({text} on {background})"
            )
        no_exception(page)
        expect_accessible(page, f"Policy with a change waiting, {scheme} theme")
    finally:
        context.close()


@pytest.fixture(scope="module")
def suggested(app_server: AppServer) -> None:
    """Five e-mails approved unchanged: the Reviews page suggests a rule allowing them."""
    settings = Settings.resolve(environ={"GATEHOUSE_DATA": str(app_server.data)})
    with open_services(settings, connect_servers=False) as services:
        for n in range(5):
            record(services.ledger, "email__send_email", {"to": f"u{n}@example.com"})


def test_proposing_a_suggested_rule_on_the_reviews_page_is_not_in_the_themes_red(
    suggested: None, open_app: OpenApp
) -> None:
    page = open_app("reviews?as=admin")
    propose = button(page, PROPOSE_LABEL)
    expect(propose).to_be_enabled()
    background, text = colours(propose)
    assert background != THEME_PRIMARY and contrast(background, text) >= WCAG_AA, (background, text)
    no_exception(page)


def test_the_other_admin_applies_the_change(proposed: None, open_app: OpenApp) -> None:
    """Last: the green button does what it says (and the module leaves nothing waiting)."""
    page = open_app("policy?as=admin2")
    button(page, "Approve and apply").click()
    expect(page.get_by_text(re.compile(r"applied as version 2"))).to_be_visible()
    wait_for_app(page)
    no_exception(page)
