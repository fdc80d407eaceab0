"""A database server nobody here has seen, whose query tools all take one SQL string and differ
only in the kinds of statement their descriptions name: the statement the request writes out
goes to the tool that names its kind."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp.server.mcpserver import MCPServer

from graph.context import Limits
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from mcp_host.manifest import Capability
from mcp_host.sdk_client import SdkMcpClient


def _ledger_server() -> MCPServer:
    server = MCPServer("ledgerdb")

    @server.tool(description="Execute a SELECT statement on the ledger.")
    def read_sql(sql: str) -> str:
        return "[]"

    @server.tool(description="Execute an INSERT, UPDATE or DELETE statement on the ledger.")
    def write_sql(sql: str) -> str:
        return "0 rows"

    @server.tool(description="Make a new relation in the ledger from a CREATE TABLE statement.")
    def new_relation(sql: str) -> str:
        return "made"

    return server


def _prefs_server() -> MCPServer:
    """A neighbour whose tools update and add things, as a statement's verbs say."""
    server = MCPServer("prefs")

    @server.tool(description="Update one preference of an account owner.")
    def update_pref(owner: str, value: str) -> str:
        return "updated"

    @server.tool(description="Add a new entry for an account owner.")
    def add_entry(owner: str, id: int) -> str:
        return "added"

    return server


@pytest.fixture(scope="module")
def offered() -> Iterator[list[Capability]]:
    with SdkMcpClient({"ledgerdb": _ledger_server(), "prefs": _prefs_server()}) as pool:
        yield pool.discover().capabilities()


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        ("Please run UPDATE accounts SET value = 'Ann' WHERE id = 4", "write_sql"),
        ("Apply this: INSERT INTO accounts (id, owner) VALUES (9, 'Ben')", "write_sql"),
        ("SELECT owner FROM accounts WHERE id = 4", "read_sql"),
        ("Use this statement: CREATE TABLE branches (id INTEGER, city TEXT)", "new_relation"),
    ],
)
def test_a_stated_sql_statement_goes_to_the_tool_whose_description_names_its_kind(
    offered: list[Capability], text: str, tool: str
) -> None:
    selection = DeterministicPlanner().select(PlanningRequest(text=text), offered, Limits())

    assert selection.chosen is not None
    assert selection.chosen.capability.name == tool
    assert selection.ambiguous_with is None
