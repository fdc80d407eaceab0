"""`capabilities` in a servers file: an admin's example requests and other names for each
capability, each mistake named by file, entry and key, and attached to the listing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_host.capability_notes import CapabilityNotes, unused_names, with_notes
from mcp_host.config import ConfigError, HttpServer, StdioServer, load_servers_config, parse_servers_config
from mcp_host.manifest import Capability
from mcp_host.sdk_client import SdkMcpClient
from tests.support import bundled_server_entry

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")


def config_with(notes: Any, *, server: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"mcpServers": {"tickets": {**(server or {"command": "tickets-server"}), "capabilities": notes}}}


def test_examples_and_aliases_are_read_per_capability_for_stdio_and_http_servers() -> None:
    notes = {
        "update_ticket": {
            "examples": ["Close ticket 7", "  Escalate   ticket 3\n"],
            "aliases": ["change a ticket", "Change a ticket"],
        },
        "search_tickets": {"aliases": ["the backlog"]},
    }
    stdio = parse_servers_config(config_with(notes), source="servers.json")
    remote = parse_servers_config(
        config_with(notes, server={"type": "http", "url": "http://127.0.0.1:9/mcp"}), source="servers.json"
    )

    for config in (stdio, remote):
        (server,) = config.servers
        assert isinstance(server, StdioServer | HttpServer)
        assert server.capability_notes == {
            # One line each, and the same alias twice (in any case) kept once.
            "update_ticket": CapabilityNotes(
                examples=("Close ticket 7", "Escalate ticket 3"), aliases=("change a ticket",)
            ),
            "search_tickets": CapabilityNotes(aliases=("the backlog",)),
        }


@pytest.mark.parametrize(
    ("notes", "where", "reason"),
    [
        (["update_ticket"], "mcpServers.tickets.capabilities", "must be an object keyed by capability name"),
        (
            {"update_ticket": ["Close ticket 7"]},
            "mcpServers.tickets.capabilities.update_ticket",
            "must be an object",
        ),
        (
            {"update_ticket": {"example": ["Close ticket 7"]}},
            "mcpServers.tickets.capabilities.update_ticket.example",
            "unknown key for a capability (examples, aliases)",
        ),
        (
            {"update_ticket": {"examples": "Close ticket 7"}},
            "mcpServers.tickets.capabilities.update_ticket.examples",
            "must be a list of strings",
        ),
        (
            {"update_ticket": {"aliases": ["close", " "]}},
            "mcpServers.tickets.capabilities.update_ticket.aliases[1]",
            "is empty",
        ),
        (
            {"update_ticket": {"aliases": ["x" * 81]}},
            "mcpServers.tickets.capabilities.update_ticket.aliases[0]",
            "is 81 characters long; at most 80",
        ),
        (
            {"update_ticket": {"aliases": ["the backlog"]}, "search_tickets": {"aliases": ["The Backlog"]}},
            "mcpServers.tickets.capabilities.search_tickets.aliases[0]",
            "'The Backlog' is already an alias of update_ticket",
        ),
    ],
)
def test_a_mistake_in_capabilities_names_the_file_the_entry_and_the_key(
    tmp_path: Path, notes: Any, where: str, reason: str
) -> None:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps(config_with(notes)), encoding="utf-8")

    with pytest.raises(ConfigError) as raised:
        load_servers_config(path)

    assert raised.value.where == f"{path}: {where}"
    assert raised.value.reason.startswith(reason)


def capability(name: str, kind: str = "tool") -> Capability:
    return Capability(key=f"tickets__{name}", server="tickets", type=kind, name=name)  # type: ignore[arg-type]


def test_notes_go_to_every_capability_of_their_name_and_leave_its_fingerprint_alone() -> None:
    listed = [capability("triage"), capability("triage", "prompt"), capability("search_tickets")]
    notes = {
        "triage": CapabilityNotes(examples=("Triage ticket 4",), aliases=("sort out",)),
        "gone": CapabilityNotes(),
    }

    noted = with_notes(listed, notes)

    assert [(c.examples, c.aliases) for c in noted] == [
        (["Triage ticket 4"], ["sort out"]),
        (["Triage ticket 4"], ["sort out"]),
        ([], []),
    ]
    # An approval is bound to the server's definition, not to what the team calls it.
    assert [c.fingerprint for c in noted] == [c.fingerprint for c in listed]
    assert unused_names(listed, notes) == ["gone"]


def test_a_listed_server_carries_the_admins_words_from_its_entry(data_dir: Path) -> None:
    entry = bundled_server_entry("tickets", data_dir / "demo") | {
        "capabilities": {"update_ticket": {"examples": ["Close ticket 7"], "aliases": ["change a ticket"]}}
    }
    config = parse_servers_config({"mcpServers": {"tickets": entry}}, source="servers.json")

    with SdkMcpClient({server.name: server for server in config.servers}) as pool:
        listed = pool.discover()

    update = listed.find("tickets__update_ticket")
    assert update is not None
    assert (update.examples, update.aliases) == (["Close ticket 7"], ["change a ticket"])
    assert all(not c.examples for c in listed.capabilities() if c.name != "update_ticket")
