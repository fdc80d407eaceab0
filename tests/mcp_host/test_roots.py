"""Roots declared in the servers file reach the server that asks for them, over real stdio, in
both protocol eras; set_roots changes them and tells a server that listens for the change."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_host.config import ServerRoot, load_servers_config
from mcp_host.errors import McpHostError
from mcp_host.results import McpResult
from mcp_host.sdk_client import SdkMcpClient
from tests.mcp_host.helpers import REPO_ROOT
from tests.support import wait_until

# Starts processes of its own (servers over stdio, the CLI): not in `make quick`.
pytestmark = pytest.mark.processes

# The server as the pool meets it: 2026-07-28 (roots asked within a call), or a server that
# speaks only the initialize handshake (2025-11-25, where roots/list_changed exists).
ERAS = {"2026-07-28": [], "2025-11-25": ["--handshake"]}


def servers_file(folder: Path, roots: list[Any] | None, *extra: str) -> Path:
    entry: dict[str, Any] = {
        "command": sys.executable,
        "args": ["-m", "tests.mcp_host.roots_server", *extra],
        "cwd": str(REPO_ROOT),
    }
    if roots is not None:
        entry["roots"] = roots
    path = folder / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"fs": entry}}), encoding="utf-8")
    return path


def pool_for(path: Path) -> SdkMcpClient:
    config = load_servers_config(path)
    return SdkMcpClient({entry.name: entry for entry in config.servers}, connect_timeout=20)


def answered(result: McpResult) -> Any:
    assert result.success, result.error
    return json.loads(result.content[0].text or "")


@pytest.fixture(params=list(ERAS), ids=list(ERAS))
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def declared(tmp_path: Path) -> Path:
    (tmp_path / "notes").mkdir()
    return tmp_path


@pytest.fixture
def pool(declared: Path, era: str) -> Iterator[SdkMcpClient]:
    roots = ["notes", {"uri": "file:///srv/shared", "name": "Shared"}]
    with pool_for(servers_file(declared, roots, *ERAS[era])) as client:
        assert client.health()[0].protocol_version == era
        yield client


def test_a_server_asking_for_its_roots_gets_the_ones_declared_in_the_servers_file(
    pool: SdkMcpClient, declared: Path
) -> None:
    roots = answered(pool.call_tool("fs", "roots", {}))

    assert roots == [
        {"uri": (declared / "notes").resolve().as_uri(), "name": None},
        {"uri": "file:///srv/shared", "name": "Shared"},
    ]
    assert pool.roots("fs") == [
        ServerRoot(path=str((declared / "notes").resolve())),
        ServerRoot(path="/srv/shared", name="Shared"),
    ]


def test_changed_roots_answer_the_next_question(pool: SdkMcpClient, tmp_path: Path) -> None:
    pool.set_roots("fs", [tmp_path / "elsewhere", ServerRoot(path="/srv/other", name="Other")])

    roots = answered(pool.call_tool("fs", "roots", {}))

    assert roots == [
        {"uri": (tmp_path / "elsewhere").resolve().as_uri(), "name": None},
        {"uri": "file:///srv/other", "name": "Other"},
    ]


def test_a_server_on_the_handshake_era_hears_that_the_roots_changed_and_asks_again(
    declared: Path, tmp_path: Path
) -> None:
    with pool_for(servers_file(declared, ["notes"], "--handshake")) as pool:
        assert answered(pool.call_tool("fs", "heard", {})) == []

        sent = pool.set_roots("fs", ["/srv/new"])

        assert sent
        # The server asks for the roots when it hears of the change, as server-filesystem does.
        wait_until(
            lambda: answered(pool.call_tool("fs", "heard", {})) != [], timeout=10, what="the notification"
        )
        assert answered(pool.call_tool("fs", "heard", {})) == [[{"uri": "file:///srv/new", "name": None}]]


def test_on_2026_07_28_no_change_notification_is_sent_it_has_none(declared: Path) -> None:
    with pool_for(servers_file(declared, ["notes"])) as pool:
        sent = pool.set_roots("fs", ["/srv/new"])

        assert not sent
        assert answered(pool.call_tool("fs", "roots", {})) == [{"uri": "file:///srv/new", "name": None}]


def test_a_server_without_declared_roots_is_not_offered_any(declared: Path, era: str) -> None:
    with pool_for(servers_file(declared, None, *ERAS[era])) as pool:
        result = pool.call_tool("fs", "roots", {})

        # No roots capability: the server's question fails, and nothing names a folder.
        assert not result.success
        assert result.error is not None
        assert any(
            words in result.error.message
            for words in ("did not declare the roots capability", "List roots not supported")
        )
        assert "file://" not in json.dumps(result.model_dump(mode="json"))
        assert pool.roots("fs") is None
        with pytest.raises(McpHostError, match="declared no roots"):
            pool.set_roots("fs", ["/srv/new"])


def test_roots_set_at_runtime_must_be_absolute_folders(declared: Path) -> None:
    with pool_for(servers_file(declared, ["notes"])) as pool:
        with pytest.raises(ValueError, match="absolute folder"):
            pool.set_roots("fs", ["relative/folder"])

        assert pool.roots("fs") == [ServerRoot(path=str((declared / "notes").resolve()))]
