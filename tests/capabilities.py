"""Capabilities made up for planner and policy tests, without a server behind them."""

from __future__ import annotations

from typing import Any

from mcp_host.manifest import Capability


def tool(server: str, name: str, description: str, properties: dict[str, Any] | None = None,
         required: list[str] | None = None, annotations: dict[str, Any] | None = None,
         title: str | None = None) -> Capability:  # fmt: skip
    """A tool of ``server`` as a listing would give it (its key ``server__name``)."""
    return Capability(
        key=f"{server}__{name}",
        server=server,
        type="tool",
        name=name,
        title=title,
        description=description,
        input_schema={"type": "object", "properties": properties or {}, "required": required or []},
        annotations=annotations or {},
    )
