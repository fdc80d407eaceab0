"""A server's question during a call, in a real browser: the operator's chat shows it as a form
built from the server's schema, with its defaults, while the call waits; the operator's answer
goes to the call, and the answer the tool gives with it shows in the chat. With two replicas on
one PostgreSQL database, the operator answers on the other replica's page.

The server is tests/questions_server.py: ``get_forecast`` asks for units, days and alerts, and
answers with what it was told.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.backends import postgres_schema
from tests.browser.harness import (
    AppServer,
    OpenApp,
    chat_input,
    choose,
    new_page,
    new_thread,
    no_exception,
    running_app,
    selectbox,
    visit,
    wait_for_app,
)
from tests.questions_server import FORM_MESSAGE, entry

FORECAST = "Get the weather forecast with city=Paris"
# The page that did not start the request looks for questions every few seconds.
FOLLOW_TIMEOUT_MS = 20_000


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    """The app with the demo servers and the asking one."""
    with running_app(
        tmp_path_factory.mktemp("gatehouse-app"), extra_servers={"almanac": entry("form")}
    ) as server:
        yield server


def ask_for_the_forecast(page: Page) -> None:
    chat_input(page).fill(FORECAST)
    chat_input(page).press("Enter")


def the_question(page: Page, timeout: float | None = None) -> Locator:
    """The question's box, once it shows."""
    # The box is the container keyed question-<id>-box; its fields have keys of the same start.
    box = page.locator("div[class*='st-key-question-']").filter(has_text="almanac asks, during the call:")
    expect(box.first).to_be_visible(timeout=timeout)
    return box.first


def test_the_operator_answers_the_servers_form_in_the_chat_and_sees_the_tool_use_the_answer(
    app_server: AppServer, open_app: OpenApp
) -> None:
    page = open_app()
    ask_for_the_forecast(page)

    question = the_question(page)
    expect(question.get_by_text(FORM_MESSAGE, exact=True)).to_be_visible()
    expect(page.get_by_text("Waiting for your answer to the server's question…")).to_be_visible()
    # The server's defaults fill the form.
    units = selectbox(page, "Units *", within=question)
    expect(units).to_have_value("celsius")
    days = question.get_by_role("spinbutton", name="Days")
    expect(days).to_have_value("3")
    # The call is still under way.
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "running")

    choose(page, units, "fahrenheit")
    days.fill("5")
    question.get_by_text("Weather alerts").click()
    question.get_by_role("button", name="Accept").click()

    answer = page.get_by_test_id("stChatMessage").last
    expect(
        answer.get_by_text("Forecast for Paris: 5 day(s) in fahrenheit, alerts on.", exact=True)
    ).to_be_visible(timeout=60_000)
    expect(answer.get_by_text("done", exact=True)).to_be_visible()
    wait_for_app(page)
    expect(page.get_by_text("almanac asks, during the call:")).to_have_count(0)
    expect(chat_input(page)).to_be_enabled()
    no_exception(page)


def test_declining_the_question_is_what_the_tool_hears(app_server: AppServer, open_app: OpenApp) -> None:
    page = open_app()
    new_thread(page)
    ask_for_the_forecast(page)

    the_question(page).get_by_role("button", name="Decline").click()

    answer = page.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("No forecast for Paris: the question was declined.", exact=True)).to_be_visible(
        timeout=60_000
    )
    no_exception(page)


@pytest.fixture
def two_replicas(tmp_path: Path) -> Iterator[tuple[AppServer, AppServer]]:
    servers = {"almanac": entry("form")}
    with (
        postgres_schema() as url,
        running_app(tmp_path / "one", db_url=url, extra_servers=servers) as one,
        running_app(tmp_path / "two", db_url=url, extra_servers=servers) as two,
    ):
        yield one, two


def test_a_question_from_a_call_on_one_replica_is_answered_on_the_other(
    browser: Browser, two_replicas: tuple[AppServer, AppServer]
) -> None:
    one, two = two_replicas
    asking = new_page(browser)
    answering = new_page(browser)
    try:
        visit(asking, one.page_url())
        ask_for_the_forecast(asking)
        the_question(asking)

        # The operator's page on the other replica opens their latest thread: the one waiting.
        visit(answering, two.page_url())
        question = the_question(answering, timeout=FOLLOW_TIMEOUT_MS)
        choose(answering, selectbox(answering, "Units *", within=question), "fahrenheit")
        question.get_by_role("button", name="Accept").click()

        text = "Forecast for Paris: 3 day(s) in fahrenheit, alerts off."
        expect(asking.get_by_test_id("stChatMessage").last.get_by_text(text, exact=True)).to_be_visible(
            timeout=60_000
        )
        expect(answering.get_by_test_id("stChatMessage").last.get_by_text(text, exact=True)).to_be_visible(
            timeout=FOLLOW_TIMEOUT_MS
        )
        expect(answering.get_by_text("almanac asks, during the call:")).to_have_count(0)
        no_exception(asking)
        no_exception(answering)
    finally:
        asking.context.close()
        answering.context.close()
