"""The web app through Streamlit's AppTest: first screen, chat, review queue, traces."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"


@pytest.fixture
def app_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    data = tmp_path / "data"
    entries = {
        name: {"command": sys.executable, "args": ["-m", f"servers.{name}", "--data-dir", str(data / "demo")]}
        for name in ("filesystem", "email")
    }
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    monkeypatch.setenv("GATEHOUSE_DATA", str(data))
    monkeypatch.setenv("GATEHOUSE_SERVERS", str(servers))
    monkeypatch.delenv("GATEHOUSE_DB", raising=False)
    monkeypatch.delenv("GATEHOUSE_POLICY", raising=False)
    from gatehouse.web import services

    services.clear()
    yield data
    services.clear()


def test_the_first_screen_works_on_an_empty_database(app_env: Path) -> None:
    app = AppTest.from_file(str(APP), default_timeout=60)

    app.run()

    assert not app.exception
    assert app.title[0].value == "Chat"
    assert app.sidebar.selectbox[0].value == "operator"
    assert app.sidebar.metric[0].value == "0"
    assert any("Local mode" in caption.value for caption in app.sidebar.caption)


def test_an_operator_asks_in_chat_and_sees_the_answer(app_env: Path) -> None:
    app = AppTest.from_file(str(APP), default_timeout=60)
    app.run()

    app.chat_input[0].set_value("List the files in the managed project folder.").run()

    assert not app.exception
    text = " ".join(block.value for block in app.markdown)
    assert "sample.txt" in text and "notes.md" in text
    assert any("list_directory" in caption.value for caption in app.caption)


def test_an_operator_sees_no_decision_buttons(app_env: Path) -> None:
    app = AppTest.from_file(str(APP), default_timeout=60)
    app.run()
    app.chat_input[0].set_value("Send an email to bob@example.com saying hi").run()

    app.session_state["user"] = "operator"
    app.switch_page("pages/review_queue.py").run()

    assert not app.exception
    assert [button.label for button in app.button if button.label in {"Approve", "Reject"}] == []
    assert any("may not review" in caption.value for caption in app.caption)


def test_the_traces_page_draws_the_graph_and_the_threads_steps(app_env: Path) -> None:
    app = AppTest.from_file(str(APP), default_timeout=60)
    app.run()
    app.chat_input[0].set_value("List the files in the managed project folder.").run()

    app.session_state["user"] = "operator"
    app.switch_page("pages/traces.py").run()

    assert not app.exception
    assert app.title[0].value == "Traces"
    labels = [expander.label for expander in app.expander]
    assert labels[0].endswith("preprocess_request")
    assert any(label.endswith("invoke_mcp_capability") for label in labels)
