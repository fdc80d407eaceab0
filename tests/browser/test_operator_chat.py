"""The operator's chat in Chromium (issue 32, items 9 to 11): a message sent right after "New
thread" is filed under the new thread; a file's content is asked for in a text area whose lines
reach the server as typed; the chat speaks the operator's words (no review where none exists,
a choice as options, a result shown once, when a waiting request expires).

The app runs the demo filesystem and e-mail servers and the tickets server over stdio; the
choice test starts a second app with the filesystem server configured twice.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.harness import (
    BROWSER_ZONE,
    BROWSER_ZONE_NAME,
    RUN_TIMEOUT_MS,
    AppServer,
    OpenApp,
    chat_input,
    new_page,
    new_thread,
    no_exception,
    reviewer_on_reviews,
    running_app,
    send_chat,
    visit,
    wait_for_app,
)
from tests.support import wait_until

LIST = "List the files in the managed project folder."
WRITE = "Write a file named todo.md"
LINES = ["# To do", "", "- first line", "- second   line, with  spaces"]
TICKETS = "Show the open tickets with high priority"
# How often the test clicks New thread and sends at once: the failure it guards against was
# seen about twice in fifteen tries before the fix (a browser a step behind the server).
TRIES = 6


def _server(name: str, demo: Path) -> dict[str, object]:
    return {"command": sys.executable, "args": ["-m", f"servers.{name}", "--data-dir", str(demo)]}


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    folder = tmp_path_factory.mktemp("gatehouse-app")
    with running_app(
        folder, extra_servers={"tickets": _server("tickets", folder / "data" / "demo")}
    ) as server:
        yield server


def database(data: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{data / 'gatehouse.db'}?mode=ro", uri=True)


def requests_by_thread(data: Path) -> dict[str, list[str]]:
    """Each thread's operator messages, in order, as the database holds them."""
    with database(data) as db:
        rows = db.execute(
            "SELECT thread_id, body FROM conversation_messages WHERE role = 'operator' ORDER BY thread_id, seq"
        ).fetchall()
    found: dict[str, list[str]] = {}
    for thread, body in rows:
        found.setdefault(thread, []).append(json.loads(body).get("text"))
    return found


def answers(data: Path) -> int:
    with database(data) as db:
        [(count,)] = db.execute(
            "SELECT COUNT(*) FROM conversation_messages WHERE role = 'gatehouse'"
        ).fetchall()
    return int(count)


def test_a_message_sent_right_after_new_thread_lands_in_the_new_thread(
    app_server: AppServer, open_app: OpenApp
) -> None:
    page = open_app()
    send_chat(page, LIST)
    last = next(iter(requests_by_thread(app_server.data)))
    for attempt in range(TRIES):
        before = requests_by_thread(app_server.data)
        answered = answers(app_server.data)
        # No wait between the click and the message: the browser may still hold the previous
        # thread's page (its picker on that thread) when the message leaves it, and the click's
        # run may not have begun on the server (.streamlit/config.toml: runner.fastReruns).
        page.get_by_role("button", name="New thread").click()
        chat_input(page).fill(LIST)
        chat_input(page).press("Enter")
        wait_until(lambda: answers(app_server.data) > answered, timeout=60, what="the answer")  # noqa: B023
        wait_for_app(page)

        after = requests_by_thread(app_server.data)
        changed = {thread for thread, texts in after.items() if before.get(thread) != texts}
        assert len(changed) == 1, f"try {attempt}: more than one thread changed: {changed}"
        [thread] = changed
        assert thread not in before, (
            f"try {attempt}: the message went to an earlier thread {thread} ({before.get(thread)}); "
            f"the last one before: {last}"
        )
        last = thread
        assert after[thread] == [LIST]
        expect(page.get_by_test_id("stChatMessage")).to_have_count(2)
    no_exception(page)


