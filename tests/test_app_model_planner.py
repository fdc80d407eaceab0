"""The app with a language model planning: the sidebar names it, and the chat shows the answer
it wrote above the result it wrote it from (the real app, real stdio servers; the model is
scripted, tests/graph/scripted_model.py)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from gatehouse.literal import markdown_literal
from graph.planner.model import ModelPlanner
from tests.graph.scripted_model import ScriptedChatModel, tool_call
from tests.test_app import app_env, ask, session  # noqa: F401 (app_env: a fixture)

pytestmark = pytest.mark.usefixtures("app_env")


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
