"""Readings of a capability's definition, computed once per definition instead of per request.

Every request scores every offered capability, and much of what the planner reads off one (the
words of its name, the concepts of its description and parameters, whether it acts) depends on
its definition alone. ``per_definition`` keeps such a reading per definition: keyed by
everything a Capability declares (its key and server, title, MIME type, the admin's examples
and aliases, and the fingerprint, which hashes all the rest), so a server that changes anything about a capability has it read
afresh, never served an answer about the old one. Never keyed by the object's identity: the
graph builds new Capability objects from its state on every request, and an id can be reused.
Bounded, so a server churning definitions cannot grow it without end.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, TypeVar, cast

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

_T = TypeVar("_T")

# Far more than any configuration offers; past it, a reading's cache starts over.
DEFINITIONS_KEPT = 2048

DefinitionKey = tuple[str, str, str | None, str | None, str, tuple[str, ...], tuple[str, ...]]
_UNREAD = object()


def definition_key(capability: Capability) -> DefinitionKey:
    """What identifies a definition: equal keys mean equal capabilities, field for field (the
    admin's examples and aliases too, which the fingerprint leaves out)."""
    return (
        capability.key,
        capability.server,
        capability.title,
        capability.mime_type,
        capability.fingerprint,
        tuple(capability.examples),
        tuple(capability.aliases),
    )


def per_definition(read: Callable[[Capability], _T]) -> Callable[[Capability], _T]:
    """``read``, answered once per definition (see the module's docstring). Its answer is
    shared by every caller, so it must be immutable (a tuple, a frozenset, a frozen object)."""
    readings: dict[DefinitionKey, _T] = {}

    @wraps(read)
    def cached(capability: Capability) -> _T:
        key = definition_key(capability)
        # One lookup (not "in" then "[]"): another thread may clear the cache in between.
        found = readings.get(key, _UNREAD)
        if found is not _UNREAD:
            return cast("_T", found)
        value = read(capability)
        if len(readings) >= DEFINITIONS_KEPT:
            readings.clear()
        readings[key] = value
        return value

    return cached
