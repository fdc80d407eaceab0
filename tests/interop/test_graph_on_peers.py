"""The whole graph (discover, select, validate, invoke, integrate) on a real third-party server."""

from __future__ import annotations

from pathlib import Path

from graph.builder import CompiledGraph
from graph.state import ReviewDecision
from mcp_host.sdk_client import SdkMcpClient
from reviews.resume import resume
from tests.interop.peers import filesystem_server
from tests.support import ask, context_for


def test_the_graph_lists_the_project_folder_through_server_filesystem(
    graph: CompiledGraph, project_root: Path, logs: Path
) -> None:
    with SdkMcpClient({"files": filesystem_server(project_root)}, log_dir=logs) as client:
        outcome = ask(graph, client, "List the files in the project folder.")
        if outcome.final_output.status == "needs_clarification":
            # server-filesystem requires `path`; the planner never invents one, so it asks.
            answer = ReviewDecision(action="answer", by="operator", text=f"path={project_root}")
            outcome = resume(graph, context_for(client), outcome.final_output.thread_id, answer)

    final = outcome.final_output
    assert final.status == "ok", final.response
    assert "notes.md" in final.response
    assert "sample.txt" in final.response


def test_asking_for_sizes_runs_the_listing_with_sizes(
    graph: CompiledGraph, project_root: Path, logs: Path
) -> None:
    with SdkMcpClient({"files": filesystem_server(project_root)}, log_dir=logs) as client:
        done = ask(graph, client, f"List the files with their sizes in the folder path={project_root}")

    final = done.final_output
    assert final.status == "ok", final.response
    assert final.selected_capability is not None
    assert final.selected_capability.name == "list_directory_with_sizes"
    assert "notes.md" in final.response
    assert "sample.txt" in final.response


def test_a_missing_file_is_reported_missing_not_read_through_another_tool(
    graph: CompiledGraph, project_root: Path, logs: Path
) -> None:
    # read_text_file answers with a tool error; read_multiple_files would put the same error
    # inside a successful result, which read as an "ok" (graph/fallback.py).
    missing = project_root / "missing.txt"
    with SdkMcpClient({"files": filesystem_server(project_root)}, log_dir=logs) as client:
        outcome = ask(graph, client, f"Read the file {missing}")

    final = outcome.final_output
    assert outcome.path.count("invoke_mcp_capability") == 1
    assert final.status == "error", final.response
    assert final.selected_capability is not None
    assert final.selected_capability.name == "read_text_file"
    assert "ENOENT" in final.response
    assert final.result is None
