"""The catalogue names each capability's key, for every kind alike: the key an admin pastes into
`gatehouse policy explain` or a policy rule, which is not always the server's name with the
server's in front (a prompt sharing a tool's name gets its kind added)."""

from __future__ import annotations

import mcp.types as types

from gatehouse.display.catalogue import catalogue_data, catalogue_of, render_catalogue
from mcp_host.discovery import CapabilityCollector
from mcp_host.manifest import Manifest, ServerManifest


def offer() -> Manifest:
    """A server listing a tool, a resource, a template and a prompt, the prompt named as the tool."""
    collector = CapabilityCollector("srv")
    collector.add_tool(types.Tool(name="report", input_schema={"type": "object", "properties": {}}))
    collector.add_resource(types.Resource(name="handbook", uri="file:///handbook.md"))
    collector.add_template(types.ResourceTemplate(name="ticket", uri_template="tickets://{id}"))
    collector.add_prompt(types.Prompt(name="report", description="Write up the week."))
    return Manifest(servers=[ServerManifest(name="srv", ok=True, capabilities=collector.capabilities)])


def test_every_kind_lists_its_key_the_same_way() -> None:
    lines = render_catalogue(catalogue_data(catalogue_of(offer()))).splitlines()

    keys = [line for line in lines if line.startswith("    key: ")]
    assert keys == [
        "    key: srv__report",
        "    key: srv__handbook",
        "    key: srv__ticket",
        # Not srv__report, which is the tool's.
        "    key: srv__report__prompt",
    ]
    # Each under its own entry, after its request to try.
    prompt = lines.index("  report (prompt): Write up the week.")
    assert lines[prompt + 2] == "    key: srv__report__prompt"


def test_the_json_names_every_kinds_key() -> None:
    (server,) = catalogue_data(catalogue_of(offer()))["servers"]

    assert [(entry["kind"], entry["key"]) for entry in server["entries"]] == [
        ("tool", "srv__report"),
        ("resource", "srv__handbook"),
        ("resource template", "srv__ticket"),
        ("prompt", "srv__report__prompt"),
    ]
