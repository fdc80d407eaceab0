"""The web app never shows a secret written into a request (chat, reviews, traces), and an
approval still sends the real value: the form shows ``***`` but keeps what it hides."""

from __future__ import annotations

import secrets
import string
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.test_app import app_env, ask, button, on_page, outbox, session

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

__all__ = ["app_env"]  # the fixture, imported so pytest finds it here


def made_up(length: int = 24) -> str:
    return "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(length))


def everything_shown(app: AppTest) -> str:
    """Every text the page shows a person, widgets' contents and tables included."""
    parts: list[str] = []
    for group in (
        app.markdown,
        app.text,
        app.code,
        app.caption,
        app.success,
        app.info,
        app.warning,
        app.error,
    ):
        parts += [str(element.value) for element in group]
    parts += [str(element.value) for element in app.json]
    parts += [str(box.value) for box in (*app.text_input, *app.text_area)]
    parts += [str(option) for box in app.selectbox for option in box.options]
    parts += [expander.label for expander in app.expander]
    parts += [frame.value.to_csv() for frame in app.dataframe]
    return "\n".join(parts)


def test_no_page_shows_a_secret_from_a_request_and_the_approved_call_gets_it(app_env: Path) -> None:
    api_key, token = made_up(), "ghp_" + made_up(36)
    operator = session()
    ask(operator, f"Send an email to bob@example.com saying api-key={api_key} and token {token}")
    reviewer = on_page(session("reviewer"), "review_queue")
    shown = {"chat": everything_shown(operator), "reviews": everything_shown(reviewer)}
    assert "api-key=***" in shown["reviews"]  # the reviewer still sees what kind of thing it is

    button(reviewer, "Approve").click().run()
    assert not reviewer.exception
    shown["reviews after"] = everything_shown(reviewer)
    shown["traces"] = everything_shown(on_page(operator, "traces"))

    leaks = [page for page, text in shown.items() for s in (api_key, token) if s in text]
    assert leaks == []
    [sent] = outbox(app_env)
    assert api_key in str(sent["body"]) and token in str(sent["body"])


def test_editing_another_argument_keeps_the_real_value_of_a_hidden_one(app_env: Path) -> None:
    password = made_up()
    ask(session(), f"Send an email to bob@example.com saying the password is {password}")
    reviewer = on_page(session("reviewer"), "review_queue")
    [body_box] = [box for box in reviewer.text_area if box.key and box.key.endswith("-body")]
    assert str(body_box.value).endswith("the password is ***")

    [subject_box] = [box for box in reviewer.text_input if box.key and box.key.endswith("-subject")]
    subject_box.input("From the reviewer").run()
    button(reviewer, "Approve with my changes").click().run()

    assert not reviewer.exception
    [sent] = outbox(app_env)
    assert sent["subject"] == "From the reviewer"
    assert str(sent["body"]).endswith(f"the password is {password}")


def test_a_hidden_secret_inside_changed_text_must_be_retyped_before_approval(app_env: Path) -> None:
    password = made_up()
    ask(session(), f"Send an email to bob@example.com saying the password is {password}")
    reviewer = on_page(session("reviewer"), "review_queue")
    [body_box] = [box for box in reviewer.text_area if box.key and box.key.endswith("-body")]

    body_box.input(f"{body_box.value} (sent by the reviewer)").run()

    assert any("retype the secret" in error.value for error in reviewer.error)
    assert button(reviewer, "Approve with my changes").disabled
    assert outbox(app_env) == []


def test_a_key_the_planner_cut_out_of_its_quotes_shows_on_no_page_and_the_approved_call_gets_it(
    app_env: Path,
) -> None:
    # The body the planner extracts is the fragment apiKey": "... with its quotes broken.
    key = "SK7-" + made_up()
    operator = session()
    ask(operator, f'Send an email to bob@example.com saying "apiKey": "{key}"')
    reviewer = on_page(session("reviewer"), "review_queue")
    shown = {"chat": everything_shown(operator), "reviews": everything_shown(reviewer)}
    [body_box] = [box for box in reviewer.text_area if box.key and box.key.endswith("-body")]
    assert body_box.value == 'apiKey": "***'

    button(reviewer, "Approve").click().run()
    assert not reviewer.exception
    shown["reviews after"] = everything_shown(reviewer)
    shown["chat after"] = everything_shown(operator.run())
    shown["traces"] = everything_shown(on_page(operator, "traces"))

    assert [page for page, text in shown.items() if key in text] == []
    [sent] = outbox(app_env)
    assert sent["body"] == f'apiKey": "{key}'
