"""What operators can ask: every capability the servers offer now, by server, in plain words,
with a request that would ask for it.

Read from the live listing, the host's discovery the graph plans from (``McpClient.discover``:
cached, so showing the catalogue costs no round trip once the servers were listed), never
from a listing of its own. The chat page shows it (gatehouse/web/catalogue_panel.py) and
``gatehouse capabilities`` prints it (``render_catalogue``). Descriptions and names are the
servers' words and examples the admin's: the callers show them literally.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from gatehouse.display.visible_text import continued
from graph.capability_words import example_request, in_plain_words
from mcp_host.capability_notes import CapabilityNotes, unused_names
from mcp_host.manifest import Manifest

# How each kind is called for a person, in the order the catalogue lists them.
KIND_WORDS = {
    "tool": "tool",
    "resource": "resource",
    "resource_template": "resource template",
    "prompt": "prompt",
}


@dataclass(frozen=True)
class CatalogueEntry:
    """One capability as an operator reads it."""

    key: str
    kind: str
    name: str
    does: str
    example: str
    # Whether the example is the admin's (from the servers file) or made from the schema.
    example_from_admin: bool
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class ServerCatalogue:
    """One server's capabilities, or why none can be shown."""

    name: str
    entries: tuple[CatalogueEntry, ...] = ()
    # Why the server's offer is unknown now (it failed to start, its listing failed).
    problem: str | None = None
    # Names the servers file gives examples or aliases for that the server does not offer.
    unused_notes: tuple[str, ...] = ()


def catalogue_of(
    manifest: Manifest, notes: Mapping[str, Mapping[str, CapabilityNotes]] | None = None
) -> list[ServerCatalogue]:
    """The catalogue of a listing, in the servers' order; ``notes`` (each server's, from its
    servers file entry) only to say which of them name nothing the server offers."""
    order = list(KIND_WORDS)
    servers: list[ServerCatalogue] = []
    for server in manifest.servers:
        if not server.ok:
            problem = server.error.message if server.error else "its offer could not be listed"
            servers.append(ServerCatalogue(name=server.name, problem=problem))
            continue
        listed = sorted(server.capabilities, key=lambda c: order.index(c.type))
        entries = tuple(
            CatalogueEntry(
                key=capability.key,
                kind=KIND_WORDS[capability.type],
                name=capability.name,
                does=in_plain_words(capability),
                example=example_request(capability),
                example_from_admin=bool(capability.examples),
                aliases=tuple(capability.aliases),
            )
            for capability in listed
        )
        unused = unused_names(server.capabilities, (notes or {}).get(server.name, {}))
        servers.append(ServerCatalogue(name=server.name, entries=entries, unused_notes=tuple(unused)))
    return servers


def catalogue_data(catalogue: list[ServerCatalogue]) -> dict[str, Any]:
    """The catalogue as JSON (``gatehouse capabilities --json``)."""
    return {"servers": [asdict(server) for server in catalogue]}


def render_catalogue(data: dict[str, Any]) -> str:
    """The catalogue for a terminal: each server, then each capability: what it does, a request
    to try, its other names if any, and its key. A server's words cannot start a line of their own."""
    lines: list[str] = []
    for server in data["servers"]:
        if server["problem"]:
            lines.append(f"{server['name']}: not available ({continued(server['problem'], 4)})")
            continue
        lines.append(f"{server['name']}: {len(server['entries'])} capabilities")
        for entry in server["entries"]:
            lines.append(f"  {entry['name']} ({entry['kind']}): {continued(entry['does'], 4)}")
            lines.append(f'    try: "{continued(entry["example"], 4)}"')
            if entry["aliases"]:
                lines.append(f"    also called: {continued(', '.join(entry['aliases']), 4)}")
            # What `gatehouse policy explain` and the policy's rules name it by: not always
            # server__name (a prompt named as a tool has its kind added), so said for every kind.
            lines.append(f"    key: {continued(entry['key'], 4)}")
        lines.extend(
            f"  note: the servers file gives examples or aliases for {name}, which {server['name']} does not offer"
            for name in server["unused_notes"]
        )
    return "\n".join(lines) if lines else "No servers are configured."
