"""Someone else answering, declining or cancelling a server's question put to an operator.

A server asks the operator a question during a call (elicitation): the call waits, and the
question is a row of the database that only that operator answers (or a role allowed to take
threads over, audited ``thread_taken_over``). The attacker is a second signed-in person: a
second browser on the same app, the command line, or the service itself with a forged or
stale question id.

First tried, the attacks found three defects, now fixed:

- A crafted value of the chat's "Your threads" picker (a browser sends the option's text;
  Streamlit hands a text that is no option to the page as it came) opened someone else's
  thread: its conversation showed, and a role allowed to take threads over got its question's
  form without having taken anything over. The page now shows only the person's own threads.
- An admin's answer that was refused (the question already answered or expired, or the answer
  did not fit the form) left ``thread_taken_over`` in the audit log for a take-over that never
  happened: the event was written before the checks, outside the answer's transaction.
- ``gatehouse ask`` on a terminal answered every question of its calls as the question's
  operator, whoever was at the terminal: an admin continuing an operator's thread answered in
  the operator's name, and the audit log said the operator had. The terminal now answers as the
  person running the command (``--user``), with the same checks as the chat.

What held from the start: the link ``?thread=ID`` opens only the person's own threads; another
person's page never shows the form; a click forged for another page's buttons, or for buttons
the same browser drew before it changed hands, does nothing;
the service refuses anyone but the operator (accept, decline and cancel alike), a forged id
and a stale one, and the command line refuses ``ask --thread T --user other`` (exit 2).
"""

from __future__ import annotations

import concurrent.futures
import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import ElementTree

from gatehouse.cli.terminal_questions import TerminalQuestions
from gatehouse.web.page import services
from reviews.questions import AnswerAction, QuestionClosedError, QuestionError, QuestionNotFoundError
from tests.app.test_app import APP, EMAIL, app_env, button, session, thread_picker  # noqa: F401
from tests.app.test_app import ask as ask_in_chat
from tests.app.test_app_questions import put_question
from tests.cli_support import run_cli
from tests.reviews.test_questions import (
    FORECAST,
    THREAD,
    almanac,
    audit_of,
    first_question,
    request_running,
    servers_file,
    tool_text,
)

# -- two browsers --------------------------------------------------------------------------


def operators_waiting_thread() -> str:
    """The operator's thread, waiting for a reviewer, with a server's question pending on it."""
    ask_in_chat(session(), EMAIL)
    thread = services().conversations.of_owner("operator", limit=1)[0].thread_id
    put_question(thread)
    return thread


@contextmanager
def crafted(states: list[WidgetState]) -> Iterator[None]:
    """The next runs send ``states`` beside the page's own widget states, as a browser whose
    websocket messages were written by hand would."""
    honest = ElementTree.get_widget_states

    def with_crafted(tree: ElementTree) -> Any:
        sent = honest(tree)
        sent.widgets.extend(states)
        return sent

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ElementTree, "get_widget_states", with_crafted)
        yield


def browser_of(user: str) -> AppTest:
    """A second browser, signed in as ``user`` from its first page (``?as=``), on the chat."""
    app = AppTest.from_file(str(APP), default_timeout=60)
    app.query_params["as"] = user
    app.run()
    assert not app.exception, app.exception
    return app


def picked(app: AppTest, thread: str) -> AppTest:
    """The thread picker set to ``thread`` whatever its options: the text a crafted message sends."""
    picker = thread_picker(app)
    with crafted([WidgetState(id=picker.id, string_value=thread)]):
        app.run()
    assert not app.exception, app.exception
    return app


@pytest.mark.usefixtures("bundled_in_process")
@pytest.mark.usefixtures("app_env")
def test_a_link_to_someone_elses_thread_opens_nothing_of_it_in_a_second_browser() -> None:
    thread = operators_waiting_thread()
    for user in ("reviewer", "admin"):
        other = AppTest.from_file(str(APP), default_timeout=60)
        other.query_params["as"] = user
        other.query_params["thread"] = thread
        other.run()

        assert not other.exception, other.exception
        assert thread not in thread_picker(other).options
        assert not other.chat_message  # none of its conversation
        assert not [b for b in other.button if b.label in ("Accept", "Decline", "Cancel")]
    assert [q.status for q in services().questions.store.of_thread(thread)] == ["pending"]


@pytest.mark.usefixtures("bundled_in_process")
@pytest.mark.usefixtures("app_env")
@pytest.mark.parametrize("user", ["reviewer", "admin"])
def test_a_crafted_thread_picker_value_does_not_open_someone_elses_thread(user: str) -> None:
    thread = operators_waiting_thread()

    browser = browser_of(user)
    before = browser.session_state["thread"]
    other = picked(browser, thread)

    assert not other.chat_message  # none of its conversation
    assert not [b for b in other.button if b.label in ("Accept", "Decline", "Cancel")]
    # A value the picker did not offer is no pick (views/chat.py choose_thread): nothing moves.
    assert other.session_state["thread"] == before
    assert thread_picker(other).value != thread
    [question] = services().questions.store.of_thread(thread)
    assert question.status == "pending"
    assert audit_of_thread(thread, "thread_taken_over") == []


