"""Narrowing rules in a policy's text: capability keys added to a rule's ``exclude``, the rest of
the text left as it is (comments, order, spacing), so the diff an admin approves shows exactly
the added line (reviews/suggestions.py adopts a suggested allow rule so).

The text is edited line by line, where each rule's ``[[rules]]`` table stands, and the result
read back: it must be the same policy but for the added exclusions, or the edit is refused
(a policy written in a shape this does not follow, such as rules in one inline array, is
narrowed by hand instead).
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

from mcp_host.reported import InvalidValueError

_HEADER = re.compile(r"^\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(?:#.*)?$")
_EXCLUDE = re.compile(r"^(\s*)exclude\s*=")
_MATCH = re.compile(r"^(\s*)match\s*=")
_MULTILINE_QUOTES = ('"""', "'''")
# Said beside the exclusion in the policy: why the rule no longer covers these.
NOTE = "# decided by rules of their own (gatehouse policy suggest)"


class NarrowingError(InvalidValueError, ValueError):
    """A rule's table could not be found or edited in the policy's text."""


def _table_name(line: str) -> tuple[str, bool] | None:
    """A table header's dotted name and whether it is an array of tables ([[...]]), or None."""
    found = _HEADER.match(line)
    if found is None:
        return None
    name = ".".join(part.strip().strip("\"'") for part in found.group(1).split("."))
    return name, line.lstrip().startswith("[[")


def _rule_spans(lines: Sequence[str]) -> list[tuple[int, int]]:
    """Each ``[[rules]]`` table's header line and the end (exclusive) of its own keys, before
    its first sub-table or the next table."""
    spans: list[tuple[int, int]] = []
    open_rule: int | None = None
    in_string: str | None = None
    for number, line in enumerate(lines):
        if in_string is None:
            header = _table_name(line)
            if header is not None:
                if open_rule is not None:
                    spans.append((open_rule, number))
                    open_rule = None
                if header == ("rules", True):
                    open_rule = number
        # A header-like line inside a multi-line string is text, not a table.
        for quotes in _MULTILINE_QUOTES:
            if (in_string in (None, quotes)) and line.count(quotes) % 2 == 1:
                in_string = quotes if in_string is None else None
    if open_rule is not None:
        spans.append((open_rule, len(lines)))
    return spans


def _statement_end(lines: Sequence[str], start: int, end: int) -> int:
    """The line after the key/value statement starting at ``start`` (one that may run over
    several lines: an array, a multi-line string)."""
    for last in range(start, end):
        try:
            tomllib.loads("\n".join(lines[start : last + 1]))
        except tomllib.TOMLDecodeError:
            continue
        return last + 1
    raise NarrowingError(f"the statement at line {start + 1} does not end within its table")


def _array(values: Sequence[str]) -> str:
    return "[" + ", ".join(json.dumps(value, ensure_ascii=False) for value in values) + "]"


def _narrow_one(lines: list[str], span: tuple[int, int], excluded: Sequence[str]) -> None:
    header, end = span
    for number in range(header + 1, end):
        found = _EXCLUDE.match(lines[number])
        if found is not None:
            after = _statement_end(lines, number, end)
            lines[number:after] = [f"{found.group(1)}exclude = {_array(excluded)}   {NOTE}"]
            return
    place, indent = header + 1, ""
    for number in range(header + 1, end):
        found = _MATCH.match(lines[number])
        if found is not None:
            place, indent = _statement_end(lines, number, end), found.group(1)
            break
    lines.insert(place, f"{indent}exclude = {_array(excluded)}   {NOTE}")


def with_exclusions(text: str, exclusions: Mapping[str, Sequence[str]]) -> str:
    """The policy's text with each named rule's ``exclude`` holding these capability keys too.

    Args:
        text: the policy's TOML text.
        exclusions: rule name -> capability keys (globs, compared as ``match`` is) to add.

    Raises:
        NarrowingError: a rule is not in the text as a ``[[rules]]`` table this can edit, or
            the edited text would not read back as the same policy plus the exclusions.
    """
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise NarrowingError(f"the policy is not valid TOML: {exc}") from exc
    rules = data.get("rules", [])
    names = [rule.get("name") if isinstance(rule, dict) else None for rule in rules]
    lines = text.split("\n")
    spans = _rule_spans(lines)
    if len(spans) != len(rules):
        raise NarrowingError("the policy's rules are not each written as a [[rules]] table")
    for name in exclusions:
        if name not in names:
            raise NarrowingError(f"the policy has no rule named {name!r}")
    expected = copy.deepcopy(data)
    # From the last rule up, so an edit never moves the lines of one still to be edited.
    wanted = sorted(
        ((names.index(name), keys) for name, keys in exclusions.items() if keys),
        key=lambda item: -item[0],
    )
    for index, keys in wanted:
        present = list(rules[index].get("exclude", []))
        excluded = present + [key for key in dict.fromkeys(keys) if key not in present]
        expected["rules"][index]["exclude"] = excluded
        _narrow_one(lines, spans[index], excluded)
    narrowed = "\n".join(lines)
    try:
        same = tomllib.loads(narrowed) == expected
    except tomllib.TOMLDecodeError:
        same = False
    if not same:
        shown = ", ".join(repr(name) for name in exclusions)
        raise NarrowingError(f"the text of rule {shown} could not be edited here; narrow it by hand")
    return narrowed
