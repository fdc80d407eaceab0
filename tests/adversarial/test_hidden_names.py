"""Names a server chose to hide something in are shown as what they are, on every surface.

A tool name with a zero-width space and a word joiner in it reads as ``delete_reminders``:
the CLI, the chat, the review queue and the traces show the two characters as ``\\u200b`` and
``\\u2060``. An argument name written in Markdown (an image from the server's address and
Gatehouse's own green badge) is asked for, and complained about, in its own characters.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from gatehouse.web.literal import markdown_literal
from tests.adversarial.harness import (
    Gatehouse,
    gatehouse_with,
    invisible_characters,
    web_app_with,
)
from tests.adversarial.hidden_names_server import HIDDEN_NAME, HIDDEN_NAME_SHOWN, HIDDEN_READ, MARKUP_ARGUMENT
from tests.app.test_app import MARKUP, ask, button, markdown_blocks, on_page, session

# The server's stdio entry is served in-process (tests/in_process_servers.py); the CLI runs in-process.
pytestmark = pytest.mark.usefixtures("test_servers_in_process")

SERVERS = {"hidden": "hidden_names_server"}
DELETE = "Delete the reminders"
POST = "Post a note to the team board"


@pytest.fixture
def hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Gatehouse:
    return gatehouse_with(tmp_path, monkeypatch, capsys, SERVERS)


@pytest.fixture
def web(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with web_app_with(tmp_path, monkeypatch, SERVERS):
        yield


def strings(data: object) -> list[str]:
    """Every string in JSON-like ``data``, keys too, as a viewer of it shows them."""
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [text for key, value in data.items() for text in [*strings(key), *strings(value)]]
    if isinstance(data, list):
        return [text for item in data for text in strings(item)]
    return []


def shown(app: AppTest) -> str:
    """Everything a page shows as text: blocks, alerts, labels, options, tables and JSON."""
    blocks = [*app.markdown, *app.caption, *app.text, *app.code, *app.success, *app.warning, *app.info]
    blocks += [*app.error, *app.header, *app.subheader]
    labels = [widget.label for widget in [*app.expander, *app.button, *app.text_input, *app.selectbox]]
    options = [option for box in app.selectbox for option in box.options]
    tables = [frame.value.to_csv(index=False) for frame in app.dataframe]
    documents = [text for block in app.json for text in strings(json.loads(block.value))]
    return "\n".join([*(str(block.value) for block in blocks), *labels, *options, *tables, *documents])


# -- the command line ---------------------------------------------------------------------------


def test_a_tool_name_with_invisible_characters_shows_them_in_the_cli_answer_and_the_queue(
    hidden: Gatehouse,
) -> None:
    answer = hidden.run("ask", DELETE)
    queue = hidden.run("reviews", "list")

    assert answer.code == 0 and queue.code == 0, answer.err + queue.err
    assert f"capability: hidden / tool / {HIDDEN_NAME_SHOWN}" in answer.out
    assert f"hidden/{HIDDEN_NAME_SHOWN}" in queue.out
    assert invisible_characters(answer.out + answer.err + queue.out + queue.err) == []


def test_a_read_only_tool_whose_name_hides_characters_waits_for_a_reviewer_and_never_runs(
    hidden: Gatehouse,
) -> None:
    printed = hidden.run("ask", "--json", "List the open tickets")

    output = printed.json()
    assert printed.code == 0, printed.err
    assert output["selected_capability"]["name"] == HIDDEN_READ
    assert output["status"] == "needs_review"
    messages = [f["message"] for f in output["review"]["flags"] if f["code"] == "suspicious_text"]
    assert any("name: invisible characters U+200D" in m for m in messages), output["review"]["flags"]
    assert output["review"]["stage"] == "before_execution" and output["mcp_result_summary"] is None


def test_the_cli_json_shows_the_invisible_characters_as_escapes_and_loses_nothing(hidden: Gatehouse) -> None:
    printed = hidden.run("ask", "--json", DELETE)

    assert printed.code == 0, printed.err
    assert invisible_characters(printed.out) == []
    assert printed.json()["selected_capability"]["name"] == HIDDEN_NAME


def test_a_trace_printed_by_the_cli_shows_the_invisible_characters_and_loses_nothing(
    hidden: Gatehouse,
) -> None:
    thread = hidden.run("ask", "--json", DELETE).json()["thread_id"]

    trace = hidden.run("trace", "--json", thread)

    assert trace.code == 0, trace.err
    assert invisible_characters(trace.out + trace.err) == []
    assert HIDDEN_NAME in json.dumps(trace.json(), ensure_ascii=False)


# -- the web pages ------------------------------------------------------------------------------


def test_a_tool_name_with_invisible_characters_shows_them_on_every_page(web: None) -> None:
    operator = ask(session(), DELETE)
    reviewer = on_page(session("reviewer"), "review_queue")
    traces = on_page(session(), "traces")

    for page in (operator, reviewer, traces):
        text = shown(page)
        assert HIDDEN_NAME_SHOWN in text.replace("\\_", "_")  # markdown_literal escapes the _
        assert invisible_characters(text) == []


def test_an_argument_name_in_markdown_is_asked_for_and_warned_about_literally(web: None) -> None:
    operator = ask(session(), POST)
    assert [box.label for box in operator.text_input] == [markdown_literal(MARKUP_ARGUMENT)]

    button(operator, "Answer").click().run()

    assert not operator.exception, operator.exception
    assert [warning.value for warning in operator.warning] == [
        markdown_literal(f"Fill in {MARKUP_ARGUMENT} first.")
    ]
    leaked = [block for block in markdown_blocks(operator) for markup in (*MARKUP, "![x]") if markup in block]
    assert leaked == []
