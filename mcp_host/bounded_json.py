"""Nested data from outside (a servers file, a policy file, a command-line argument, an anchors
file) with a bound on its nesting.

Python's JSON and TOML parsers recurse once per level and give up with a RecursionError
(a traceback, not a message) far below what a hostile file reaches, and whatever they do parse
is walked recursively again later (validation, redaction, serialisation). No configuration or
argument Gatehouse reads needs more than a handful of levels, so anything deeper than
MAX_DEPTH is refused before it is parsed, with the line and column where it went too deep.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcp_host.reported import InvalidValueError

MAX_DEPTH = 64
# A JSON string (skipped whole, brackets inside it do not count) or a bracket.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class BoundedJsonError(InvalidValueError, ValueError):
    """Not valid JSON, or nested too deeply: the reason with its line and column."""


def _place(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


def loads_bounded(text: str, *, max_depth: int = MAX_DEPTH, repeats: bool = False) -> Any:
    """``json.loads`` for text nested at most ``max_depth`` arrays and objects deep. With
    ``repeats``, every object is a JsonObject: the first member of each name, and the names
    given again kept aside (JSON keeps the last one without a word, so a configuration's first
    entry of a name would silently vanish; the reader decides what a repeat costs)."""
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > max_depth:
                raise BoundedJsonError(
                    f"nested deeper than {max_depth} level{'s' if max_depth > 1 else ''}"
                    f" at {_place(text, match.start())}"
                )
        elif token in ("]", "}"):
            depth -= 1
    try:
        return json.loads(text, object_pairs_hook=JsonObject.of if repeats else None)
    except json.JSONDecodeError as exc:
        raise BoundedJsonError(f"not valid JSON: {exc.msg} at {_place(text, exc.pos)}") from exc


class JsonObject(dict[str, Any]):
    """A JSON object as read with ``repeats``: a dict of the first member of each name, and
    ``members``, every member in the order written, repeats included."""

    members: list[tuple[str, Any]]

    @classmethod
    def of(cls, pairs: list[tuple[str, Any]]) -> JsonObject:
        read = cls()
        for name, value in pairs:
            read.setdefault(name, value)
        read.members = pairs
        return read

    def repeated(self) -> list[str]:
        """The names given more than once, each once, in the order of their first repeat."""
        seen: set[str] = set()
        again: list[str] = []
        for name, _ in self.members:
            if name in seen and name not in again:
                again.append(name)
            seen.add(name)
        return again


def first_repeat(value: Any) -> tuple[list[str], str] | None:
    """Where in ``value`` (read with ``repeats``) the first object naming a member twice is,
    as the keys that lead to it, and that member's name; None when no object does."""
    pending: list[tuple[Any, list[str]]] = [(value, [])]
    while pending:
        item, keys = pending.pop(0)
        if isinstance(item, JsonObject):
            again = item.repeated()
            if again:
                return keys, again[0]
        if isinstance(item, dict):
            pending.extend((child, [*keys, str(name)]) for name, child in item.items())
        elif isinstance(item, list):
            pending.extend((child, [*keys, f"[{index}]"]) for index, child in enumerate(item))
    return None


def nesting_depth(value: Any) -> int:
    """How many lists and dicts deep ``value`` goes, counted without recursion."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: list[Any] = list(item.values())
        elif isinstance(item, list | tuple):
            children = list(item)
        else:
            continue
        deepest = max(deepest, depth + 1)
        pending.extend((child, depth + 1) for child in children)
    return deepest