def test_file_content_is_typed_in_a_text_area_and_its_lines_are_what_the_server_writes(
    app_server: AppServer, open_app: OpenApp
) -> None:
    operator = open_app()
    new_thread(operator)
    send_chat(operator, WRITE)
    question = operator.get_by_test_id("stChatMessage").last
    expect(question.get_by_text("needs your answer", exact=True)).to_be_visible()
    # A question to the operator opens no review: nothing on it speaks of one.
    expect(question).not_to_contain_text(re.compile(r"review|flag\(s\)", re.IGNORECASE))

    content = operator.get_by_role("textbox", name="content")
    expect(content).to_have_js_property("tagName", "TEXTAREA")
    content.click()
    for number, line in enumerate(LINES):
        if number:
            content.press("Enter")  # in a text area, a new line, not the form's submit
        content.press_sequentially(line)
    operator.get_by_role("button", name="Answer").click()
    waiting = operator.get_by_test_id("stChatMessage").last
    expect(waiting.get_by_text("waiting for a reviewer")).to_be_visible(timeout=RUN_TIMEOUT_MS)

    # When it expires, in the browser's zone.
    with database(app_server.data) as db:
        [(expires_at,)] = db.execute("SELECT expires_at FROM reviews WHERE status = 'pending'").fetchall()
    local = datetime.fromisoformat(expires_at).astimezone(ZoneInfo(BROWSER_ZONE))
    # Past the reader's midnight the day is named too ("29 Nov, 00:10 JST"): the clock, in the
    # browser's zone, is what this checks, whatever hour the suite runs at.
    day = rf"({local.day} {local:%b}, )?"
    expect(waiting).to_contain_text(
        re.compile(
            rf"If no reviewer decides by {day}{local:%H:%M} {BROWSER_ZONE_NAME}, "
            r"the request expires and nothing runs\."
        )
    )

    reviewer = reviewer_on_reviews(open_app)
    reviewer.get_by_role("button", name="Approve", exact=True).click()
    done = operator.get_by_test_id("stChatMessage").last
    expect(done.get_by_text("done", exact=True)).to_be_visible(timeout=RUN_TIMEOUT_MS)
    written = app_server.data / "demo" / "project" / "todo.md"
    assert written.read_text(encoding="utf-8") == "\n".join(LINES)
    no_exception(operator)


def test_a_result_with_records_shows_them_once_as_a_table(app_server: AppServer, open_app: OpenApp) -> None:
    page = open_app()
    new_thread(page)
    send_chat(page, TICKETS)

    answer = page.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("done", exact=True)).to_be_visible()
    expect(answer.get_by_test_id("stDataFrame").first).to_be_visible()
    # The records are in the table; the same records as JSON text would be a second copy.
    expect(answer.get_by_test_id("stText").filter(has_text='"priority"')).to_have_count(0)
    expect(answer).not_to_contain_text(re.compile(r"\((s|es)\)"))
    no_exception(page)


@pytest.fixture
def mirrored_app(tmp_path: Path) -> Iterator[AppServer]:
    """The app with the filesystem server configured twice: a listing fits both equally well."""
    with running_app(
        tmp_path, extra_servers={"mirror": _server("filesystem", tmp_path / "data" / "demo")}
    ) as app:
        yield app


def test_a_choice_reads_as_options_to_pick_none_shown_as_chosen(
    browser: Browser, mirrored_app: AppServer
) -> None:
    page: Page = new_page(browser)
    visit(page, mirrored_app.page_url())
    send_chat(page, LIST)

    answer = page.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("needs your answer", exact=True)).to_be_visible()
    expect(
        answer.get_by_text("2 capabilities fit this request about equally well. Which one do you mean?")
    ).to_be_visible()
    # No capability shown as the one chosen.
    expect(answer).not_to_contain_text(re.compile(r"(filesystem|mirror) · tool · list_directory"))
    expect(answer).not_to_contain_text(re.compile(r"review|flag\(s\)", re.IGNORECASE))
    expect(page.get_by_text("Pick the one you mean:")).to_be_visible()
    options = page.get_by_role("button", name=re.compile(r"^List directory"))
    expect(options).to_have_count(2)

    options.last.click()
    done = page.get_by_test_id("stChatMessage").last
    expect(done.get_by_text("done", exact=True)).to_be_visible(timeout=RUN_TIMEOUT_MS)
    wait_for_app(page)
    no_exception(page)
