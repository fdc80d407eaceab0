"""@modelcontextprotocol/server-memory: a knowledge graph kept in a file we choose."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_host.sdk_client import SdkMcpClient
from tests.interop.peers import declared_types, memory_server, offered_types, only_server, type_counts


def test_server_memory_offers_nine_tools_and_its_graph_as_a_resource(tmp_path: Path, logs: Path) -> None:
    target = memory_server(tmp_path / "memory.jsonl")
    with SdkMcpClient({"memory": target}, log_dir=logs) as client:
        server = only_server(client.discover())

    assert server.ok, server.error
    assert server.protocol_version == "2025-11-25"
    assert type_counts(server) == {"tool": 9, "resource": 1}
    assert declared_types(target) == offered_types(server) == {"tool", "resource"}
    assert [c.uri for c in server.capabilities if c.type == "resource"] == ["memory://knowledge-graph"]


def test_server_memory_reads_back_what_was_stored_in_its_file(tmp_path: Path, logs: Path) -> None:
    memory_file = tmp_path / "memory.jsonl"
    entity = {"name": "Gatehouse", "entityType": "project", "observations": ["reviews MCP calls"]}

    with SdkMcpClient({"memory": memory_server(memory_file)}, log_dir=logs) as client:
        empty = client.call_tool("memory", "read_graph", {})
        created = client.call_tool("memory", "create_entities", {"entities": [entity]})
        graph = client.call_tool("memory", "read_graph", {})
        resource = client.read_resource("memory", "memory://knowledge-graph")

    assert empty.success, empty.error
    assert empty.structured == {"entities": [], "relations": []}
    assert created.success, created.error
    assert graph.structured == {"entities": [entity], "relations": []}
    assert resource.success, resource.error
    assert resource.content[0].text is not None
    assert json.loads(resource.content[0].text)["entities"] == [entity]
    # The graph went to our file, not next to the server's code in .peers.
    assert "Gatehouse" in memory_file.read_text(encoding="utf-8")
