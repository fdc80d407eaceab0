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
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.harness import (
    RUN_TIMEOUT_MS,
    AppServer,
    OpenApp,
    new_thread,
    no_exception,
    reviewer_on_reviews,
    running_app,
    send_chat,
    visit,
    wait_for_app,
)
from tests.browser.layout import (
    LAPTOP,
    PHONE,
    THEME_PRIMARY,
    WCAG_AA,
    approve_button,
    box,
    colours,
    contrast,
    on_screen,
    preview,
    reject_button,
    reviews_at,
    scrolled,
    settle,
)
from tests.held_server import Hold, entry

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


def reject(page: Page, reason: str) -> None:
    expect(reject_button(page)).to_be_enabled(timeout=RUN_TIMEOUT_MS)
    page.get_by_role("textbox", name=re.compile(r"^Reason")).fill(reason)
    page.get_by_role("textbox", name=re.compile(r"^Reason")).press("Enter")
    wait_for_app(page)
    reject_button(page).click()
    expect(page.get_by_text(re.compile(r"Outcome: rejected"))).to_be_visible()
    wait_for_app(page)


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
