"""The app in a real browser: the first screen, the local-mode identity picker, and Chat at
its own address (/chat) as well as at the root."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from playwright.sync_api import expect

from gatehouse.web.short_ids import short_thread
from gatehouse.web.waiting_on_you import LABEL as WAITING_LABEL
from tests.browser.harness import (
    AppServer,
    OpenApp,
    new_thread,
    no_exception,
    pick_identity,
    screenshot,
    selectbox,
    send_chat,
    sidebar,
)

FIRST, SECOND = "List the files in the managed project folder.", "Write a short poem about the sea."


def test_the_chat_page_opens_in_local_mode_and_the_identity_can_be_switched(
    open_app: OpenApp, artifacts: Path
) -> None:
    page = open_app()

    expect(page.get_by_test_id("stHeading").filter(has_text="Chat")).to_be_visible()
    expect(sidebar(page).get_by_text("Local mode", exact=False)).to_be_visible()
    # An operator decides no review: no count of reviews waiting on them.
    waiting = sidebar(page).get_by_test_id("stMetric").filter(has_text=WAITING_LABEL)
    expect(waiting).to_have_count(0)
    identity = selectbox(page, "You are", within=sidebar(page))
    expect(identity).to_have_value("operator")
    no_exception(page)
    assert screenshot(page, "chat-empty") == artifacts / "chat-empty.png"

    pick_identity(page, "reviewer")

    expect(identity).to_have_value("reviewer")
    expect(sidebar(page).get_by_text("Role: reviewer", exact=True)).to_be_visible()
    expect(waiting.get_by_test_id("stMetricValue")).to_have_text("0")
    no_exception(page)


def thread_of(data: Path, request: str) -> str:
    """The thread the operator sent ``request`` in, as the database holds it."""
    with sqlite3.connect(f"file:{data / 'gatehouse.db'}?mode=ro", uri=True) as db:
        [(thread,)] = db.execute(
            "SELECT DISTINCT thread_id FROM conversation_messages WHERE role = 'operator' AND body LIKE ?",
            (f"%{request}%",),
        ).fetchall()
    return str(thread)


def test_chat_opens_at_chat_too_with_the_thread_its_link_names_and_is_listed_once(
    app_server: AppServer, open_app: OpenApp
) -> None:
    operator = open_app()
    new_thread(operator)
    send_chat(operator, FIRST)
    new_thread(operator)
    send_chat(operator, SECOND)  # the latest thread: the one a new session would reopen
    operator.context.close()
    first = short_thread(thread_of(app_server.data, FIRST))

    page = open_app(f"chat?as=operator&thread={first}")

    expect(page.get_by_text("Page not found")).to_have_count(0)
    expect(page.get_by_role("heading", level=1)).to_have_text("Chat")
    messages = page.get_by_test_id("stChatMessage")
    expect(messages.filter(has_text=FIRST)).to_have_count(1)
    expect(messages.filter(has_text=SECOND)).to_have_count(0)
    expect(page).to_have_url(re.compile(rf"/chat\?(.*&)?thread={first}(&|$)"))
    # One Chat in the navigation: the address is an alias, not a second page.
    navigation = sidebar(page).get_by_test_id("stSidebarNav")
    expect(navigation.get_by_role("link", name="Chat", exact=True)).to_have_count(1)
    no_exception(page)
