"""The configured servers' tools, resources, resource templates and prompts as Gatehouse's own
MCP endpoint offers them.

The same listing the chat plans from (mcp_host/ discovery, through the request service),
under the same namespaced keys (``server__name``), with the same sanitising the language-model
planner applies (graph/planner/model_tools.py): a capability whose text the policy's injection
scan flags is offered with its description and title withheld and its schema (a prompt's
arguments) reduced to names and types, so the flagged words never reach the client's model.
Output schemas are not passed on: a result the host capped or held carries no structured
content, which a client would refuse against one. Resources are offered under the endpoint's
own URIs (resource_uris.py). Which of them a caller is offered is visibility.py's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mcp_types as types

from gatehouse.gateway.resource_uris import resource_uri
from graph.planner.model_tools import suspicious_text, without_prose

if TYPE_CHECKING:
    from collections.abc import Iterable

    from mcp_host.manifest import Capability

WITHHELD = (
    "[Its description is withheld: Gatehouse's policy flagged the server's text for it as an "
    "attempt to steer the agent.]"
)


def offered_tools(capabilities: Iterable[Capability]) -> list[types.Tool]:
    """The tools among ``capabilities``, each under its key."""
    return [tool_of(capability) for capability in capabilities if capability.type == "tool"]


def offered_resources(capabilities: Iterable[Capability]) -> list[types.Resource]:
    """The resources among ``capabilities``, each named by its key."""
    return [resource_of(capability) for capability in capabilities if capability.type == "resource"]


def offered_templates(capabilities: Iterable[Capability]) -> list[types.ResourceTemplate]:
    """The resource templates among ``capabilities``, each named by its key."""
    return [template_of(c) for c in capabilities if c.type == "resource_template"]


def offered_prompts(capabilities: Iterable[Capability]) -> list[types.Prompt]:
    """The prompts among ``capabilities``, each under its key."""
    return [prompt_of(capability) for capability in capabilities if capability.type == "prompt"]


def _described(lead: str, capability: Capability, flagged: bool) -> str:
    description = WITHHELD if flagged else capability.description.strip()
    return f"{lead}\n{description}" if description else lead


def _resource_lead(capability: Capability, flagged: bool) -> str:
    # The server's URI is its text too: a flagged resource's is left out with its description.
    kind = "resource" if capability.type == "resource" else "resource template"
    where = "" if flagged else f" {capability.uri or capability.uri_template}"
    return f"{capability.server}'s {kind}{where}, through Gatehouse (reads may wait for a reviewer)."


def _annotations(capability: Capability) -> types.Annotations | None:
    # Who it is for and how much it matters (audience, priority, lastModified): data, not prose.
    return types.Annotations.model_validate(capability.annotations) if capability.annotations else None


def resource_of(capability: Capability) -> types.Resource:
    flagged = bool(suspicious_text(capability))
    return types.Resource(
        name=capability.key,
        title=None if flagged else capability.title,
        uri=resource_uri(capability),
        description=_described(_resource_lead(capability, flagged), capability, flagged),
        mime_type=capability.mime_type,
        annotations=_annotations(capability),
    )


def template_of(capability: Capability) -> types.ResourceTemplate:
    flagged = bool(suspicious_text(capability))
    return types.ResourceTemplate(
        name=capability.key,
        title=None if flagged else capability.title,
        uri_template=resource_uri(capability),
        description=_described(_resource_lead(capability, flagged), capability, flagged),
        mime_type=capability.mime_type,
        annotations=_annotations(capability),
    )


def prompt_of(capability: Capability) -> types.Prompt:
    flagged = bool(suspicious_text(capability))
    required = set(capability.required_arguments)
    arguments = [
        types.PromptArgument(
            name=name,
            description=None if flagged else (str(schema.get("description") or "") or None),
            required=name in required,
        )
        for name, schema in capability.properties.items()
    ]
    lead = f"{capability.server}'s prompt {capability.name}, through Gatehouse (may wait for a reviewer)."
    return types.Prompt(
        name=capability.key,
        title=None if flagged else capability.title,
        description=_described(lead, capability, flagged),
        arguments=arguments or None,
    )


def tool_of(capability: Capability) -> types.Tool:
    flagged = bool(suspicious_text(capability))
    schema = dict(capability.input_schema or {})
    if flagged:
        schema = without_prose(schema)
    schema.setdefault("type", "object")
    lead = f"{capability.server}'s tool {capability.name}, through Gatehouse (calls may wait for a reviewer)."
    # The server's hints are data about the tool; a flagged tool's title is its prose, left out.
    hints = {k: v for k, v in capability.annotations.items() if k != "title" or not flagged}
    return types.Tool(
        name=capability.key,
        title=None if flagged else capability.title,
        description=_described(lead, capability, flagged),
        input_schema=schema,
        annotations=types.ToolAnnotations.model_validate(hints) if hints else None,
    )
