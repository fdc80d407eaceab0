"""What a failed call leads to: another capability is tried only where its answer can stand
for the one asked for, and an answer that another capability gave says the first one failed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from graph.builder import CompiledGraph
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import Composition
from graph.runner import start_request
from mcp_host.manifest import Manifest, capability_key
from mcp_host.results import ContentItem, McpResult
from tests.fakes import FaultInjectingClient, failure
from tests.support import ask, context_for

MISSING = "ENOENT: no such file or directory, open 'missing.txt'"


def _renamed(server: str, name: str, new_name: str) -> Callable[[Manifest], Manifest]:
    """The manifest with ``server``'s ``name`` offered as ``new_name``: another capability that
    does the same work, as server-filesystem's read_multiple_files beside read_text_file."""

    def rename(manifest: Manifest) -> Manifest:
        servers = []
        for offer in manifest.servers:
            capabilities = [
                c.model_copy(update={"name": new_name, "key": capability_key(server, new_name)})
                if (c.server, c.name) == (server, name)
                else c
                for c in offer.capabilities
            ]
            servers.append(offer.model_copy(update={"capabilities": capabilities}))
        return manifest.model_copy(update={"servers": servers})

    return rename


def _per_file_errors(server: str, capability_type: str, name: str) -> McpResult:
    """A successful result whose text reports the file's error, as read_multiple_files does."""
    text = f"missing.txt: Error - {MISSING}"
    return McpResult(
        success=True,
        server=server,
        capability_type=capability_type,
        name=name,
        content=[ContentItem(type="text", text=text, size=len(text))],
        original_bytes=len(text),
    )


def test_a_tool_error_is_the_answer_not_a_reason_to_ask_another_capability(
    graph: CompiledGraph, mirrored_client: FaultInjectingClient
) -> None:
    mirrored_client.manifest_filter = _renamed("mirror", "read_file", "read_text_file")
    mirrored_client.faults["filesystem__read_file"] = [failure("tool_error", MISSING)]
    mirrored_client.faults["mirror__read_text_file"] = [_per_file_errors]

    outcome = ask(graph, mirrored_client, "Read the file missing.txt", server_preferences=["filesystem"])

    final = outcome.final_output
    assert [call[:2] for call in mirrored_client.calls] == [("filesystem", "read_file")]
    assert final.status == "error"
    assert MISSING in final.response
    assert final.selected_capability is not None and final.selected_capability.name == "read_file"


def test_a_tool_error_is_retried_on_the_same_tool_of_another_server_and_the_answer_says_so(
    graph: CompiledGraph, mirrored_client: FaultInjectingClient
) -> None:
    mirrored_client.faults["filesystem__list_directory"] = [failure("tool_error", "disk hiccup")]

    outcome = ask(
        graph, mirrored_client, "List the files in the project folder.", server_preferences=["filesystem"]
    )

    final = outcome.final_output
    assert [call[0] for call in mirrored_client.calls] == ["filesystem", "mirror"]
    assert final.status == "ok"
    assert final.response.startswith("filesystem__list_directory failed first (tool_error: disk hiccup)")
    assert "mirror/list_directory returned" in final.response


def test_an_unreachable_tool_still_leads_to_another_capability_and_the_answer_says_so(
    graph: CompiledGraph, mirrored_client: FaultInjectingClient
) -> None:
    mirrored_client.manifest_filter = _renamed("mirror", "read_file", "read_text_file")
    mirrored_client.faults["filesystem__read_file"] = [failure("unavailable", "connection reset")]
    mirrored_client.faults["mirror__read_text_file"] = [_per_file_errors]

    outcome = ask(graph, mirrored_client, "Read the file missing.txt", server_preferences=["filesystem"])

    final = outcome.final_output
    assert [call[:2] for call in mirrored_client.calls] == [
        ("filesystem", "read_file"),
        ("mirror", "read_text_file"),
    ]
    # The first tool never answered, so the second one's answer is the only one; it is shown as
    # it came, after the first one's failure.
    assert final.status == "ok"
    assert final.response.startswith("filesystem__read_file failed first (unavailable: connection reset)")
    assert MISSING in final.response


class ComposingPlanner(DeterministicPlanner):
    """Writes the answer from the result alone, as a model does (graph/planner/model.py)."""

    def compose(self, composition: Composition) -> str:
        return f"The folder holds {composition.result_text!r}."


def test_a_composed_answer_from_a_stand_in_still_says_the_first_call_failed(
    graph: CompiledGraph, mirrored_client: FaultInjectingClient
) -> None:
    mirrored_client.faults["filesystem__list_directory"] = [failure("tool_error", "disk hiccup")]
    context = replace(context_for(mirrored_client), planner=ComposingPlanner())

    outcome = start_request(
        graph, context, "List the files in the project folder.", server_preferences=["filesystem"]
    )

    final = outcome.final_output
    assert final.status == "ok" and final.composed
    assert final.response.startswith("filesystem__list_directory failed first (tool_error: disk hiccup). ")
    assert "The folder holds" in final.response
