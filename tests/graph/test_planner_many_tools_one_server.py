"""Many tools of one server that share their words: a made-up grid server ("ledger": tabs of a
book, cells, lines, text files in and out) beside the bundled ones, in memory, through the whole
graph. What the request names and its verb decide among them, arguments are read in a grid's
words, and a request nothing serves runs nothing. Nothing here uses a benchmark server's words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from graph.builder import CompiledGraph
from graph.planner.arguments import extract_arguments
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from tests.graphs import memory_graph
from tests.support import ask

_READS = ToolAnnotations(read_only_hint=True)
_WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=True)
Book = Annotated[str, Field(description="The book file.")]
Tab = Annotated[str, Field(description="The tab's name.")]


def _ledger() -> MCPServer:
    server = MCPServer(name="ledger")

    @server.tool(annotations=_READS)
    def outline_book(path: Book) -> str:
        """A book's tabs, their sizes and the defined labels it holds."""
        return "tabs"

    @server.tool(annotations=_WRITES)
    def drop_tab(path: Book, tab: Tab) -> str:
        """Drop a tab and everything on it."""
        return "dropped"

    @server.tool(annotations=_WRITES)
    def drop_lines(
        path: Book,
        tab: Tab,
        axis: Literal["rows", "columns"],
        first: Annotated[int, Field(description="1-based row, or column number (A=1).")],
    ) -> str:
        """Drop rows or columns from `first`."""
        return "dropped lines"

    @server.tool(annotations=_WRITES)
    def duplicate_tab(path: Book, tab: Tab, new_name: str) -> str:
        """Copy a tab to a new last tab."""
        return "copied"

    @server.tool(annotations=_WRITES)
    def label_block(path: Book, label: str, target: str) -> str:
        """Create a defined label for a block of cells, usable in formulas."""
        return "labelled"

    @server.tool(annotations=_WRITES)
    def unlabel_block(path: Book, label: str) -> str:
        """Delete a defined label."""
        return "unlabelled"

    @server.tool(annotations=_WRITES)
    def load_text(
        path: Book, text_file: str, tab: Tab, separator: Annotated[Literal[",", ";", "."], Field()] = ","
    ) -> str:
        """Import a text file of values into a tab."""
        return "loaded"

    @server.tool(annotations=_WRITES)
    def unload_text(path: Book, tab: Tab, text_file: str) -> str:
        """Export a tab's values as a text file, like Save As."""
        return "unloaded"

    @server.tool(annotations=_WRITES)
    def stamp_cells(
        path: Book,
        tab: Tab,
        anchor: Annotated[str, Field(description="Top-left cell.")],
        values: list[list[str | float]],
    ) -> str:
        """Stamp values into cells from `anchor`."""
        return "stamped"

    @server.tool(annotations=_READS)
    def show_scripts(path: Book) -> str:
        """Show the script code stored in a book document; it is only shown, never run."""
        return "code"

    return server


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SdkMcpClient]:
    data = Path(tmp_path_factory.mktemp("data"))
    with SdkMcpClient({**build_all(data), "ledger": _ledger()}) as client:
        yield client


graph = memory_graph


@pytest.mark.parametrize(
    ("request_text", "capability", "arguments"),
    [
        # The object named (a column, not the tab it is on) decides between two drops.
        (
            "Drop column D from the Costs tab of books.lgr",
            "ledger__drop_lines",
            {"path": "books.lgr", "tab": "Costs", "axis": "columns", "first": 4},
        ),
        # An order in a verb no table knows, said by the tool that acts (a synonym: copy).
        (
            "Duplicate the Costs tab in books.lgr as Costs-old",
            "ledger__duplicate_tab",
            {"path": "books.lgr", "tab": "Costs", "new_name": "Costs-old"},
        ),
        # Saving out is no import, whatever else the two share.
        (
            "Save the Costs tab of books.lgr as costs.txt",
            "ledger__unload_text",
            {"path": "books.lgr", "tab": "Costs", "text_file": "costs.txt"},
        ),
    ],
)
def test_what_the_request_names_and_its_verb_decide_among_one_servers_tools(
    graph: CompiledGraph,
    servers: SdkMcpClient,
    request_text: str,
    capability: str,
    arguments: dict[str, object],
) -> None:
    outcome = ask(graph, servers, request_text)

    assert outcome.state["selected_capability"]["key"] == capability, outcome.final_output.response
    proposed = outcome.state["proposed_arguments"]
    assert {k: proposed.get(k) for k in arguments} == arguments


def test_an_order_to_define_is_never_answered_by_the_read_that_lists_defined_things(
    graph: CompiledGraph, servers: SdkMcpClient
) -> None:
    outcome = ask(graph, servers, "In books.lgr, define the label Total for Costs!B2:B9")

    assert outcome.state["selected_capability"]["key"] == "ledger__label_block"
    assert outcome.final_output.status != "ok"


@pytest.mark.parametrize(
    "request_text", ["Convert books.lgr to a PDF", "Run the script RecalcAll in books.lgr"]
)
def test_a_request_nothing_serves_runs_nothing(
    graph: CompiledGraph, servers: SdkMcpClient, request_text: str
) -> None:
    outcome = ask(graph, servers, request_text)

    assert outcome.final_output.status in {"answered_without_mcp", "needs_clarification"}
    selected = outcome.state.get("selected_capability") or {}
    assert selected.get("name") not in {"show_scripts", "load_text"}


def test_a_punctuation_option_is_not_stated_by_the_dot_of_a_file_name(
    graph: CompiledGraph, servers: SdkMcpClient
) -> None:
    outcome = ask(graph, servers, "Load costs.txt into the Costs tab of books.lgr")

    assert outcome.state["selected_capability"]["key"] == "ledger__load_text"
    assert "separator" not in (outcome.state["proposed_arguments"] or {})


def test_a_cell_and_a_tab_after_on_are_read_in_a_grids_words(
    graph: CompiledGraph, servers: SdkMcpClient
) -> None:
    outcome = ask(graph, servers, "Stamp 12 into cell C3 on Costs in books.lgr")

    assert outcome.state["selected_capability"]["key"] == "ledger__stamp_cells"
    proposed = outcome.state["proposed_arguments"] or {}
    assert (proposed.get("anchor"), proposed.get("tab")) == ("C3", "Costs")


def test_a_plural_option_is_said_in_the_singular_only_with_its_label() -> None:
    schema = {
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": ["values", "formulas", "columns"]}},
    }

    assert extract_arguments(schema, "Drop column F of the grid").arguments == {"kind": "columns"}
    assert extract_arguments(schema, "Which cells feed the formula in B2?").arguments == {}
