"""A key-value store nobody here has seen, in its own words: a key written as ``box:7`` or
``tmp:*`` is one value (never cut at its colon), it points at the store's tools, and the value,
the expiry and several keys are read off the request against the store's schema."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp.server.mcpserver import MCPServer

from graph.context import Limits
from graph.planner.arguments import extract_arguments
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from mcp_host.manifest import Capability
from mcp_host.sdk_client import SdkMcpClient


def _locker_server() -> MCPServer:
    """A made-up store: tool names and descriptions unlike any server the planner was tuned on."""
    server = MCPServer("locker")

    @server.tool(description="Read the content kept in the locker under one key.")
    def fetch(key: str) -> str:
        return ""

    @server.tool(description="Keep a content in the locker under a key, optionally for a number of seconds.")
    def put(key: str, value: str, ttl_seconds: int | None = None) -> str:
        return "kept"

    @server.tool(description="Drop one or several keys from the locker.")
    def drop(key: str | list[str]) -> str:
        return "dropped"

    @server.tool(description="Names of the keys in the locker that match a glob pattern.")
    def keys(pattern: str = "*") -> list[str]:
        return []

    return server


def _drive_server() -> MCPServer:
    """A neighbour that writes too: "save" must not take a key's value there."""
    server = MCPServer("drive")

    @server.tool(description="Write content to a file on the drive.")
    def write_file(path: str, content: str) -> str:
        return "written"

    return server


@pytest.fixture(scope="module")
def offered() -> Iterator[list[Capability]]:
    with SdkMcpClient({"locker": _locker_server(), "drive": _drive_server()}) as pool:
        yield pool.discover().capabilities()


def _schema(offered: list[Capability], name: str) -> dict[str, object]:
    return next(c.input_schema for c in offered if c.name == name)


def _chosen(offered: list[Capability], text: str) -> str | None:
    selection = DeterministicPlanner().select(PlanningRequest(text=text), offered, Limits())
    return selection.chosen.capability.name if selection.chosen else None


@pytest.mark.parametrize(
    ("text", "tool", "arguments"),
    [
        ("What is kept under box:7 in the locker?", "fetch", {"key": "box:7"}),
        ("FETCH tmp:front_page", "fetch", {"key": "tmp:front_page"}),
        ("Store 'closed' under the key shop:state", "put", {"key": "shop:state", "value": "closed"}),
        ("Set job:991 to done", "put", {"key": "job:991", "value": "done"}),
        ("Drop both user:ann and user:ben", "drop", {"key": ["user:ann", "user:ben"]}),
        # A tool named by a verb of several acts (put, set) is what "save" or "store" asks for.
        ('Save {"size": "L"} as the value of pref:ann', "put", {"key": "pref:ann", "value": '{"size": "L"}'}),
        # Another language: the store's nouns are in the glossary.
        ("¿Qué valor tiene la clave box:7 en el locker?", "fetch", {"key": "box:7"}),
    ],
)
def test_a_key_shaped_value_routes_to_the_store_tool_that_takes_it_whole(
    offered: list[Capability], text: str, tool: str, arguments: dict[str, object]
) -> None:
    assert _chosen(offered, text) == tool
    extraction = extract_arguments(_schema(offered, tool), text)
    assert {k: extraction.arguments[k] for k in arguments} == arguments


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("Which keys match 'tmp:*'?", "tmp:*"),
        ("keys job:*", "job:*"),
        ("Which keys are there? They all begin with user:", "user:*"),
    ],
)
def test_a_glob_or_a_prefix_of_keys_is_the_pattern_whole(
    offered: list[Capability], text: str, pattern: str
) -> None:
    assert extract_arguments(_schema(offered, "keys"), text).arguments == {"pattern": pattern}


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("Keep 'x' under box:1 for 90 seconds", 90), ("Set box:2 to y so that it expires in 2 minutes", 120)],
)
def test_an_expiry_in_words_fills_the_seconds_property(
    offered: list[Capability], text: str, seconds: int
) -> None:
    extraction = extract_arguments(_schema(offered, "put"), text)
    assert extraction.arguments["ttl_seconds"] == seconds
    assert ":" in str(extraction.arguments["key"])


def test_json_written_out_is_the_value_and_the_key_stays_whole(offered: list[Capability]) -> None:
    text = 'Save {"size": "L"} as the value of pref:ann'
    assert extract_arguments(_schema(offered, "put"), text).arguments == {
        "key": "pref:ann",
        "value": '{"size": "L"}',
    }


def test_a_value_labelled_in_quotes_is_taken_and_the_key_still_asked_for(offered: list[Capability]) -> None:
    extraction = extract_arguments(_schema(offered, "put"), "Keep the text 'good morning' in the locker")
    assert extraction.arguments == {"value": "good morning"}
    assert extraction.missing == ["key"]


def test_a_sentence_ending_question_mark_is_no_glob(offered: list[Capability]) -> None:
    assert extract_arguments(_schema(offered, "fetch"), "Is there a key called pref:ann?").arguments == {
        "key": "pref:ann"
    }


def test_a_french_request_to_store_a_value_under_a_key_asks_with_the_store_tool_among_the_choices(
    offered: list[Capability],
) -> None:
    text = "Enregistre la valeur 'fermé' sous la clé shop:state"
    selection = DeterministicPlanner().select(PlanningRequest(text=text), offered, Limits())

    assert selection.chosen is not None and selection.chosen.capability.name == "put"