@pytest.mark.usefixtures("bundled_in_process")
@pytest.mark.usefixtures("app_env")
def test_a_click_forged_for_another_pages_question_buttons_answers_nothing() -> None:
    thread = operators_waiting_thread()
    operator = session()  # the operator's own page draws the question with its buttons
    buttons = {b.label: b.id for b in operator.button if b.label in ("Accept", "Decline", "Cancel")}
    assert set(buttons) == {"Accept", "Decline", "Cancel"}
    [question] = services().questions.store.of_thread(thread)
    other = browser_of("reviewer")
    # The operator's field values too, as a crafted form submission would carry them.
    other.session_state[f"question-{question.id}-units"] = "fahrenheit"

    for widget in buttons.values():
        with crafted([WidgetState(id=widget, trigger_value=True)]):
            other.run()
        assert not other.exception, other.exception

    assert services().questions.store.require(question.id).status == "pending"
    assert audit_of_thread(thread, "question_answered") == []
    # The operator still answers it.
    button(operator.run(), "Decline").click().run()
    assert services().questions.store.require(question.id).answered_by == "operator"


@pytest.mark.usefixtures("bundled_in_process")
@pytest.mark.usefixtures("app_env")
def test_a_click_for_a_button_drawn_before_the_browser_changed_hands_answers_as_whoever_it_is_now() -> None:
    thread = operators_waiting_thread()
    shared = session()  # the operator's page, with the question and its buttons
    accept = button(shared, "Accept").id
    [question] = services().questions.store.of_thread(thread)
    shared.sidebar.selectbox(key="user").set_value("reviewer").run()

    # A click sent for the Accept button the page drew for the operator.
    with crafted([WidgetState(id=accept, trigger_value=True)]):
        shared.run()

    assert not shared.exception, shared.exception
    assert services().questions.store.require(question.id).status == "pending"
    assert audit_of_thread(thread, "question_answered") == []


def audit_of_thread(thread: str, kind: str) -> list[str | None]:
    return [event.actor for event in services().audit.events(thread_id=thread) if event.kind == kind]


# -- the service ---------------------------------------------------------------------------


@pytest.mark.usefixtures("test_servers_in_process")
@pytest.mark.parametrize("action", ["accept", "decline", "cancel"])
def test_nobody_but_the_operator_answers_declines_or_cancels_and_the_question_still_waits(
    data_dir: Path, action: AnswerAction
) -> None:
    with almanac(data_dir) as services, request_running(services) as running:
        question = first_question(services)
        events = len(services.audit.events())

        for user in ("reviewer", "reviewer2", "nobody-on-the-roster"):
            with pytest.raises(QuestionError, match=f"question {question.id} was put to operator; only they"):
                services.questions.answer(
                    question.id, by=user, action=action, content={"units": "fahrenheit"}
                )

        assert services.questions.store.require(question.id).status == "pending"
        assert len(services.audit.events()) == events
        services.questions.answer(
            question.id, by="operator", action="accept", content={"units": "celsius", "days": 3}
        )
        assert tool_text(running.result(timeout=60)) == "Forecast for Paris: 3 day(s) in celsius, alerts off."


@pytest.mark.usefixtures("test_servers_in_process")
def test_a_forged_question_id_is_refused_by_name_and_writes_nothing(data_dir: Path) -> None:
    with almanac(data_dir) as services:
        before = services.audit.events()
        for forged in ("0" * 32, f"{THREAD}", "' OR 1=1 --"):
            with pytest.raises(QuestionNotFoundError, match=f"^no question {forged}$"):
                services.questions.answer(forged, by="admin", action="accept", content={"units": "celsius"})
        assert services.audit.events() == before


@pytest.mark.usefixtures("test_servers_in_process")
def test_an_admins_refused_answer_leaves_no_take_over_on_record(data_dir: Path) -> None:
    with almanac(data_dir) as services, request_running(services) as running:
        question = first_question(services)

        # An answer that does not fit the form: refused, and nothing was taken over.
        with pytest.raises(QuestionError, match="does not fit the form"):
            services.questions.answer(question.id, by="admin", action="accept", content={"units": "kelvin"})
        assert audit_of(services, "thread_taken_over") == []

        services.questions.answer(question.id, by="operator", action="decline")
        assert tool_text(running.result(timeout=60)) == "No forecast for Paris: the question was declined."
        # A stale id: the question was answered; an admin's late answer is refused, unrecorded.
        with pytest.raises(QuestionClosedError, match="was already answered by operator"):
            services.questions.answer(question.id, by="admin", action="accept", content={"units": "celsius"})
        assert audit_of(services, "thread_taken_over") == []
        assert services.questions.store.require(question.id).action == "decline"


