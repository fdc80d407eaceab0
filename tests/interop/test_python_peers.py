"""PyPI servers, each from its own venv: mcp-server-time (Python SDK 1.x) and
mcp-server-git (Python SDK 2.x, which negotiates the 2026 protocol)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from mcp_host.sdk_client import SdkMcpClient
from tests.interop.peers import (
    declared_types,
    git_server,
    offered_types,
    only_server,
    time_server,
    type_counts,
)


def test_mcp_server_time_offers_two_tools_on_the_2025_protocol(logs: Path) -> None:
    target = time_server()
    with SdkMcpClient({"time": target}, log_dir=logs) as client:
        server = only_server(client.discover())

    assert server.ok, server.error
    # An SDK 1.x server: it rejects the 2.x client's server/discover probe, and the client
    # falls back to the initialize handshake.
    assert server.protocol_version == "2025-11-25"
    assert type_counts(server) == {"tool": 2}
    assert declared_types(target) == offered_types(server) == {"tool"}


def test_mcp_server_time_tells_the_current_time_in_a_named_zone(logs: Path) -> None:
    with SdkMcpClient({"time": time_server()}, log_dir=logs) as client:
        result = client.call_tool("time", "get_current_time", {"timezone": "Europe/Paris"})

    assert result.success, result.error
    assert result.content[0].text is not None
    answer = json.loads(result.content[0].text)
    assert answer["timezone"] == "Europe/Paris"
    assert datetime.fromisoformat(answer["datetime"]).utcoffset() is not None


def test_mcp_server_git_offers_twelve_tools_on_the_2026_protocol(git_repository: Path, logs: Path) -> None:
    target = git_server(git_repository)
    with SdkMcpClient({"git": target}, log_dir=logs) as client:
        server = only_server(client.discover())

    assert server.ok, server.error
    assert server.protocol_version == "2026-07-28"
    assert type_counts(server) == {"tool": 12}
    # SDK 2.x's MCPServer declares resources and prompts even when it has none: the host
    # asks for them (declared, so no "Method not found") and gets empty lists.
    assert declared_types(target) == {"tool", "resource", "prompt"}
    assert offered_types(server) == {"tool"}


def test_mcp_server_git_reports_the_status_and_log_of_a_fresh_repository(
    git_repository: Path, logs: Path
) -> None:
    with SdkMcpClient({"git": git_server(git_repository)}, log_dir=logs) as client:
        status = client.call_tool("git", "git_status", {"repo_path": str(git_repository)})
        log = client.call_tool("git", "git_log", {"repo_path": str(git_repository)})

    assert status.success, status.error
    assert status.content[0].text is not None
    assert "On branch main" in status.content[0].text
    assert "untracked.txt" in status.content[0].text
    assert log.success, log.error
    assert log.content[0].text is not None
    assert "first commit" in log.content[0].text
