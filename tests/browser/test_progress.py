"""Progress, in a real browser: the operator's message shows at once, and each step of the graph
as it completes, while the request runs; the answer ends it.

The run is held open by a read-only server whose tool answers only once the test creates its
release file (tests/held_server.py): the test looks at the page while the call is under way,
not after a guessed pause.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.harness import (
    AppServer,
    OpenApp,
    chat_input,
    no_exception,
    running_app,
    wait_for_app,
)
from tests.held_server import Hold, entry

REQUEST = "Get the weather forecast with city=Paris"
ANSWER = "Forecast for Paris: sunny, 21 degrees."
# What the page says for each step before the held call (views/chat.py's labels), in order.
STEPS_BEFORE_THE_CALL = [
    "Read the request",
    "Decided whether a server is needed",
    "Asked the servers what they offer",
    "Chose a capability",
    "Checked it against the policy",
    "Prepared the call",
]
CALLED = "Called the server"


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory, release: Path) -> Iterator[AppServer]:
    """The app with the demo servers and the held one (this module's own server)."""
    held = entry("forecast", Hold(release=release))
    with running_app(tmp_path_factory.mktemp("gatehouse-app"), extra_servers={"almanac": held}) as server:
        yield server


def test_the_message_and_each_step_show_while_the_request_runs_then_the_answer(
    app_server: AppServer, open_app: OpenApp, release: Path
) -> None:
    page = open_app()
    messages = page.get_by_test_id("stChatMessage")

    chat_input(page).fill(REQUEST)
    chat_input(page).press("Enter")

    # At once: the message, and a status that fills in step by step while the call is held.
    expect(messages.filter(has_text=REQUEST)).to_be_visible()
    progress = page.get_by_test_id("stExpander").filter(has_text="Working on your request")
    expect(progress).to_be_visible()
    expect(progress.get_by_text(STEPS_BEFORE_THE_CALL[-1], exact=True)).to_be_visible()
    shown = [line.strip() for line in progress.inner_text().splitlines() if line.strip()]
    assert [line for line in shown if line in STEPS_BEFORE_THE_CALL] == STEPS_BEFORE_THE_CALL
    # The call has not completed, so neither its step nor the answer is there, and the run goes on.
    expect(progress.get_by_text(CALLED, exact=True)).to_have_count(0)
    expect(page.get_by_text(ANSWER)).to_have_count(0)
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "running")

    release.touch()

    # The answer ends it: the page is redrawn from the stored conversation, without the status.
    answer = messages.last
    # Exactly the answer's text: the raw result's JSON (behind its expander) quotes it too.
    expect(answer.get_by_text(ANSWER, exact=True)).to_be_visible()
    expect(answer.get_by_text("done", exact=True)).to_be_visible()
    wait_for_app(page)
    expect(progress).to_have_count(0)
    expect(messages.filter(has_text=REQUEST)).to_have_count(1)
    expect(chat_input(page)).to_be_enabled()
    no_exception(page)
