"""`roots` in a servers file: the folders a server is told it may work in, each mistake named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_host.config import (
    ConfigError,
    HttpServer,
    ServerRoot,
    StdioServer,
    load_servers_config,
    parse_servers_config,
)


def test_roots_are_folders_relative_to_the_servers_file_or_mcp_root_objects(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    entry = {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-filesystem"],
        "roots": [
            "notes",
            "${HOME_DIR}/projects",
            {"uri": "file:///srv/shared%20drive", "name": "Shared"},
            "./notes/",
        ],
    }
    path.write_text(json.dumps({"mcpServers": {"fs": entry}}), encoding="utf-8")

    config = load_servers_config(path, environ={"HOME_DIR": "/home/me"})

    (server,) = config.servers
    assert isinstance(server, StdioServer)
    assert server.roots == [
        ServerRoot(path=str((tmp_path / "notes").resolve())),
        ServerRoot(path="/home/me/projects"),
        ServerRoot(path="/srv/shared drive", name="Shared"),
    ]  # the same folder twice is declared once
    assert server.roots[2].uri == "file:///srv/shared%20drive"
    assert config.declared_roots() == {
        "fs": [str((tmp_path / "notes").resolve()), "/home/me/projects", "/srv/shared drive"]
    }
    assert config.describe()["servers"]["fs"]["roots"] == [
        str((tmp_path / "notes").resolve()),
        "/home/me/projects",
        "/srv/shared drive (Shared)",
    ]


def test_a_remote_server_may_declare_roots_and_a_server_without_them_declares_none() -> None:
    data = {
        "servers": {
            "remote": {"type": "http", "url": "http://127.0.0.1:9/mcp", "roots": ["/srv/share"]},
            "plain": {"command": "x"},
        }
    }

    config = parse_servers_config(data, source="s.json", environ={})

    remote, plain = config.servers
    assert isinstance(remote, HttpServer)
    assert remote.roots == [ServerRoot(path="/srv/share")]
    assert plain.roots == []
    assert config.declared_roots() == {"remote": ["/srv/share"]}
    assert config.describe()["servers"]["plain"]["roots"] == []


def test_declared_roots_cannot_be_changed_on_the_entry() -> None:
    config = parse_servers_config({"mcpServers": {"fs": {"command": "x", "roots": ["/a"]}}}, source="s.json")

    with pytest.raises(ValueError, match="frozen"):
        config.servers[0].roots = []
    with pytest.raises(ValueError, match="frozen"):
        config.servers[0].roots[0].path = "/"


@pytest.mark.parametrize(
    ("roots", "where", "reason"),
    [
        ("/srv", "mcpServers.fs.roots", "must be a list of folders"),
        ({"uri": "file:///srv"}, "mcpServers.fs.roots", "must be a list of folders"),
        ([], "mcpServers.fs.roots", "is empty"),
        ([""], "mcpServers.fs.roots[0]", "is empty"),
        (["/srv", "  "], "mcpServers.fs.roots[1]", "is empty"),
        ([7], "mcpServers.fs.roots[0]", "must be a folder path (a string) or an object"),
        ([["/srv"]], "mcpServers.fs.roots[0]", "must be a folder path (a string) or an object"),
        ([{"name": "x"}], "mcpServers.fs.roots[0].uri", "needs a uri"),
        ([{"uri": "https://example.com/srv"}], "mcpServers.fs.roots[0].uri", "not a file:// URI"),
        ([{"uri": "/srv"}], "mcpServers.fs.roots[0].uri", "not a file:// URI"),
        ([{"uri": "file://otherhost/srv"}], "mcpServers.fs.roots[0].uri", "not a file:// URI"),
        ([{"uri": "file:///srv", "name": 3}], "mcpServers.fs.roots[0].name", "must be a string"),
        (
            [{"uri": "file:///srv", "colour": "red"}],
            "mcpServers.fs.roots[0].colour",
            "unknown key for a root",
        ),
        (["${NOT_SET}/x"], "mcpServers.fs.roots[0]", "environment variable NOT_SET is not set"),
    ],
)
def test_a_bad_roots_value_names_the_file_the_entry_and_the_reason(
    roots: Any, where: str, reason: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_servers_config(
            {"mcpServers": {"fs": {"command": "x", "roots": roots}}}, source="s.json", environ={}
        )

    assert caught.value.where == f"s.json: {where}"
    assert reason in caught.value.reason


def test_a_bad_root_of_a_remote_server_is_named_the_same_way() -> None:
    data = {"mcpServers": {"remote": {"type": "http", "url": "http://127.0.0.1:9/mcp", "roots": "x"}}}

    with pytest.raises(ConfigError) as caught:
        parse_servers_config(data, source="s.json", environ={})

    assert str(caught.value).startswith("s.json: mcpServers.remote.roots: must be a list of folders")
