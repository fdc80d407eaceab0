"""The app with a language model planning: the sidebar names it, and the chat shows the answer
it wrote above the result it wrote it from (the real app, real stdio servers; the model is
scripted, tests/graph/scripted_model.py)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from gatehouse.web.literal import markdown_literal
from graph.planner.model import ModelPlanner
from tests.app.test_app import app_env, ask, on_page, session  # noqa: F401 (app_env: a fixture)
from tests.graph.scripted_model import ScriptedChatModel, tool_call

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("app_env", "bundled_in_process")


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> ScriptedChatModel:
    scripted = ScriptedChatModel()

    def planner_for(name: str | None, **options: Any) -> ModelPlanner:
        return ModelPlanner(scripted, "openai:gpt-4.1-mini", timeout=30.0)

    monkeypatch.setattr("gatehouse.wiring.planner_for", planner_for)
    return scripted


def test_the_chat_shows_the_models_answer_above_the_result_and_the_sidebar_names_the_model(
    model: ScriptedChatModel,
) -> None:
    model.script += [
        tool_call("filesystem__list_directory", {}, {}, "The operator wants the folder's files."),
        AIMessage("Two files are there: sample.txt and notes.md."),
    ]
    app = session()

    ask(app, "List the files in the managed project folder.")

    planner = markdown_literal("language model openai:gpt-4.1-mini (falls back to deterministic)")
    assert f"Planner: {planner}" in [caption.value for caption in app.sidebar.caption]
    assert "Two files are there: sample.txt and notes.md." in [str(block.value) for block in app.text]
    # The result it was written from is still shown, as a table.
    assert "notes.md" in "\n".join(frame.value.to_csv(index=False) for frame in app.dataframe)


def test_the_reviews_page_shows_beside_each_argument_whether_it_was_stated_or_derived_and_from_which_words(
    model: ScriptedChatModel,
) -> None:
    model.script += [
        tool_call(
            "email__send_email",
            {"to": "eve@example.org", "subject": "Status", "body": "the build is green"},
            {"to": "bob@example.com", "subject": "status", "body": "the build is green"},
        ),
    ]
    ask(session(), "Email bob@example.com, subject status, saying the build is green")

    reviewer = on_page(session("reviewer"), "review_queue")

    # Each argument's line, then the words it came from as plain text, in page order.
    drawn = [
        str(getattr(element, "value", ""))
        for element in reviewer.main
        if element.type in {"markdown", "text"}
    ]
    shown = [value for value in drawn if value.startswith(("`", "“"))]
    assert shown[-6:] == [
        "`to` :orange-badge[derived] derived from these words, not the operator's own: check it against the request",
        "“bob@example.com”",
        # The operator wrote "status": a capital the model added makes it a value nobody stated.
        "`subject` :orange-badge[derived] derived from these words, not the operator's own: check it against the request",
        "“status”",
        "`body` :blue-badge[stated] the operator's words",
        "“the build is green”",
    ]
