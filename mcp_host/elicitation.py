"""A server asking the person for input in the middle of a call (``elicitation/create``).

The host only carries the question: whoever holds the session pool decides who answers it
(the operator who asked, through the chat; a command on a terminal; a test). The pool hands
every request to one ``ElicitationHandler`` with the server's name, and declares the
elicitation capability to servers only when a handler is there: a host that cannot ask
anyone must not let servers believe it can.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from mcp.types import ElicitRequestParams, ElicitResult

# What an answer may hold, per the protocol: strings, numbers, booleans, lists of strings.
ElicitValue = str | int | float | bool | list[str] | None


class ElicitationHandler(Protocol):
    """Answers one server's question; raising refuses it (the server gets an error)."""

    async def __call__(self, server: str, request: ElicitRequestParams) -> ElicitResult: ...


def form_defaults(schema: Mapping[str, Any]) -> dict[str, ElicitValue]:
    """The values a form shows before the person types: each property's ``default`` when it
    has one of the property's own type (SEP-1034), nothing for the others. A default of the
    wrong type, or outside the property's enum, is the server's mistake and is left out
    rather than shown as if it were valid."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    values: dict[str, ElicitValue] = {}
    for name, spec in properties.items():
        if not isinstance(spec, Mapping) or "default" not in spec:
            continue
        default = spec["default"]
        if _fits(default, spec):
            values[str(name)] = default
    return values


def _fits(value: Any, spec: Mapping[str, Any]) -> bool:
    enum = spec.get("enum")
    if isinstance(enum, list) and value not in enum:
        return False
    kind = spec.get("type")
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    return False
