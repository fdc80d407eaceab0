"""The configured servers' tools as Gatehouse's own MCP endpoint offers them.

The same listing the chat plans from (mcp_host/ discovery, through the request service),
under the same namespaced keys (``server__name``), with the same sanitising the language-model
planner applies (graph/planner/model_tools.py): a tool whose text the policy's injection scan
flags is offered with its description withheld and its schema reduced to names and types, so
the flagged words never reach the client's model. Output schemas are not passed on: a result
the host capped or held carries no structured content, which a client would refuse against one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mcp_types as types

from graph.planner.model_tools import suspicious_text, without_prose

if TYPE_CHECKING:
    from mcp_host.manifest import Capability, Manifest

WITHHELD = (
    "[Its description is withheld: Gatehouse's policy flagged the server's text for it as an "
    "attempt to steer the agent.]"
)


def offered_tools(manifest: Manifest) -> list[types.Tool]:
    """Every tool the servers offer now, each under its key."""
    return [tool_of(capability) for capability in manifest.capabilities() if capability.type == "tool"]


def tool_of(capability: Capability) -> types.Tool:
    flagged = bool(suspicious_text(capability))
    schema = dict(capability.input_schema or {})
    if flagged:
        schema = without_prose(schema)
    schema.setdefault("type", "object")
    lead = f"{capability.server}'s tool {capability.name}, through Gatehouse (calls may wait for a reviewer)."
    description = WITHHELD if flagged else capability.description.strip()
    # The server's hints are data about the tool; a flagged tool's title is its prose, left out.
    hints = {k: v for k, v in capability.annotations.items() if k != "title" or not flagged}
    return types.Tool(
        name=capability.key,
        title=None if flagged else capability.title,
        description=f"{lead}\n{description}" if description else lead,
        input_schema=schema,
        annotations=types.ToolAnnotations.model_validate(hints) if hints else None,
    )
