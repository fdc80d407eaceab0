"""Turn SDK listings into host Capabilities, rejecting entries the host cannot use safely.

A malformed entry (an input schema that is not an object schema, a duplicate name, a broken
URI template) is recorded on the server's manifest and left out: the rest of the server stays
usable, and the planner never sees something it would have to guess about.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from mcp_host.manifest import KEY_SEPARATOR, Capability, CapabilityType, capability_key
from policies.names import normalise_key

if TYPE_CHECKING:
    from mcp.types import Prompt, Resource, ResourceTemplate, Tool

_TEMPLATE_VARIABLE = re.compile(r"\{[+#./;?&]?([A-Za-z0-9_,*:]+)\}")


def _annotations(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    dumped = raw.model_dump(exclude_none=True)
    return dumped if isinstance(dumped, dict) else {}


def template_schema(uri_template: str) -> dict[str, Any]:
    """An object schema whose required string properties are the template's variables."""
    names: list[str] = []
    for match in _TEMPLATE_VARIABLE.finditer(uri_template):
        for name in match.group(1).split(","):
            # Drop RFC 6570 modifiers: explode ("*") and prefix (":3").
            clean = name.split(":", 1)[0].rstrip("*")
            if clean and clean not in names:
                names.append(clean)
    return {
        "type": "object",
        "properties": {name: {"type": "string"} for name in names},
        "required": names,
    }


class CapabilityCollector:
    """Collects one server's capabilities, keyed ``server__name``, noting rejected entries."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.capabilities: list[Capability] = []
        self.rejected: list[str] = []
        self._kinds: dict[str, CapabilityType] = {}
        # Each kept key in the policy's spelling -> the key's name part, as the server wrote it.
        self._spellings: dict[str, str] = {}

    def _add(self, kind: CapabilityType, name: str, **fields: Any) -> None:
        if not name or not name.strip():
            self.rejected.append(f"{kind} with an empty name ignored")
            return
        key = capability_key(self.server, name)
        if self._kinds.get(key) == kind:
            self.rejected.append(f"duplicate {kind} {name!r} ignored")
            return
        if key in self._kinds:
            # A tool and a prompt may share a name; the second gets its kind added to its key.
            key = f"{key}__{kind}"
        if key in self._kinds:
            self.rejected.append(f"duplicate {kind} {name!r} ignored")
            return
        schema = fields.get("input_schema", {})
        if schema.get("type", "object") != "object" or not isinstance(schema.get("properties", {}), dict):
            self.rejected.append(f"{kind} {name!r} ignored: its input schema is not an object schema")
            return
        # The policy reads keys in one spelling (policies/names.py): sendEmail and send_email
        # would be one name to every rule, so only the first the server lists is kept.
        spelling = normalise_key(key)
        if spelling in self._spellings:
            first = self._spellings[spelling]
            self.rejected.append(
                f"{kind} {name!r} ignored: its name reads as {first!r}, which the server offers already"
            )
            return
        self._kinds[key] = kind
        self._spellings[spelling] = key.removeprefix(f"{self.server}{KEY_SEPARATOR}")
        self.capabilities.append(Capability(key=key, server=self.server, type=kind, name=name, **fields))

    def add_tool(self, tool: Tool) -> None:
        self._add(
            "tool",
            tool.name,
            title=tool.title,
            description=tool.description or "",
            input_schema=dict(tool.input_schema or {}),
            output_schema=dict(tool.output_schema) if tool.output_schema else None,
            annotations=_annotations(tool.annotations),
        )

    def add_resource(self, resource: Resource) -> None:
        self._add(
            "resource",
            resource.name,
            title=resource.title,
            description=resource.description or "",
            input_schema={"type": "object", "properties": {}},
            annotations=_annotations(resource.annotations),
            mime_type=resource.mime_type,
            uri=str(resource.uri),
        )

    def add_template(self, template: ResourceTemplate) -> None:
        self._add(
            "resource_template",
            template.name,
            title=template.title,
            description=template.description or "",
            input_schema=template_schema(template.uri_template),
            annotations=_annotations(template.annotations),
            mime_type=template.mime_type,
            uri_template=template.uri_template,
        )

    def add_prompt(self, prompt: Prompt) -> None:
        arguments = prompt.arguments or []
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {
                arg.name: {"type": "string", "description": arg.description or ""} for arg in arguments
            },
            "required": [arg.name for arg in arguments if arg.required],
        }
        self._add(
            "prompt",
            prompt.name,
            title=prompt.title,
            description=prompt.description or "",
            input_schema=schema,
        )
