"""`gatehouse policy explain` reads the pinned definitions and never adds one: first sight is
recorded by real requests only."""

from __future__ import annotations

from pathlib import Path

import pytest

from gatehouse.cli import main
from policies.pins import DatabasePinStore
from tests.gatehouse.cli.test_cli import only_servers

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")


def test_explaining_a_decision_pins_nothing_in_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GATEHOUSE_DATA", str(tmp_path))
    monkeypatch.delenv("GATEHOUSE_DB", raising=False)
    database = tmp_path / "explain.db"
    DatabasePinStore(database).close()
    servers = only_servers(tmp_path, "filesystem")

    code = main(
        ["policy", "explain", "--db", str(database), "--servers", servers, "filesystem__list_directory"]
    )

    assert code == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith("ALLOW  filesystem__list_directory")
    store = DatabasePinStore(database)
    try:
        assert store.get("filesystem__list_directory") is None
    finally:
        store.close()
