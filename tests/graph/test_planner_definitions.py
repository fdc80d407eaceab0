"""What the planner reads off a capability's definition is kept per definition
(graph/planner/definitions.py): a changed definition is read afresh, an equal one is not."""

from __future__ import annotations

from typing import Any

from graph.planner import definitions
from graph.planner.actions import capability_action
from graph.planner.definitions import definition_key, per_definition
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from graph.planner.scoring import is_unbounded_listing, rank
from mcp_host.manifest import Capability

PATH: dict[str, Any] = {"type": "object", "properties": {"path": {"type": "string"}}}


def _tool(name: str, description: str, schema: dict[str, Any] | None = None, **fields: Any) -> Capability:
    return Capability(
        key=f"files__{name}",
        server="files",
        type="tool",
        name=name,
        description=description,
        input_schema=schema if schema is not None else {},
        **fields,
    )


def test_a_definition_changed_under_the_same_key_is_read_afresh() -> None:
    # A "rug pull": the same tool, its description now saying it deletes.
    before = _tool("folder_items", "Shows the items in the folder.", PATH)
    after = _tool("folder_items", "Deletes the items in the folder.", PATH)
    assert not capability_action(before).acts
    assert capability_action(after).acts
    # Asked again about the first definition: its own reading, not the latest one.
    assert not capability_action(_tool("folder_items", "Shows the items in the folder.", PATH)).acts


def test_every_field_of_a_definition_is_part_of_its_key() -> None:
    base = _tool("dump_all", "Every record.")
    changed = [
        base.model_copy(update={"title": "Dump"}),
        base.model_copy(update={"mime_type": "text/plain"}),
        base.model_copy(update={"server": "other"}),
        base.model_copy(update={"key": "other__dump_all"}),
        base.model_copy(update={"input_schema": PATH}),
        # The admin's words are read by scoring too: a capability given an alias is read afresh.
        base.model_copy(update={"aliases": ["the dump"]}),
        base.model_copy(update={"examples": ["Dump every record"]}),
    ]
    keys = {definition_key(c) for c in [base, *changed]}
    assert len(keys) == 1 + len(changed)
    # An unbounded listing no longer, once it takes a parameter to narrow it with.
    assert is_unbounded_listing(base)
    assert not is_unbounded_listing(_tool("dump_all", "Every record.", PATH))


def test_the_cache_is_bounded(monkeypatch: Any) -> None:
    monkeypatch.setattr(definitions, "DEFINITIONS_KEPT", 3)
    calls: list[str] = []

    @per_definition
    def read(capability: Capability) -> str:
        calls.append(capability.name)
        return capability.name.upper()

    names = [f"tool_{n}" for n in range(10)]
    assert [read(_tool(name, "x")) for name in names] == [name.upper() for name in names]
    assert read(_tool("tool_9", "x")) == "TOOL_9"
    assert calls == names  # the last one was still kept: read once


def test_the_chosen_capability_keeps_the_arguments_scoring_read() -> None:
    tools = [
        _tool("list_directory", "List the files and folders in a directory.", PATH),
        _tool("read_file", "Read a file.", {**PATH, "required": ["path"]}),
    ]
    planner = DeterministicPlanner()
    request = PlanningRequest(text="List the files in the reports folder.")
    selection = planner.select(request, tools, _limits())
    assert selection.chosen is not None
    assert selection.arguments is not None
    fresh = planner.extract(selection.chosen.capability, request)
    assert (selection.arguments.arguments, selection.arguments.missing, selection.arguments.sources) == (
        fresh.arguments,
        fresh.missing,
        fresh.sources,
    )
    # With an answer to a question the planner reads the arguments again (the answer counts).
    answered = PlanningRequest(text="Read a file", answer="notes.md", asked=("path",))
    assert planner.select(answered, tools, _limits()).arguments is None
    assert rank(tools, "Read a file", "tool", [])  # scoring itself is unchanged by either


def _limits() -> Any:
    from graph.context import Limits

    return Limits()
