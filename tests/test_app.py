"""The placeholder page renders on an empty database and answers a request."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[1] / "app.py"


def test_first_screen_lists_the_bundled_servers_and_answers_a_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEHOUSE_DATA", str(tmp_path))
    monkeypatch.delenv("GATEHOUSE_DB", raising=False)
    app = AppTest.from_file(str(APP), default_timeout=30)

    app.run()
    assert not app.exception
    assert any("filesystem" in block.value for block in app.markdown)

    app.text_input[0].input("List the files in the managed project folder.")
    app.button[0].click()
    app.run()

    assert not app.exception
    assert app.subheader[0].value == "ok"
    assert any("sample.txt" in block.value for block in app.markdown)
