"""A request that names where a server's capabilities say they work ("the ledger database",
"in the notebook") names that server, as its configured name would: the others are left out.
Running a query not yet written orders no change. Made-up servers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp.server.mcpserver import MCPServer

from graph.context import Limits
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from mcp_host.manifest import Capability
from mcp_host.sdk_client import SdkMcpClient


def _books_server() -> MCPServer:
    server = MCPServer("acct")

    @server.tool(description="Execute a SELECT query on the ledger database.")
    def read_query(query: str) -> str:
        return "[]"

    @server.tool(description="Execute an INSERT, UPDATE or DELETE query on the ledger database.")
    def write_query(query: str) -> str:
        return "0 rows"

    return server


def _wiki_server() -> MCPServer:
    """A neighbour whose search also takes a query."""
    server = MCPServer("wiki")

    @server.tool(description="Search the wiki pages for a phrase.")
    def search_pages(query: str) -> list[str]:
        return []

    return server


@pytest.fixture(scope="module")
def offered() -> Iterator[list[Capability]]:
    with SdkMcpClient({"acct": _books_server(), "wiki": _wiki_server()}) as pool:
        yield pool.discover().capabilities()


def test_a_query_to_run_against_a_named_database_is_the_database_read_query_asked_for(
    offered: list[Capability],
) -> None:
    planner = DeterministicPlanner()
    request = PlanningRequest(text="I want to query the payroll database")
    selection = planner.select(request, offered, Limits())

    assert selection.chosen is not None
    assert selection.chosen.capability.key == "acct__read_query"
    assert planner.extract(selection.chosen.capability, request).missing == ["query"]
