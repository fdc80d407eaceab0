"""The admin's aliases and example requests select the capability they are written for."""

from __future__ import annotations

from typing import Any

from graph.context import Limits
from graph.planner.admin_words import admin_text
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.protocol import PlanningRequest
from mcp_host.manifest import Capability

READ_ONLY = {"readOnlyHint": True}


def tool(server: str, name: str, description: str, required: str | None = None, **notes: Any) -> Capability:
    properties = {required: {"type": "string"}} if required else {}
    return Capability(
        key=f"{server}__{name}",
        server=server,
        type="tool",
        name=name,
        description=description,
        input_schema={"type": "object", "properties": properties, "required": [required] if required else []},
        annotations={} if name.startswith(("create", "trigger")) else READ_ONLY,
        **notes,
    )


def offered(**notes: dict[str, Any]) -> list[Capability]:
    """A ticket server, a file server and a CI server; ``notes`` by tool name."""
    return [
        tool("tickets", "create_ticket", "Create a ticket.", "title", **notes.get("create_ticket", {})),
        tool("tickets", "list_tickets", "List tickets.", **notes.get("list_tickets", {})),
        tool("files", "read_file", "Read a file.", "path"),
        tool(
            "ci", "trigger_pipeline", "Start a CI pipeline run.", "ref", **notes.get("trigger_pipeline", {})
        ),
    ]


def chosen(text: str, capabilities: list[Capability]) -> str | None:
    selection = DeterministicPlanner().select(PlanningRequest(text=text), capabilities, Limits())
    return selection.chosen.capability.key if selection.chosen else None


def test_a_request_in_an_admins_other_name_for_a_read_selects_it() -> None:
    assert chosen("Show me the backlog", offered()) is None

    with_alias = offered(list_tickets={"aliases": ["the backlog"]})

    assert chosen("Show me the backlog", with_alias) == "tickets__list_tickets"


def test_an_alias_in_verbs_no_word_list_knows_selects_the_tool_that_acts() -> None:
    # "Ship" is no verb the planner knows: without the alias the request reads as a read, and
    # a tool that acts is never chosen for a read.
    assert chosen("Ship to production", offered()) is None

    with_alias = offered(trigger_pipeline={"aliases": ["ship to production"]})

    assert chosen("Ship to production", with_alias) == "ci__trigger_pipeline"


def test_a_request_worded_like_an_admins_example_selects_its_capability() -> None:
    assert chosen("Deploy main to production", offered()) is None

    with_example = offered(trigger_pipeline={"examples": ["Deploy main to production"]})

    assert chosen("deploy main to production", with_example) == "ci__trigger_pipeline"


def test_an_alias_of_a_read_never_turns_a_request_to_change_something_into_that_read() -> None:
    with_alias = offered(list_tickets={"aliases": ["the backlog"]})

    assert chosen("Delete the backlog", with_alias) is None


def test_an_example_sharing_a_word_or_two_with_the_request_says_nothing() -> None:
    with_example = offered(list_tickets={"examples": ["Which tickets are still open for the printer team?"]})

    assert chosen("What is in notes.md?", with_example) == "files__read_file"


def test_the_admins_words_are_one_text_for_whoever_reads_a_capability_whole() -> None:
    capability = tool(
        "ci", "trigger_pipeline", "Start a CI pipeline run.", aliases=["ship it"], examples=["Ship main"]
    )

    assert admin_text(capability) == "ship it Ship main"
    assert admin_text(tool("ci", "trigger_pipeline", "Start a CI pipeline run.")) == ""


def test_a_request_opening_with_a_verb_of_its_own_asks_for_that_whatever_alias_it_says() -> None:
    with_alias = offered(trigger_pipeline={"aliases": ["ship to production"]})

    assert chosen("Show me what would ship to production", with_alias) != "ci__trigger_pipeline"


def test_an_example_worded_alike_but_for_another_verb_does_not_state_the_requests_action() -> None:
    with_example = offered(
        create_ticket={"examples": ["Create tickets for the printer on floor three in building B"]}
    )

    assert (
        chosen("List tickets for the printer on floor three in building B", with_example)
        != "tickets__create_ticket"
    )
