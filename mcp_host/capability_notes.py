"""An admin's words for a server's capabilities: example requests and other names (aliases).

A servers file entry may carry Gatehouse's own key ``capabilities``, keyed by the name the
server lists a tool, resource, template or prompt under::

    "tickets": {
      "command": "...",
      "capabilities": {
        "create_ticket": {"examples": ["Open a ticket titled Printer jammed"], "aliases": ["raise a ticket"]}
      }
    }

The notes are the team's words, not the server's: they are attached to the capability when
its server is listed (``with_notes``), so the catalogue shows the examples and the planner
reads both (graph/planner/admin_words.py). They are no part of what a reviewer approves: the
capability's fingerprint leaves them out. A name the server does not offer is not an error
here (the file is read before any server is asked); the catalogue says which ones are unused.
Taken literally: no ``${VAR}`` is expanded in them (they are words for people, not settings).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from mcp_host.known_keys import did_you_mean
from mcp_host.reported import InvalidValueError

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

NOTE_KEYS = ("examples", "aliases")
# An example is one request; an alias a few words. Longer text is a description, not a name.
MAX_EXAMPLE_CHARS = 300
MAX_ALIAS_CHARS = 80
MAX_PER_LIST = 20


class NotesError(InvalidValueError, ValueError):
    """A ``capabilities`` value that cannot be used: ``where`` is its key path, ``reason`` why."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


class CapabilityNotes(BaseModel):
    """What the admin wrote for one capability."""

    model_config = ConfigDict(frozen=True)

    examples: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


def as_phrase(text: str) -> str:
    """``text`` on one line, as the file keeps a phrase: a phrase is matched word for word, and
    shown on one line."""
    return " ".join(text.split())


def _phrases(value: Any, where: str, limit: int) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise NotesError(where, "must be a list of strings")
    if len(value) > MAX_PER_LIST:
        raise NotesError(where, f"has {len(value)} entries; at most {MAX_PER_LIST}")
    kept: list[str] = []
    for index, item in enumerate(value):
        phrase = as_phrase(item)
        if not phrase:
            raise NotesError(f"{where}[{index}]", "is empty")
        if len(phrase) > limit:
            raise NotesError(f"{where}[{index}]", f"is {len(phrase)} characters long; at most {limit}")
        if phrase.casefold() not in {k.casefold() for k in kept}:
            kept.append(phrase)
    return tuple(kept)


def parse_capability_notes(value: Any, where: str) -> dict[str, CapabilityNotes]:
    """The ``capabilities`` object of one servers file entry (``where`` names the entry)."""
    if value is None:
        return {}
    where = f"{where}.capabilities"
    if not isinstance(value, dict):
        raise NotesError(where, 'must be an object keyed by capability name: {"<name>": {"examples": [...]}}')
    notes: dict[str, CapabilityNotes] = {}
    claimed: dict[str, str] = {}
    for name, raw in value.items():
        at = f"{where}.{name}"
        if not name.strip():
            raise NotesError(at, "a capability name is empty")
        if not isinstance(raw, dict):
            raise NotesError(at, "must be an object with examples and/or aliases (lists of strings)")
        unknown = sorted(set(raw) - set(NOTE_KEYS))
        if unknown:
            raise NotesError(
                f"{at}.{unknown[0]}",
                f"unknown key for a capability (examples, aliases){did_you_mean(unknown[0], NOTE_KEYS)}",
            )
        examples = _phrases(raw.get("examples", []), f"{at}.examples", MAX_EXAMPLE_CHARS)
        aliases = _phrases(raw.get("aliases", []), f"{at}.aliases", MAX_ALIAS_CHARS)
        for index, alias in enumerate(aliases):
            # One name for two capabilities would select neither: the admin has to choose.
            other = claimed.setdefault(alias.casefold(), name)
            if other != name:
                raise NotesError(f"{at}.aliases[{index}]", f"{alias!r} is already an alias of {other}")
        notes[name] = CapabilityNotes(examples=examples, aliases=aliases)
    return notes


def configured_notes(target: object) -> Mapping[str, CapabilityNotes]:
    """The notes a servers file entry gives (none for a server given any other way)."""
    notes = getattr(target, "capability_notes", None)
    return notes if isinstance(notes, Mapping) else {}


def with_notes(capabilities: list[Capability], notes: Mapping[str, CapabilityNotes]) -> list[Capability]:
    """``capabilities`` with the admin's examples and aliases of each, by the name its server
    lists it under (a tool and a prompt of one name both get them)."""
    if not notes:
        return capabilities
    noted: list[Capability] = []
    for capability in capabilities:
        found = notes.get(capability.name)
        if found is None:
            noted.append(capability)
        else:
            noted.append(
                capability.model_copy(
                    update={"examples": list(found.examples), "aliases": list(found.aliases)}
                )
            )
    return noted


def unused_names(capabilities: list[Capability], notes: Mapping[str, CapabilityNotes]) -> list[str]:
    """Names the notes are given for that the server does not offer (a typo, a renamed tool)."""
    offered = {capability.name for capability in capabilities}
    return sorted(name for name in notes if name not in offered)
