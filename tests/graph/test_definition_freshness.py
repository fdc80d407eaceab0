"""Which listing a decision is made on: the cached one for a trusted server that promised to
announce changes, a fresh one for every other server."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from mcp.types import PromptsCapability, ResourcesCapability, ServerCapabilities, ToolsCapability

from graph.builder import CompiledGraph
from graph.context import GraphContext
from graph.runner import start_request
from mcp_host.client import McpClient
from mcp_host.manifest import Manifest
from mcp_host.results import McpResult
from mcp_host.sdk_client import SdkMcpClient, _announces_changes
from policies.engine import PolicyEngine
from tests.support import DEFAULT_TEST_POLICY

READ = "List the files in the managed project folder."


@dataclass
class ListingRecorder:
    """Delegates to the real pool and notes every discovery: (fresh, only)."""

    inner: McpClient
    discoveries: list[tuple[bool, list[str] | None]] = field(default_factory=list)

    def discover(self, *, fresh: bool = False, only: list[str] | None = None) -> Manifest:
        self.discoveries.append((fresh, only))
        return self.inner.discover(fresh=fresh, only=only)

    def call_tool(self, server: str, name: str, arguments: dict[str, Any]) -> McpResult:
        return self.inner.call_tool(server, name, arguments)

    def read_resource(self, server: str, uri: str) -> McpResult:
        return self.inner.read_resource(server, uri)

    def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> McpResult:
        return self.inner.get_prompt(server, name, arguments)

    def server_names(self) -> list[str]:
        return self.inner.server_names()

    def close(self) -> None:
        self.inner.close()


def _context(mcp: McpClient, *, trusted: list[str]) -> GraphContext:
    policy = DEFAULT_TEST_POLICY.model_copy(
        update={"servers": DEFAULT_TEST_POLICY.servers.model_copy(update={"trusted": trusted})}
    )
    return GraphContext(mcp=mcp, policy=PolicyEngine(policy))


def test_the_bundled_servers_promise_to_announce_changes(demo_servers: SdkMcpClient) -> None:
    manifest = demo_servers.discover()

    assert {server.name: server.announces_changes for server in manifest.servers} == {
        name: True for name in manifest.server_names()
    }


def test_a_trusted_server_that_announces_changes_is_decided_on_its_cached_listing(
    demo_servers: SdkMcpClient, graph: CompiledGraph
) -> None:
    recorder = ListingRecorder(demo_servers)

    outcome = start_request(graph, _context(recorder, trusted=["filesystem"]), READ)

    assert outcome.final_output.status == "ok"
    assert [fresh for fresh, _ in recorder.discoveries] == [False, False]


def test_an_untrusted_server_is_listed_afresh_before_the_decision(
    demo_servers: SdkMcpClient, graph: CompiledGraph
) -> None:
    recorder = ListingRecorder(demo_servers)

    outcome = start_request(graph, _context(recorder, trusted=[]), READ)

    assert outcome.final_output.status == "ok"
    assert (True, ["filesystem"]) in recorder.discoveries


@pytest.mark.parametrize(
    ("capabilities", "announces"),
    [
        (ServerCapabilities(tools=ToolsCapability(list_changed=True)), True),
        (ServerCapabilities(tools=ToolsCapability(list_changed=False)), False),
        (ServerCapabilities(tools=ToolsCapability()), False),
        (
            ServerCapabilities(
                tools=ToolsCapability(list_changed=True), resources=ResourcesCapability(list_changed=False)
            ),
            False,
        ),
        (
            ServerCapabilities(
                tools=ToolsCapability(list_changed=True),
                resources=ResourcesCapability(list_changed=True),
                prompts=PromptsCapability(list_changed=True),
            ),
            True,
        ),
        (ServerCapabilities(), False),
    ],
)
def test_a_server_announces_changes_only_when_it_says_so_for_everything_it_lists(
    capabilities: ServerCapabilities, announces: bool
) -> None:
    assert _announces_changes(capabilities) is announces
