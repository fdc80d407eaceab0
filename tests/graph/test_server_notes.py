"""One broken server troubles only the answers that needed it, and as a note (issue 32, item 7).

Discovery records every server's trouble in the run's errors (the trace keeps it); the answer's
errors leave out other servers' trouble, and its notes name a troubled server only when the
answer needed it: nothing was chosen (the broken server's offer might have served the
request), or the operator preferred it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp.types as types
from mcp import MCPError
from mcp.server import Server

from gatehouse.display.render import render_text
from graph.builder import CompiledGraph
from graph.runner import RunOutcome
from mcp_host.sdk_client import SdkMcpClient
from mcp_host.transports import ServerTarget
from servers.catalog import build_all
from tests.support import ask

FILES_REQUEST = "List the files in the managed project folder."
NOTHING_FITS_REQUEST = "Book a table for two at an Italian restaurant tomorrow evening"
WHY = "the ledger service is down for maintenance"


def _broken() -> ServerTarget:
    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        raise MCPError(code=-32603, message=WHY)

    server: ServerTarget = Server("ledger", on_list_tools=list_tools)
    return server


def _ask_with_ledger_down(graph: CompiledGraph, data_dir: Path, text: str, **options: object) -> RunOutcome:
    """Ask with the demo servers working and the ledger server failing every listing."""
    with SdkMcpClient({**build_all(data_dir), "ledger": _broken()}) as pool:
        return ask(graph, pool, text, **options)


def test_an_answer_from_a_working_server_carries_nothing_of_a_broken_one(
    graph: CompiledGraph, data_dir: Path
) -> None:
    outcome = _ask_with_ledger_down(graph, data_dir, FILES_REQUEST)

    final = outcome.final_output
    assert final.status == "ok", final
    assert final.errors == [] and final.server_notes == []
    assert WHY not in final.response and WHY not in render_text(final.model_dump(mode="json"))
    # The trouble is recorded all the same: in the run's errors and its manifest (the trace).
    assert any(error.startswith("server ledger: ") and WHY in error for error in outcome.state["errors"])


def test_an_answer_nothing_served_notes_the_server_that_could_not_be_asked(
    graph: CompiledGraph, data_dir: Path
) -> None:
    outcome = _ask_with_ledger_down(graph, data_dir, NOTHING_FITS_REQUEST)

    final = outcome.final_output
    assert final.selected_capability is None, final
    assert final.errors == []
    [note] = final.server_notes
    assert note.startswith("ledger is not available") and WHY in note
    assert "note:" in render_text(final.model_dump(mode="json"))


def test_an_answer_preferring_the_broken_server_notes_it(graph: CompiledGraph, data_dir: Path) -> None:
    outcome = _ask_with_ledger_down(graph, data_dir, FILES_REQUEST, server_preferences=["ledger"])

    [note] = outcome.final_output.server_notes
    assert note.startswith("ledger is not available") and WHY in note
