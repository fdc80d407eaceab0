"""A question about a database's records asked in words ("how many shipments since ...") is
for the database's read-query tool, asked about with the query named as missing: never
answered without MCP, never another server's tool. Made-up servers, so a pass is the rule."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp.server.mcpserver import MCPServer

from graph.context import Limits
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from mcp_host.manifest import Capability
from mcp_host.sdk_client import SdkMcpClient


def _depot_server() -> MCPServer:
    server = MCPServer("depot")

    @server.tool(description="Execute a SELECT statement on the depot database.")
    def query_rows(sql: str) -> str:
        return "[]"

    @server.tool(description="Execute an INSERT, UPDATE or DELETE statement on the depot database.")
    def change_rows(sql: str) -> str:
        return "0 rows"

    return server


def _notes_server() -> MCPServer:
    server = MCPServer("jotter")

    @server.tool(description="List the notes kept in the jotter.")
    def list_notes() -> list[str]:
        return []

    @server.tool(description="Search the notes for a phrase.")
    def search_notes(query: str) -> list[str]:
        return []

    return server


@pytest.fixture(scope="module")
def offered() -> Iterator[list[Capability]]:
    with SdkMcpClient({"depot": _depot_server(), "jotter": _notes_server()}) as pool:
        yield pool.discover().capabilities()


def _plan(offered: list[Capability], text: str) -> tuple[str | None, list[str]]:
    planner = DeterministicPlanner()
    request = PlanningRequest(text=text)
    selection = planner.select(request, offered, Limits())
    if selection.chosen is None:
        return None, []
    return selection.chosen.capability.name, planner.extract(selection.chosen.capability, request).missing


@pytest.mark.parametrize(
    "text",
    [
        "How many shipments have left since 3 March?",
        "Which parcels weigh more than 5 kilos?",
        "Give me the 3 most recent shipments",
        "Who is our biggest supplier by total volume?",
    ],
)
def test_a_question_about_records_in_words_selects_the_read_query_tool_and_asks_for_the_query(
    offered: list[Capability], text: str
) -> None:
    assert _plan(offered, text) == ("query_rows", ["sql"])


def test_a_question_about_what_another_tool_is_named_for_never_goes_to_the_query_tool(
    offered: list[Capability],
) -> None:
    selection = DeterministicPlanner().select(
        PlanningRequest(text="How many notes are there?"), offered, Limits()
    )

    offered_choices = {
        s.capability.name for s in (selection.chosen, selection.ambiguous_with) if s is not None
    }
    assert offered_choices and "query_rows" not in offered_choices
