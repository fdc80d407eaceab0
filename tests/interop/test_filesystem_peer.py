"""@modelcontextprotocol/server-filesystem (TypeScript SDK 1.x) through the host, over stdio."""

from __future__ import annotations

from pathlib import Path

from mcp_host.sdk_client import SdkMcpClient
from tests.interop.peers import declared_types, filesystem_server, offered_types, only_server, type_counts


def test_server_filesystem_offers_fourteen_tools_and_declares_nothing_else(
    project_root: Path, logs: Path
) -> None:
    target = filesystem_server(project_root)
    with SdkMcpClient({"files": target}, log_dir=logs) as client:
        server = only_server(client.discover())

    assert server.ok, server.error
    assert server.protocol_version == "2025-11-25"
    assert type_counts(server) == {"tool": 14}
    assert declared_types(target) == offered_types(server) == {"tool"}
    listing = next(c for c in server.capabilities if c.name == "list_directory")
    assert listing.required_arguments == ["path"]
    assert listing.annotations.get("read_only_hint") is True


def test_server_filesystem_lists_and_reads_the_files_in_its_root(project_root: Path, logs: Path) -> None:
    with SdkMcpClient({"files": filesystem_server(project_root)}, log_dir=logs) as client:
        listing = client.call_tool("files", "list_directory", {"path": str(project_root)})
        reading = client.call_tool("files", "read_text_file", {"path": str(project_root / "sample.txt")})

    assert listing.success, listing.error
    assert listing.content[0].text is not None
    assert listing.content[0].text.splitlines() == ["[FILE] notes.md", "[FILE] sample.txt"]
    # This server declares an output schema on every tool and fills it: {"content": <the text>}.
    assert listing.structured == {"content": listing.content[0].text}
    assert not listing.untrusted
    assert reading.success, reading.error
    assert reading.content[0].text == "hello from the sample file\n"


def test_server_filesystem_refuses_a_path_outside_its_root_and_the_host_calls_it_auth(
    project_root: Path, tmp_path: Path, logs: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours\n", encoding="utf-8")

    with SdkMcpClient({"files": filesystem_server(project_root)}, log_dir=logs) as client:
        result = client.call_tool("files", "read_text_file", {"path": str(outside)})

    assert not result.success
    assert result.error is not None
    # An is_error result whose text says "Access denied": the host's text rules make it auth.
    assert result.error.kind == "auth"
    assert "Access denied" in result.error.message
