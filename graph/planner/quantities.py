"""Numbers written in words and quantities with units: read by the argument rules
(graph/planner/arguments.py, "wait 2 minutes" for a timeout in seconds) and by the provenance
checks that show a reviewer how a value was read (graph/planner/provenance.py)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from graph.planner.text import split_identifier

SMALL = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen".split()
    )
}
TENS = {w: 10 * n for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
NUMBER_WORD = "|".join(sorted([*SMALL, *TENS, *SCALES], key=len, reverse=True))
NUMBER_WORDS = re.compile(rf"\b(?:{NUMBER_WORD})(?:(?:\s+and\s+|[\s-]+)(?:{NUMBER_WORD}))*\b", re.IGNORECASE)
# Units by dimension, in the dimension's base unit; a name or description that names one is
# the unit the argument takes.
UNITS: dict[str, dict[str, float]] = {
    "time": {
        "ms": 0.001, "millisecond": 0.001, "milliseconds": 0.001, "s": 1, "sec": 1, "secs": 1, "second": 1,
        "seconds": 1, "min": 60, "mins": 60, "minute": 60, "minutes": 60, "h": 3600, "hr": 3600,
        "hrs": 3600, "hour": 3600, "hours": 3600, "day": 86400, "days": 86400, "week": 604800,
        "weeks": 604800,
    },
    "length": {
        "mm": 0.001, "cm": 0.01, "m": 1, "meter": 1, "meters": 1, "metre": 1, "metres": 1, "km": 1000,
        "kilometer": 1000, "kilometers": 1000, "kilometre": 1000, "kilometres": 1000, "mile": 1609.344,
        "miles": 1609.344, "ft": 0.3048, "foot": 0.3048, "feet": 0.3048,
    },
    "mass": {
        "g": 1, "gram": 1, "grams": 1, "kg": 1000, "kilogram": 1000, "kilograms": 1000,
        "lb": 453.59237, "lbs": 453.59237, "pound": 453.59237, "pounds": 453.59237,
    },
}  # fmt: skip
UNIT_WORD = "|".join(sorted({u for units in UNITS.values() for u in units}, key=len, reverse=True))
QUANTITY = re.compile(
    rf"(?<![\w.])(?P<amount>\d+(?:\.\d+)?|{NUMBER_WORD}(?:[\s-]+(?:{NUMBER_WORD}))*)\s*(?P<unit>{UNIT_WORD})\b",
    re.IGNORECASE,
)


def number_of_words(words: str) -> int | None:
    """``twenty-one`` is 21, ``two hundred and five`` 205; None for words that are no number."""
    total, current = 0, 0
    for word in re.split(r"[\s-]+", words.lower()):
        if word == "and":
            continue
        if word in SMALL:
            current += SMALL[word]
        elif word in TENS:
            current += TENS[word]
        elif word in SCALES:
            scale = SCALES[word]
            if scale == 100:
                current = max(current, 1) * scale
            else:
                total, current = total + max(current, 1) * scale, 0
        else:
            return None
    return total + current


def unit_of(name: str, schema: Mapping[str, Any]) -> tuple[str, str] | None:
    """The dimension and unit an argument takes, from its name ("timeout_seconds", "delay_s")
    or, failing that, its description ("Timeout in seconds"; a one-letter word there is no unit)."""
    described = [w for w in re.findall(r"[a-z]+", str(schema.get("description") or "").lower()) if len(w) > 1]
    for word in [*split_identifier(name), *described]:
        for dimension, units in UNITS.items():
            if word in units:
                return dimension, word
    return None


def in_unit(amount: float, unit: str, dimension: str, target: str) -> float | None:
    """``amount`` of ``unit`` in ``target`` (both of ``dimension``); None when either is no unit of it."""
    units = UNITS[dimension]
    if unit.lower() not in units or target not in units:
        return None
    return amount * units[unit.lower()] / units[target]
