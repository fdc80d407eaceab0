"""A server offering 10,000 tools (tests/adversarial/many_tools_server.py, 500 to a page).

The attack: nothing in any one tool is hostile, only their number. A host that fetches, scores
and stores every one of them does unbounded work on every request: each request scores every
capability and keeps the whole offer in its checkpoint.

First tried: no cap existed. The listing was fetched to its end, every request scored all
10,012 capabilities and wrote the whole offer into its checkpoint (two requests left a 52 MB
SQLite file). Fixed in mcp_host/sdk_client.py: at most 1,000 entries of each listing are used
from one server, the listing is not fetched past them, and the server's manifest says so. The
tests below failed before.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from graph.builder import CompiledGraph
from graph.planner.deterministic import CANDIDATES_KEPT
from graph.planner.model import ModelPlanner
from graph.planner.shortlist import SHORTLIST
from graph.runner import start_request, thread_config
from mcp_host.sdk_client import SdkMcpClient
from servers.filesystem import build_server as build_filesystem
from tests.adversarial.harness import gatehouse_with
from tests.adversarial.many_tools_server import PAGE, build
from tests.graph.scripted_model import ScriptedChatModel, tool_call
from tests.graphs import sqlite_graph
from tests.mcp_host.helpers import lowlevel
from tests.support import ask, context_for

LIMIT = 1_000  # the entries of one listing used from one server
NOTE = "tools listing has more than 1,000 entries: only the first 1,000 are used, the rest are ignored"


@pytest.fixture
def many_and_filesystem(data_dir: Path) -> Iterator[tuple[SdkMcpClient, list[str | None]]]:
    """The 10,000-tool server beside the real filesystem server, in-process; and the cursors the
    many-tool server was asked for."""
    server, asked = build()
    with SdkMcpClient({"many": lowlevel(server), "filesystem": build_filesystem(data_dir)}) as client:
        yield client, asked


graph = sqlite_graph


def test_a_server_offering_ten_thousand_tools_is_listed_only_up_to_the_limit_and_says_so(
    many_and_filesystem: tuple[SdkMcpClient, list[str | None]],
) -> None:
    client, asked = many_and_filesystem

    manifest = client.discover()

    many = manifest.server("many")
    assert many is not None and many.ok, many
    assert [c.name for c in many.capabilities] == [f"gadget_{n}" for n in range(LIMIT)]
    assert many.rejected == [NOTE]
    assert f"server many: {NOTE}" in manifest.problems()
    # Fetched only until the limit was passed: one page past it, not the twenty pages on offer.
    assert asked == [None, *(str(PAGE * n) for n in range(1, LIMIT // PAGE + 1))]
    assert len(manifest.capabilities()) == LIMIT + 3  # and the filesystem server's three tools


def test_a_server_offering_exactly_the_limit_is_used_whole_without_a_note() -> None:
    server, asked = build(total=LIMIT)
    with SdkMcpClient({"many": lowlevel(server)}) as client:
        many = client.discover().server("many")

    assert many is not None and many.ok, many
    assert len(many.capabilities) == LIMIT
    assert many.rejected == []
    assert asked == [None, str(PAGE)]


def test_a_request_beside_ten_thousand_tools_plans_over_the_limited_offer_and_keeps_five_candidates(
    many_and_filesystem: tuple[SdkMcpClient, list[str | None]], graph: CompiledGraph
) -> None:
    client, _ = many_and_filesystem

    run = ask(graph, client, "List the files in the managed project folder.")

    assert run.final_output.status == "ok", run.final_output.fallback_reason
    state = graph.get_state(thread_config(run.final_output.thread_id)).values
    stored = {
        server["name"]: len(server["capabilities"]) for server in state["capability_manifest"]["servers"]
    }
    assert stored == {"many": LIMIT, "filesystem": 3}  # what the checkpoint keeps is bounded too
    assert len(state["candidate_capabilities"]) <= CANDIDATES_KEPT
    assert state["selected_capability"]["key"] == "filesystem__list_directory"


def test_the_language_model_is_shown_a_shortlist_beside_a_thousand_tools_and_it_holds_the_one_needed(
    many_and_filesystem: tuple[SdkMcpClient, list[str | None]], graph: CompiledGraph
) -> None:
    client, _ = many_and_filesystem
    model = ScriptedChatModel(
        script=[tool_call("filesystem__list_directory", {}, {}, "It lists the project folder.")]
    )
    planner = ModelPlanner(model, "openai:gpt-4.1-mini", timeout=30.0)

    run = start_request(
        graph, replace(context_for(client), planner=planner), "Which files sit in the managed project folder?"
    )

    shown = [tool["function"]["name"] for tool in model.tools_seen[0] or []]
    assert len(shown) <= SHORTLIST  # of 1,003 capabilities offered
    assert "filesystem__list_directory" in shown
    assert run.final_output.selected_capability is not None
    assert run.final_output.selected_capability.name == "list_directory"


@pytest.mark.processes
def test_servers_check_over_stdio_names_the_limit_for_the_server_that_passes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gatehouse = gatehouse_with(tmp_path, monkeypatch, capsys, {"many": "many_tools_server"})

    checked = gatehouse.run("servers", "check")

    assert "ok    many" in checked.out, checked.out + checked.err
    assert "1000 tools, 0 prompts, 0 resources" in checked.out, checked.out
    assert "more than 1,000 entries: only the first 1,000 are used" in checked.out
