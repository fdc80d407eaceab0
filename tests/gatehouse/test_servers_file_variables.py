"""Gatehouse's helpers (${GATEHOUSE_PYTHON}, ${GATEHOUSE_DEMO_DATA}, ${GATEHOUSE_DATA}) mean the
same in any servers file, so a person's copy of the shipped file loads as the shipped file does;
Gatehouse's own secrets expand in none, and a file naming one is refused in one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gatehouse.settings import Settings
from gatehouse.wiring import bundled_servers_config, servers_config
from mcp_host.config import ConfigError, StdioServer
from servers.catalog import BUNDLED_CONFIG
from tests.cli_support import run_cli
from tests.gatehouse.cli.test_cli_errors import assert_one_line

KEY = "k3y-that-must-not-leak-0123456789"


def _copy_of_the_shipped_file(tmp_path: Path, *only: str) -> Path:
    shipped = json.loads(BUNDLED_CONFIG.read_text(encoding="utf-8"))
    if only:
        shipped["mcpServers"] = {name: shipped["mcpServers"][name] for name in only}
    copy = tmp_path / "copied" / ".mcp.json"
    copy.parent.mkdir()
    copy.write_text(json.dumps(shipped), encoding="utf-8")
    return copy


def _env(tmp_path: Path) -> dict[str, str | None]:
    unset: dict[str, str | None] = {
        "GATEHOUSE_DB": None,
        "GATEHOUSE_PYTHON": None,
        "GATEHOUSE_DEMO_DATA": None,
    }
    return unset | {"GATEHOUSE_DATA": str(tmp_path / "data"), "GATEHOUSE_SECRET_KEY": KEY}


def test_a_copy_of_the_shipped_servers_file_loads_as_the_shipped_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("GATEHOUSE_PYTHON", "GATEHOUSE_DEMO_DATA", "GATEHOUSE_DATA"):
        monkeypatch.delenv(name, raising=False)
    data = tmp_path / "data"
    settings = Settings(
        data_dir=data, db_path=data / "g.db", servers_path=_copy_of_the_shipped_file(tmp_path)
    )

    copied = servers_config(settings).servers
    shipped = bundled_servers_config(settings.demo_data_dir).servers

    assert [entry.describe() for entry in copied] == [entry.describe() for entry in shipped]
    first = copied[0]
    assert isinstance(first, StdioServer)
    assert first.command == sys.executable
    assert str((data / "demo").resolve()) in first.args


def test_a_persons_servers_file_may_name_the_data_folder(tmp_path: Path) -> None:
    data = tmp_path / "data"
    servers = tmp_path / "servers.json"
    entry = {"command": "${GATEHOUSE_PYTHON}", "args": ["-m", "srv", "--logs", "${GATEHOUSE_DATA}/logs"]}
    servers.write_text(json.dumps({"mcpServers": {"srv": entry}}), encoding="utf-8")

    [loaded] = servers_config(Settings(data_dir=data, db_path=data / "g.db", servers_path=servers)).servers

    assert isinstance(loaded, StdioServer)
    assert loaded.args == ["-m", "srv", "--logs", f"{data.resolve()}/logs"]


@pytest.mark.processes
def test_the_cli_runs_a_server_from_a_copy_of_the_shipped_file(tmp_path: Path) -> None:
    done = run_cli(
        "servers",
        "check",
        "--servers",
        str(_copy_of_the_shipped_file(tmp_path, "greeter")),
        env=_env(tmp_path),
    )

    assert done.returncode == 0, done.stderr
    assert "ok    greeter" in done.stdout


@pytest.mark.parametrize("variable", ["GATEHOUSE_SECRET_KEY", "GATEHOUSE_AUDIT_KEY"])
def test_a_servers_file_asking_for_a_gatehouse_secret_is_refused_in_one_line(
    tmp_path: Path, variable: str
) -> None:
    servers = tmp_path / ".mcp.json"
    entry = {"command": sys.executable, "args": ["-m", "servers.greeter", "--key", f"${{{variable}}}"]}
    servers.write_text(json.dumps({"mcpServers": {"helper": entry}}), encoding="utf-8")

    done = run_cli(
        "servers", "check", "--servers", str(servers), env=_env(tmp_path) | {"GATEHOUSE_AUDIT_KEY": KEY}
    )

    assert done.returncode == 2
    assert_one_line(done.stderr, str(servers), "mcpServers.helper.args", f"${{{variable}}}")
    assert KEY not in done.stdout + done.stderr
    assert not (tmp_path / "data" / "logs" / "servers" / "helper.log").exists()  # nothing started


def test_loading_a_file_naming_a_secret_stops_before_any_entry_is_kept(tmp_path: Path) -> None:
    servers = tmp_path / "servers.json"
    entries = {
        "fine": {"command": sys.executable},
        "greedy": {
            "type": "http",
            "url": "https://x.example/mcp",
            "headers": {"A": "${GATEHOUSE_SECRET_KEY}"},
        },
    }
    servers.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "g.db", servers_path=servers, secret_key=KEY)

    with pytest.raises(
        ConfigError, match=r"mcpServers\.greedy\.headers\.A: \$\{GATEHOUSE_SECRET_KEY\} is one of"
    ):
        servers_config(settings)
