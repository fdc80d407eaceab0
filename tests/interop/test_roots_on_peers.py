"""Roots declared in a servers file, on @modelcontextprotocol/server-filesystem: the server
works in the folders it is told, hears when they change, and the shipped policy holds its
writes to them (the issue's user, who points it at their own folder)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gatehouse.settings import Settings
from gatehouse.wiring import open_services
from mcp_host.config import ServerRoot, StdioServer
from mcp_host.sdk_client import SdkMcpClient
from tests.interop.peers import filesystem_server
from tests.support import wait_until


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    named = {name: (tmp_path / name) for name in ("started", "mine", "later")}
    for folder in named.values():
        folder.mkdir()
    return {name: folder.resolve() for name, folder in named.items()}


def files_entry(started: Path, roots: list[Path]) -> StdioServer:
    """server-filesystem started on ``started``, its entry declaring ``roots``."""
    started_with = filesystem_server(started)
    return StdioServer(
        name="files",
        command=started_with.command,
        args=started_with.args,
        roots=[ServerRoot(path=str(root)) for root in roots],
    )


def allowed(client: SdkMcpClient, server: str = "files") -> list[str]:
    result = client.call_tool(server, "list_allowed_directories", {})
    assert result.success, result.error
    lines = (result.content[0].text or "").splitlines()
    assert lines[0] == "Allowed directories:"
    return lines[1:]


def test_server_filesystem_works_in_the_declared_roots_and_follows_a_change(
    folders: dict[str, Path], logs: Path
) -> None:
    targets = {
        "files": files_entry(folders["started"], [folders["mine"]]),
        "plain": files_entry(folders["started"], []).model_copy(update={"name": "plain"}),
    }
    with SdkMcpClient(targets, log_dir=logs) as client:
        # It asks for the roots once initialized, and trades its command-line folder for them.
        wait_until(lambda: allowed(client) == [str(folders["mine"])], timeout=10, what="the declared root")
        # A server whose entry declares none is not offered roots: it keeps its own folder.
        assert allowed(client, "plain") == [str(folders["started"])]

        assert client.set_roots("files", [folders["later"]])

        wait_until(lambda: allowed(client) == [str(folders["later"])], timeout=10, what="the changed root")


@pytest.fixture
def services_on_my_folder(tmp_path: Path, folders: dict[str, Path]) -> Iterator[tuple[Settings, Path]]:
    entry = files_entry(folders["mine"], [])
    servers = tmp_path / "servers.json"
    config = {"mcpServers": {"files": {"command": entry.command, "args": entry.args, "roots": ["mine"]}}}
    servers.write_text(json.dumps(config), encoding="utf-8")
    data = tmp_path / "data"
    data.mkdir()
    yield Settings(data_dir=data, db_path=data / "gatehouse.db", servers_path=servers), servers


def test_with_the_shipped_policy_writes_in_my_folder_are_reviewed_and_writes_elsewhere_refused(
    services_on_my_folder: tuple[Settings, Path], folders: dict[str, Path]
) -> None:
    settings, servers = services_on_my_folder
    with open_services(settings) as services:
        mine = services.requests.ask(f"Write 'remember the milk' to {folders['mine'] / 'todo.txt'}")
        elsewhere = services.requests.ask(f"Write 'remember the milk' to {folders['later'] / 'todo.txt'}")

    assert mine.final_output.status == "needs_review", mine.final_output.response
    assert elsewhere.final_output.status == "error"
    assert f"outside the roots declared for server 'files' in {servers}" in elsewhere.final_output.response
    assert not (folders["mine"] / "todo.txt").exists()
