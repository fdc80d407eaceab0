"""The chat as an operator uses it (issue 32, items 9 and 10), through AppTest: the thread a
message is filed under when the browser is a step behind the server, and the clarification
form built from the capability's schema, whose text area keeps a file's lines.

The browser tests (tests/browser/test_operator_chat.py) do the same in Chromium; here the
browser's lag is exact: the message is sent with the widget states of the page as it was
before the click's run reached the browser.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetStates
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import ElementTree

from gatehouse.web.page import services
from tests.app.test_app import (  # noqa: F401 (app_env: a fixture)
    app_env,
    ask,
    button,
    markdown_text,
    session,
    thread_picker,
)

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("app_env", "bundled_in_process")

LIST = "List the files in the managed project folder."
SECOND = "Read the file notes.md"
WRITE = "Write a file named todo.md"
LINES = "# To do\n\n- first line\n- second line\n"


@contextmanager
def browser_sends(states: WidgetStates) -> Iterator[None]:
    """The next runs get ``states`` as the browser's widget states, whatever the page drew."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ElementTree, "get_widget_states", lambda _tree: states)
        yield


def page_as_drawn_with_message(app: AppTest, text: str) -> WidgetStates:
    """The widget states a browser holding the page as drawn now sends with ``text`` typed in
    the chat box; the box is emptied again here, so the page's own next run sends nothing."""
    box = app.chat_input[0]
    box.set_value(text)
    states = app._tree.get_widget_states()
    box.set_value(None)
    return states


def test_a_message_sent_before_the_new_page_reaches_the_browser_is_filed_under_the_new_thread() -> None:
    app = session()
    ask(app, LIST)
    old = app.session_state["thread"]
    # The browser still shows the old thread's page (its picker on the old thread) when the
    # message leaves it: the click's run has not reached it yet.
    stale = page_as_drawn_with_message(app, SECOND)
    button(app, "New thread").click().run()
    new = app.session_state["thread"]
    assert new != old

    with browser_sends(stale):
        app.run()

    assert not app.exception, app.exception
    assert app.session_state["thread"] == new
    assert [m.text for m in services().conversations.messages(new) if m.role == "operator"] == [SECOND]
    assert [m.text for m in services().conversations.messages(old) if m.role == "operator"] == [LIST]


def test_a_message_sent_from_a_page_whose_thread_label_changed_since_is_filed_under_that_thread() -> None:
    app = session()
    thread = app.session_state["thread"]
    # The picker's value is the label shown ("New thread" here), which the first answer changes.
    stale = page_as_drawn_with_message(app, SECOND)
    ask(app, LIST)

    with browser_sends(stale):
        app.run()

    assert not app.exception, app.exception
    assert app.session_state["thread"] == thread
    assert [m.text for m in services().conversations.messages(thread) if m.role == "operator"] == [
        LIST,
        SECOND,
    ]


def test_picking_a_thread_in_the_picker_still_opens_it() -> None:
    app = session()
    ask(app, LIST)
    old = app.session_state["thread"]
    button(app, "New thread").click().run()
    ask(app, SECOND)

    thread_picker(app).set_value(old).run()

    assert app.session_state["thread"] == old
    assert app.query_params["thread"] in (old, [old])


def test_file_content_is_asked_for_in_a_text_area_and_its_lines_reach_the_review() -> None:
    app = session()
    ask(app, WRITE)
    assert "needs your answer" in markdown_text(app)
    thread = app.session_state["thread"]
    assert [area.label for area in app.text_area] == ["content"]
    assert [box.label for box in app.text_input] == []

    app.text_area(key=f"clarify-{thread}-content").input(LINES)
    button(app, "Answer").click().run()

    assert not app.exception, app.exception
    assert "waiting for a reviewer" in markdown_text(app)
    [review] = services().ledger.queue("pending")
    assert review.arguments == {"path": "todo.md", "content": LINES}
    messages = services().conversations.messages(thread)
    assert messages[2].text == LINES
