"""The decision sits next to what is decided, in a real browser: on a laptop (1280x800) and on
a phone (390x844) the preview and both buttons are on the first screen once a review is open,
without scrolling; why you may not decide shows before the proposal, and no button does; a long
diff scrolls inside its own box; Approve reads as the positive action (green) and Reject as a
distinct one, both readable (WCAG AA); one key each decides; and while an approved call runs
the buttons are disabled and the page says what runs, so a second click decides nothing.

The held call is tests/held_server.py's mail server, answering only once the test lets it.
Each test leaves no review pending, so the next one opens its own."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, ViewportSize, expect

from tests.browser.harness import (
    ACTION_TIMEOUT_MS,
    BROWSER_ZONE,
    RUN_TIMEOUT_MS,
    AppServer,
    OpenApp,
    new_thread,
    no_exception,
    reviewer_on_reviews,
    running_app,
    selectbox,
    send_chat,
    visit,
    wait_for_app,
)
from tests.held_server import Hold, entry

LAPTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}
# The theme's primary colour (Streamlit's red): approving must not wear it.
THEME_PRIMARY = (255, 75, 75)
WCAG_AA = 4.5
# The preview box's bound (gatehouse/web/decision_style.py: 38% of the window), with a margin.
PREVIEW_SHARE = 0.40
LONG_LINE = "a line of the long notes file " * 80


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The file that lets the held mail server answer; created at the latest when the module
    ends, so no call is left waiting for it."""
    path = tmp_path_factory.mktemp("held") / "release"
    try:
        yield path
    finally:
        path.touch()


