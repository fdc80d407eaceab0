"""The URIs under which Gatehouse's MCP endpoint offers the servers' resources.

Two servers may offer the same URI, and a resource's URI is what a client reads it by, so the
endpoint offers each under one of its own, built from the capability's key (``server__name``,
as the chat's discovery names it): ``gatehouse://resource/KEY``. A resource template's
variables follow as path segments, ``gatehouse://resource/KEY/{id}``: simple expansion (RFC
6570 level 1), which every client supports and which percent-encodes a value's own ``/``, so
a read's URI splits back into its key and the template's arguments exactly, without matching
the server's own template.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

if TYPE_CHECKING:
    from mcp_host.manifest import Capability, Manifest

PREFIX = "gatehouse://resource/"


def variables(template: Capability) -> list[str]:
    """A template's variables, in the order of its URI template (mcp_host/discovery.py)."""
    return list(template.properties)


def resource_uri(capability: Capability) -> str:
    """The endpoint's URI for a resource, or its URI template for a resource template."""
    uri = PREFIX + quote(capability.key, safe="")
    if capability.type == "resource_template":
        uri += "".join(f"/{{{name}}}" for name in variables(capability))
    return uri


def resolved(uri: str, manifest: Manifest) -> tuple[Capability, dict[str, str]] | None:
    """The resource or template a URI of the endpoint names, with the template's arguments;
    None when it names neither (not one of the endpoint's URIs, no such key, or a template
    with another number of values)."""
    if not uri.startswith(PREFIX):
        return None
    key, *values = uri.removeprefix(PREFIX).split("/")
    capability = manifest.find(unquote(key))
    if capability is None or capability.type not in {"resource", "resource_template"}:
        return None
    names = variables(capability) if capability.type == "resource_template" else []
    if len(values) != len(names):
        return None
    return capability, {name: unquote(value) for name, value in zip(names, values, strict=True)}
