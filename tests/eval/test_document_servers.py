"""The servers of the 2026-11-held-out-3 batch (mcpvault on a vault of markdown notes,
office-word-mcp-server on a folder of Word documents) started by the eval workspace on their
seeded data, and the runner giving each batch only the servers it was written for. Nothing here
runs the planner."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from eval.case_sets import Batch, CaseSet
from eval.cases import Case
from eval.run import _by_servers
from eval.workspace import BATCH_SERVERS, DOCUMENT_SERVERS, PeersMissingError, build_workspace
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
def test_the_document_servers_start_on_their_seeded_folders_and_list_their_tools(tmp_path: Path) -> None:
    try:
        workspace = build_workspace(tmp_path, document_servers=True)
    except PeersMissingError as exc:
        missing_peer(str(exc))
    servers = json.loads(workspace.servers_file.read_text(encoding="utf-8"))["mcpServers"]
    assert set(DOCUMENT_SERVERS) <= set(servers)
    assert not set(BATCH_SERVERS) & set(servers)
    assert servers["vault"]["roots"] == [str(tmp_path / "vault")]
    assert servers["word"]["roots"] == [str(tmp_path / "documents")]
    assert servers["word"]["cwd"] == str(tmp_path / "documents")
    assert (tmp_path / "vault" / "Projects" / "Apollo.md").is_file()
    assert (tmp_path / "documents" / "proposal.docx").is_file()

    manifest = _discover(workspace.servers_file, workspace.data_dir, workspace.db_path)

    assert manifest.problems() == []
    tools = {c.key for c in manifest.capabilities() if c.type == "tool"}
    assert {
        "vault__read_note",
        "vault__write_note",
        "vault__search_notes",
        "vault__move_note",
        "vault__delete_note",
        "vault__get_frontmatter",
    } <= tools
    assert {
        "word__list_available_documents",
        "word__get_document_text",
        "word__add_paragraph",
        "word__search_and_replace",
        "word__get_comments_by_author",
        "word__protect_document",
    } <= tools


@pytest.mark.peers
@pytest.mark.processes
def test_without_the_flag_the_workspace_names_no_document_server(tmp_path: Path) -> None:
    try:
        workspace = build_workspace(tmp_path, batch_servers=True)
    except PeersMissingError as exc:
        missing_peer(str(exc))
    servers = json.loads(workspace.servers_file.read_text(encoding="utf-8"))["mcpServers"]
    assert not set(DOCUMENT_SERVERS) & set(servers)
    assert not (tmp_path / "vault").exists()


# -- which servers each batch runs with -------------------------------------------------------


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


def test_each_batch_runs_with_the_servers_of_the_latest_it_names_and_those_before() -> None:
    case_set = CaseSet(
        [
            Batch(id="tuned", servers={"files": "server-filesystem@1"}),
            Batch(id="new-servers", servers={"excel": "excel-mcp-server@2"}),
            Batch(id="held-out-3", servers={"vault": "mcpvault@0.16", "files": "server-filesystem@1"}),
        ],
        [
            _case("a", "files", "tuned"),
            _case("b", "none", "new-servers"),
            _case("c", "files", "held-out-3"),
            # A batch without a header is placed by its cases' groups.
            _case("d", "word", "headerless"),
        ],
    )

    parts = _by_servers(case_set)

    assert [(tier, [c.id for c in part.cases], [b.id for b in part.batches]) for part, tier in parts] == [
        (0, ["a"], ["tuned"]),
        (1, ["b"], ["new-servers"]),
        (2, ["c", "d"], ["held-out-3"]),
    ]
