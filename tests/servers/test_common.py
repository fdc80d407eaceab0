from pathlib import Path

import pytest

from servers._common import default_data_dir, parse_data_dir, seed_text_file


def test_default_data_dir_uses_the_gatehouse_data_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GATEHOUSE_DATA", "/srv/gatehouse")
    assert default_data_dir() == Path("/srv/gatehouse/demo")


def test_default_data_dir_falls_back_to_the_local_data_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GATEHOUSE_DATA", raising=False)
    assert default_data_dir() == Path("data/demo")


def test_parse_data_dir_prefers_the_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GATEHOUSE_DATA", "/srv/gatehouse")
    assert parse_data_dir(["--data-dir", "/tmp/elsewhere"]) == Path("/tmp/elsewhere")
    assert parse_data_dir([]) == Path("/srv/gatehouse/demo")


def test_seed_text_file_writes_only_a_missing_file(tmp_path: Path) -> None:
    target = tmp_path / "nested" / "file.txt"
    assert seed_text_file(target, "first") is True
    assert seed_text_file(target, "second") is False
    assert target.read_text() == "first"
