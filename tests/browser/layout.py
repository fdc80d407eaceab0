"""What the layout and colour checks of the browser tests share: the two screens a review must
fit (a laptop's and a phone's), the Reviews page opened at one of them, the decision's buttons,
where an element is drawn and whether it is on the first screen, and colours as the browser
computes them with their WCAG contrast (tests/browser/test_review_layout.py,
tests/browser/test_sampling_layout.py, tests/browser/test_policy_buttons.py)."""

from __future__ import annotations

import re
import time

from playwright.sync_api import Browser, Locator, Page, ViewportSize, expect

from gatehouse.web.decision_style import MESSAGES_KEY, PREVIEW_KEY
from tests.browser.harness import (
    ACTION_TIMEOUT_MS,
    BROWSER_ZONE,
    RUN_TIMEOUT_MS,
    AppServer,
    selectbox,
    visit,
    wait_for_app,
)

LAPTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}
# The theme's primary colour (Streamlit's red): approving must not wear it.
THEME_PRIMARY = (255, 75, 75)
WCAG_AA = 4.5
# The boxes that scroll by themselves (a preview, a request's messages): not the page scrolling.
SCROLL_BOXES = f'[class*="st-key-{PREVIEW_KEY}"], [class*="st-key-{MESSAGES_KEY}"]'


def reviews_at(browser: Browser, app_server: AppServer, size: ViewportSize, user: str = "reviewer") -> Page:
    """The Reviews page as ``user`` in a new context of ``size`` (on a phone the sidebar is
    folded, so the name comes with the address, as a link or a reload keeps it)."""
    context = browser.new_context(viewport=size, timezone_id=BROWSER_ZONE)
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    page = context.new_page()
    visit(page, f"{app_server.page_url('review_queue')}?as={user}")
    # Streamlit loads a widget's code when it first draws one: wait for the real ones (their
    # placeholders have other sizes), then for the run.
    expect(selectbox(page, "Open review")).to_be_visible(timeout=RUN_TIMEOUT_MS)
    wait_for_app(page)
    return page


def approve_button(page: Page) -> Locator:
    return page.get_by_test_id("stMain").get_by_role("button", name=re.compile(r"^Approve"))


def reject_button(page: Page) -> Locator:
    return page.get_by_test_id("stMain").get_by_role("button", name=re.compile(r"^Reject"))


def preview(page: Page) -> Locator:
    return page.locator(f'[class*="st-key-{PREVIEW_KEY}"]')


def messages_box(page: Page) -> Locator:
    return page.locator(f'[class*="st-key-{MESSAGES_KEY}"]')


def box(element: Locator) -> dict[str, float]:
    found = element.bounding_box()
    assert found is not None, "not drawn"
    return {"x": found["x"], "y": found["y"], "width": found["width"], "height": found["height"]}


def settle(page: Page, *elements: Locator, timeout_s: float = 10.0) -> None:
    """Wait until the elements stop moving: Streamlit loads each kind of widget's code the first
    time a browser draws one, and until it has, a placeholder of another size stands in, so a
    box measured in that moment is not where the person sees it (under load it lasted long
    enough to fail a layout check in CI). Measured twice 250 ms apart, the same both times."""
    deadline = time.monotonic() + timeout_s
    last: list[dict[str, float]] = []
    while time.monotonic() < deadline:
        now = [box(element) for element in elements]
        if now == last:
            return
        last = now
        page.wait_for_timeout(250)
    raise AssertionError(f"the layout kept moving for {timeout_s:g} s: {last}")


def on_screen(page: Page, element: Locator) -> bool:
    """The whole element is inside the window, as it stands (nothing scrolled)."""
    size = page.viewport_size
    assert size is not None
    place = box(element)
    return (
        place["y"] >= 0
        and place["y"] + place["height"] <= size["height"]
        and place["x"] >= 0
        and place["x"] + place["width"] <= size["width"]
    )


def scrolled(page: Page) -> float:
    """How far the page's own scrolling container is scrolled (Streamlit scrolls stMain), the
    boxes that scroll by themselves (SCROLL_BOXES) left out."""
    return float(
        page.evaluate(
            """boxes => Math.max(window.scrollY, ...Array.from(document.querySelectorAll('*'))
                .filter(e => e.scrollHeight > e.clientHeight && getComputedStyle(e).overflowY !== 'visible')
                .filter(e => !e.closest(boxes))
                .map(e => e.scrollTop))""",
            SCROLL_BOXES,
        )
    )


# -- colours, measured as the browser draws them ------------------------------------------------


def colours(button: Locator) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The button's background and its label's text colour, as the browser computes them."""
    found = button.evaluate(
        """b => {
            const label = b.querySelector('p') || b;
            return [getComputedStyle(b).backgroundColor, getComputedStyle(label).color];
        }"""
    )
    background, text = (tuple(int(n) for n in re.findall(r"\d+", value)[:3]) for value in found)
    return background, text


def luminance(rgb: tuple[int, ...]) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: tuple[int, ...], other: tuple[int, ...]) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)