@pytest.fixture(scope="module")
def effects(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the held mail server writes one line per message it sends."""
    return tmp_path_factory.mktemp("effects") / "sent.jsonl"


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory, release: Path, effects: Path) -> Iterator[AppServer]:
    """The app with the demo servers and the held mail server (this module's own app)."""
    held = entry("mail", Hold(release=release), effects=effects)
    with running_app(tmp_path_factory.mktemp("gatehouse-app"), extra_servers={"slowmail": held}) as server:
        yield server


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
    return page.locator('[class*="st-key-effect-preview-"]')


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
    """How far the page's own scrolling container is scrolled (Streamlit scrolls stMain)."""
    return float(
        page.evaluate(
            """() => Math.max(window.scrollY, ...Array.from(document.querySelectorAll('*'))
                .filter(e => e.scrollHeight > e.clientHeight && getComputedStyle(e).overflowY !== 'visible')
                .filter(e => !e.closest('[class*="st-key-effect-preview-"]'))
                .map(e => e.scrollTop))"""
        )
    )


def reject(page: Page, reason: str) -> None:
    expect(reject_button(page)).to_be_enabled(timeout=RUN_TIMEOUT_MS)
    page.get_by_role("textbox", name=re.compile(r"^Reason")).fill(reason)
    page.get_by_role("textbox", name=re.compile(r"^Reason")).press("Enter")
    wait_for_app(page)
    reject_button(page).click()
    expect(page.get_by_text(re.compile(r"Outcome: rejected"))).to_be_visible()
    wait_for_app(page)


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


def test_on_a_laptop_and_a_phone_the_preview_and_both_buttons_share_the_first_screen(
    browser: Browser, app_server: AppServer, open_app: OpenApp
) -> None:
    operator = open_app()
    new_thread(operator)
    send_chat(operator, "Send an email to bob@example.com saying see you at noon")
    for size in (LAPTOP, PHONE):
        reviewer = reviews_at(browser, app_server, size)
        try:
            approve, reject_ = approve_button(reviewer), reject_button(reviewer)
            expect(approve).to_be_visible(timeout=RUN_TIMEOUT_MS)
            expect(reviewer.get_by_text("To: bob@example.com")).to_be_visible()
            wait_for_app(reviewer)
            assert scrolled(reviewer) == 0
            sent_to = preview(reviewer).get_by_text("To: bob@example.com")
            settle(reviewer, sent_to, approve, reject_)
            assert on_screen(reviewer, sent_to), (
                f"{size}: the preview is off the first screen at {box(sent_to)}"
            )
            assert on_screen(reviewer, approve), f"{size}: Approve is off the first screen at {box(approve)}"
            assert on_screen(reviewer, reject_), f"{size}: Reject is off the first screen at {box(reject_)}"
            # With the focus on Approve, the preview is still there to read.
            approve.focus()
            assert on_screen(reviewer, sent_to)
            # What else a reviewer checks is on the page, below: the flags, the rule, the ids.
            expect(reviewer.get_by_text(re.compile(r"^Validation flags"))).to_have_count(1)
            expect(reviewer.get_by_text("Details: full ids and link")).to_have_count(1)
            no_exception(reviewer)
        finally:
            reviewer.context.close()

    reviewer = reviews_at(browser, app_server, LAPTOP)
    try:
        # Approving reads as the positive action, rejecting as another; neither in the theme's red.
        approve, reject_ = approve_button(reviewer), reject_button(reviewer)
        expect(approve).to_be_enabled(timeout=RUN_TIMEOUT_MS)
        approve_background, approve_text = colours(approve)
        reject_background, reject_text = colours(reject_)
        green = approve_background
        assert green[1] > green[0] and green[1] > green[2], f"Approve is not green: {green}"
        assert approve_background != THEME_PRIMARY and reject_background != THEME_PRIMARY
        assert reject_background != approve_background
        assert reject_text[0] > reject_text[1] and reject_text[0] > reject_text[2], (
            f"Reject is not red: {reject_text}"
        )
        assert contrast(approve_background, approve_text) >= WCAG_AA
        assert contrast(reject_background, reject_text) >= WCAG_AA
        reject(reviewer, "not today")
    finally:
        reviewer.context.close()


def test_who_may_not_decide_reads_why_before_the_proposal_and_gets_no_button(
    browser: Browser, app_server: AppServer, open_app: OpenApp
) -> None:
    # The reviewer asks, so four-eyes keeps them from deciding their own request.
    chat = open_app()
    visit(chat, f"{app_server.page_url()}?as=reviewer")
    new_thread(chat)
    send_chat(chat, "Send an email to bob@example.com saying my own request")
    asker = reviews_at(browser, app_server, LAPTOP)
    try:
        why = asker.get_by_test_id("stAlert").filter(has_text="You cannot decide this review")
        expect(why).to_contain_text("four-eyes")
        expect(preview(asker).get_by_text("To: bob@example.com")).to_be_visible()
        assert on_screen(asker, why)
        assert box(why)["y"] < box(preview(asker))["y"]
        expect(approve_button(asker)).to_have_count(0)
        expect(reject_button(asker)).to_have_count(0)
        no_exception(asker)
    finally:
        asker.context.close()
    other = reviewer_on_reviews(open_app, "reviewer2")
    reject(other, "asked by a reviewer")


def test_a_long_diff_scrolls_inside_its_own_box_under_the_buttons_reach(
    browser: Browser, app_server: AppServer, open_app: OpenApp
) -> None:
    operator = open_app()
    new_thread(operator)
    send_chat(operator, f'Write "{LONG_LINE}" to the file notes/long.md')
    reviewer = reviews_at(browser, app_server, LAPTOP)
    try:
        diff = preview(reviewer)
        expect(diff.get_by_test_id("stCode")).to_be_visible(timeout=RUN_TIMEOUT_MS)
        expect(approve_button(reviewer)).to_be_visible(timeout=RUN_TIMEOUT_MS)
        wait_for_app(reviewer)
        place = box(diff)
        assert place["height"] <= PREVIEW_SHARE * LAPTOP["height"], place
        assert diff.evaluate("e => e.scrollHeight > e.clientHeight + 50"), (
            "the diff is not longer than its box"
        )
        assert on_screen(reviewer, approve_button(reviewer))
        reject(reviewer, "too long")
    finally:
        reviewer.context.close()


def test_a_key_approves_and_another_rejects_but_not_while_typing(
    app_server: AppServer, open_app: OpenApp
) -> None:
    operator = open_app()
    new_thread(operator)
    send_chat(operator, "Send an email to bob@example.com saying by key")
    reviewer = reviewer_on_reviews(open_app)
    reason = reviewer.get_by_role("textbox", name=re.compile(r"^Reason"))
    expect(reason).to_be_visible(timeout=RUN_TIMEOUT_MS)
    wait_for_app(reviewer)
    # Typing an "a" or an "x" in a field decides nothing.
    reason.press_sequentially("ax")
    wait_for_app(reviewer)
    expect(approve_button(reviewer)).to_be_enabled()
    reason.fill("")
    reason.press("Enter")
    wait_for_app(reviewer)
    reason.blur()
    reviewer.keyboard.press("a")
    expect(reviewer.get_by_text(re.compile(r"Outcome: ok"))).to_be_visible()
    wait_for_app(reviewer)

    new_thread(operator)
    send_chat(operator, "Send an email to bob@example.com saying rejected by key")
    expect(reviewer.get_by_text("rejected by key").first).to_be_visible(timeout=20_000)
    wait_for_app(reviewer)
    reason.fill("not by key")
    reason.press("Enter")
    wait_for_app(reviewer)
    reason.blur()
    reviewer.keyboard.press("x")
    expect(reviewer.get_by_text(re.compile(r"Outcome: rejected"))).to_be_visible()
    no_exception(reviewer)


def test_while_an_approved_call_runs_the_buttons_are_disabled_and_say_what_runs(
    app_server: AppServer, open_app: OpenApp, release: Path, effects: Path
) -> None:
    operator = open_app()
    new_thread(operator)
    send_chat(operator, "Send a message to bob@example.com saying held")
    reviewer = reviewer_on_reviews(open_app)
    expect(reviewer.get_by_text("Send a message to bob@example.com saying held").first).to_be_visible()
    expect(approve_button(reviewer)).to_be_enabled(timeout=RUN_TIMEOUT_MS)
    wait_for_app(reviewer)
    approve_button(reviewer).click()

    # While the held call runs: what runs, and no live button.
    expect(reviewer.get_by_text(re.compile(r"running send_message"))).to_be_visible()
    expect(approve_button(reviewer)).to_be_disabled()
    expect(reject_button(reviewer)).to_be_disabled()
    expect(reviewer.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "running")
    # A second click, or the key, decides nothing more.
    approve_button(reviewer).click(force=True)
    reviewer.keyboard.press("a")
    release.touch()

    expect(reviewer.get_by_text(re.compile(r"Outcome: ok"))).to_be_visible()
    wait_for_app(reviewer)
    no_exception(reviewer)
    sent = [json.loads(line) for line in effects.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert [message["body"] for message in sent] == ["held"]