@pytest.mark.usefixtures("test_servers_in_process")
def test_an_admins_answer_is_the_admins_and_recorded_as_a_take_over_in_its_transaction(
    data_dir: Path,
) -> None:
    with almanac(data_dir) as services, request_running(services) as running:
        question = first_question(services)

        services.questions.answer(question.id, by="admin", action="cancel")

        assert tool_text(running.result(timeout=60)) == "No forecast for Paris: the question was cancelled."
        assert services.questions.store.require(question.id).answered_by == "admin"
        kinds = [(e.kind, e.actor) for e in services.audit.events(thread_id=THREAD)]
        taken = kinds.index(("thread_taken_over", "admin"))
        assert kinds[taken + 1] == ("question_answered", "admin")


# -- the command line ----------------------------------------------------------------------


@pytest.mark.usefixtures("test_servers_in_process")
def test_ask_on_the_operators_thread_as_someone_else_is_refused_and_the_question_still_waits(
    data_dir: Path,
) -> None:
    with almanac(data_dir) as services, request_running(services) as running:
        question = first_question(services)
        env = {
            "GATEHOUSE_DATA": str(data_dir),
            "GATEHOUSE_SERVERS": str(servers_file(data_dir, "form")),
            "GATEHOUSE_DB": None,
            "GATEHOUSE_POLICY": None,
        }

        ran = run_cli("ask", "--thread", THREAD, "--user", "reviewer", "units=fahrenheit", env=env)

        assert ran.returncode == 2, ran.stderr
        assert ran.stderr.strip() == (
            f"gatehouse: --user: thread {THREAD} belongs to operator; only operator, or a role allowed "
            "to take threads over, may continue it"
        )
        assert services.questions.store.require(question.id).status == "pending"
        services.questions.answer(
            question.id, by="operator", action="accept", content={"units": "celsius", "days": 3}
        )
        assert tool_text(running.result(timeout=60)) == "Forecast for Paris: 3 day(s) in celsius, alerts off."


@contextmanager
def a_terminal(typed: str) -> Iterator[TerminalQuestions]:
    """A terminal whose person types ``typed`` (a pipe: what a terminal's reader reads)."""
    read, write = os.pipe()
    os.write(write, typed.encode())
    os.close(write)
    with os.fdopen(read, encoding="utf-8") as stdin:
        yield TerminalQuestions(stdin, io.StringIO())


@pytest.mark.usefixtures("test_servers_in_process")
def test_a_terminal_answers_as_the_person_at_it_not_as_the_questions_operator(data_dir: Path) -> None:
    with almanac(data_dir) as services, a_terminal("a\n2\n\n\n") as terminal:
        waiting = services.requests.ask("Get the weather forecast", thread_id=THREAD, requester="operator")
        assert waiting.final_output.status == "needs_clarification", waiting.final_output
        # An admin continues the operator's thread from their terminal: the call is the
        # operator's request, so its question is the operator's; the admin answers it.
        services.questions.ask_on_terminal(terminal, user="admin")

        run = services.requests.ask("Paris", thread_id=THREAD, requester="admin")

        assert tool_text(run) == "Forecast for Paris: 3 day(s) in fahrenheit, alerts off."
        [question] = services.questions.store.of_thread(THREAD)
        assert (question.operator, question.answered_by) == ("operator", "admin")
        [answered] = audit_of(services, "question_answered")
        assert answered["actor"] == "admin"
        assert [e["actor"] for e in audit_of(services, "thread_taken_over")] == ["admin", "admin"]


@pytest.mark.usefixtures("test_servers_in_process")
def test_a_terminal_of_someone_who_may_not_answer_is_not_asked_and_the_question_waits(
    data_dir: Path,
) -> None:
    with almanac(data_dir) as services, a_terminal("a\n2\n\n\n") as terminal:
        services.questions.ask_on_terminal(terminal, user="reviewer")
        with concurrent.futures.ThreadPoolExecutor(1) as runner:
            # A call for the operator made in the reviewer's process (as a reviewer's approval
            # runs one): the question waits for the operator, wherever they are.
            running = runner.submit(services.requests.ask, FORECAST, thread_id=THREAD, requester="operator")
            question = first_question(services)
            services.questions.answer(question.id, by="operator", action="decline")
            assert (
                tool_text(running.result(timeout=60)) == "No forecast for Paris: the question was declined."
            )
        assert services.questions.store.require(question.id).answered_by == "operator"
