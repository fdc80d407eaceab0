"""Verbs that undo each other: a tool whose name does the opposite of what the request orders
loses, whatever else it shares with the request ("Save the sheet as q3.csv" is no job for
import_csv; "Put 2750 into cell D7" none for delete_note). Many tools of one server share their
objects' words (sheet, cell, csv), so the verb is what tells them apart."""

from __future__ import annotations

from graph.planner.text import stem

# Each pair: the verbs of one direction, and of the other.
_PAIRS: tuple[tuple[frozenset[str], frozenset[str]], ...] = (
    (
        frozenset("export save download dump output".split()),
        frozenset("import upload load".split()),
    ),
    (
        frozenset("add create put write insert set fill enter type make append new".split()),
        frozenset("delete remove clear drop erase purge wipe".split()),
    ),
    (frozenset("merge join combine".split()), frozenset("unmerge split".split())),
    (frozenset({"unhide"}), frozenset({"hide"})),
)
_SIDES = [
    ({stem(w) for w in side}, {stem(w) for w in other})
    for one, two in _PAIRS
    for side, other in ((one, two), (two, one))
]


def opposite(asked: str, own: str) -> bool:
    """Whether the tool's verb ``own`` undoes the request's verb ``asked``."""
    a, o = stem(asked.lower()), stem(own.lower())
    return any(a in side and o in other for side, other in _SIDES)
