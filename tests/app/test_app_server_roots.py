"""The Servers page says where each server's path arguments must stay and where those folders
come from: a server started on the team's folder shows that folder, "from its arguments"."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gatehouse.web.literal import markdown_literal
from gatehouse.web.page import services
from tests.app.test_app import ROOT, app_env, on_page, session

# Starts processes of its own (servers over stdio, the CLI): not in `make quick`.
pytestmark = pytest.mark.processes

__all__ = ["app_env"]  # the fixture, imported so pytest finds it here


def captions(page: object) -> list[str]:
    return [str(block.value) for block in page.caption]  # type: ignore[attr-defined]


def test_the_servers_page_shows_the_folder_a_server_is_started_on_as_its_roots(
    app_env: Path, tmp_path: Path
) -> None:
    team = (tmp_path / "team").resolve()
    team.mkdir()
    entries = json.loads((tmp_path / "servers.json").read_text(encoding="utf-8"))
    # A real stdio server, started with the team's folder among its arguments (it ignores it).
    entries["mcpServers"]["team-files"] = {
        "command": sys.executable,
        "args": ["-m", "tests.mcp_host.roots_server", str(team)],
        "cwd": str(ROOT),
    }
    (tmp_path / "servers.json").write_text(json.dumps(entries), encoding="utf-8")
    # The demo folder as a second start finds it (the demo servers make it on their first).
    (app_env / "demo").mkdir(parents=True, exist_ok=True)
    services.clear()

    page = captions(on_page(session("admin"), "servers"))

    started_on = f"Paths stay in: {team} (the folders server 'team-files' is started on (from its arguments))"
    assert markdown_literal(started_on) in page
    demo = app_env / "demo" / "project"
    narrowed = (
        f"Paths stay in: {demo} (the policy's [paths] roots inside the folders server 'filesystem'"
        " is started on (from its arguments))"
    )
    assert markdown_literal(narrowed) in page
