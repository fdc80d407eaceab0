"""The servers of the 2026-11-held-out-4 batch (office-powerpoint-mcp-server on a folder of slide
decks, agent-toolkit-mcp-server on a home of todos, notes, a timer, a project and a template)
started by the eval workspace on their seeded data, and the runner giving that batch all four
tiers of servers. Nothing here runs the planner."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from eval.case_sets import Batch, CaseSet
from eval.cases import Case
from eval.run import _by_servers
from eval.workspace import DESK_SERVERS, DOCUMENT_SERVERS, TOOLKIT_IDS, PeersMissingError, build_workspace
from gatehouse.settings import Settings
from gatehouse.wiring import server_pool
from mcp_host.manifest import Manifest
from tests.interop.peers import missing_peer


def _discover(workspace_servers: Path, data_dir: Path, db_path: Path) -> Manifest:
    saved = os.environ.get("GATEHOUSE_DATA")
    os.environ["GATEHOUSE_DATA"] = str(data_dir)
    try:
        settings = Settings.resolve(db=str(db_path), servers=str(workspace_servers))
        with server_pool(settings) as pool:
            return pool.discover()
    finally:
        if saved is None:
            os.environ.pop("GATEHOUSE_DATA", None)
        else:
            os.environ["GATEHOUSE_DATA"] = saved


@pytest.mark.peers
@pytest.mark.processes
def test_the_desk_servers_start_on_their_seeded_data_and_list_their_tools(tmp_path: Path) -> None:
    try:
        workspace = build_workspace(tmp_path, desk_servers=True)
    except PeersMissingError as exc:
        missing_peer(str(exc))
    servers = json.loads(workspace.servers_file.read_text(encoding="utf-8"))["mcpServers"]
    assert set(DESK_SERVERS) <= set(servers)
    assert not set(DOCUMENT_SERVERS) & set(servers)
    assert servers["powerpoint"]["cwd"] == str(tmp_path / "decks")
    assert servers["powerpoint"]["roots"] == [str(tmp_path / "decks")]
    assert servers["toolkit"]["env"] == {"AGENT_TOOLKIT_HOME": str(tmp_path / "toolkit")}
    assert (tmp_path / "decks" / "q3-review.pptx").is_file()
    assert (tmp_path / "toolkit" / "notes" / "_global" / "standup-log.md").is_file()
    with sqlite3.connect(tmp_path / "toolkit" / "data.db") as database:
        todos = dict(database.execute("SELECT id, text FROM todos").fetchall())
    database.close()
    # The ids a request may quote are the ones the todos got.
    assert set(todos) == set(TOOLKIT_IDS)
    assert todos[TOOLKIT_IDS[0]] == "Renew the TLS certificate for the status page"

    manifest = _discover(workspace.servers_file, workspace.data_dir, workspace.db_path)

    assert manifest.problems() == []
    tools = {c.key for c in manifest.capabilities() if c.type == "tool"}
    assert {
        "powerpoint__open_presentation",
        "powerpoint__extract_slide_text",
        "powerpoint__add_slide",
        "powerpoint__save_presentation",
        "powerpoint__add_chart",
    } <= tools
    assert {
        "toolkit__todo_create",
        "toolkit__todo_list",
        "toolkit__todo_complete",
        "toolkit__note_read",
        "toolkit__timer_set",
        "toolkit__template_render",
    } <= tools


def _case(id_: str, group: str, batch: str) -> Case:
    return Case(
        id=id_,
        group=group,
        request="x",
        capabilities=(),
        statuses=("answered_without_mcp",),
        read_only=True,
        batch=batch,
    )


def test_a_batch_naming_a_desk_server_runs_with_every_tier() -> None:
    case_set = CaseSet(
        [
            Batch(id="held-out-3", servers={"vault": "mcpvault@0.16"}),
            Batch(id="held-out-4", servers={"toolkit": "agent-toolkit-mcp-server@0.4.0"}),
        ],
        [_case("a", "vault", "held-out-3"), _case("b", "files", "held-out-4"), _case("c", "powerpoint", "x")],
    )

    parts = _by_servers(case_set)

    assert [(tier, [c.id for c in part.cases]) for part, tier in parts] == [(2, ["a"]), (3, ["b", "c"])]
