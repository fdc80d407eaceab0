"""Numbers written in words and quantities with units: read by the argument rules
(graph/planner/arguments.py, "wait 2 minutes" for a timeout in seconds) and by the provenance
checks that show a reviewer how a value was read (graph/planner/provenance.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from itertools import islice
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
    """``twenty-one`` is 21, ``two hundred and five`` 205; None for words that are no number, or
    that English reads as two ("six and nine", "five six"): the grammar spoken_numbers reads
    (_Reading below). A scale word alone ("hundred") counts one of it."""
    said = re.split(r"[\s-]+", words.lower())
    if said[0] in SCALES:
        said.insert(0, "one")
    reading = _Reading()
    if not all(reading.take(word) for word in said) or reading.last in {"", "and"}:
        return None
    return reading.value


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


# Words that multiply the number before them but are no number word of their own: "a dozen", "two dozen".
_DOZEN = 12
# Enough words for any number a request writes ("seven hundred and seventy-seven thousand ...").
_LONGEST_PHRASE = 24
_PHRASE_WORD = re.compile(rf"\b(?:{NUMBER_WORD}|and|an?|dozen|half)\b", re.IGNORECASE)
# Digits a scale word multiplies ("1.5 million", "3 dozen"): one amount, as a calculator reads it.
_DIGITS_SCALED = re.compile(r"(?<![\w.,])(\d+(?:\.\d+)?)\s+(hundred|thousand|million|dozen)\b", re.IGNORECASE)


@dataclass(frozen=True)
class SpokenNumber:
    """A number a request writes in words (or digits and a scale word): where, and its digits."""

    start: int
    end: int
    digits: str


def _plain_digits(value: Decimal) -> str:
    """2500 for 2.5E+3, 1.5 for 1.50: the digits a calculator reads."""
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


class _Reading:
    """One number phrase read word by word; each word either continues it or ends it. The
    order is English's: "twenty-one", "one hundred and five", "three thousand two hundred",
    "twelve hundred", "a dozen". "six and nine" is two numbers ("and" joins only after a
    hundred, a thousand or a million), "five six" too."""

    def __init__(self) -> None:
        self.total = 0  # the thousands and millions read so far
        self.group = 0  # the part below the last thousand or million
        self.last = ""  # the kind of word read last: "", unit, teen, tens, hundred, scale, and, dozen
        self.scale = 10**12  # the last scale read: a smaller one may follow it, not a larger

    def take(self, word: str) -> bool:
        """Read ``word`` into the number when it continues it; False (and nothing read) if not."""
        if self.last == "dozen":
            return False
        if word in SMALL and SMALL[word] < 10:
            return self._add(SMALL[word], "unit", after={"", "tens", "hundred", "scale", "and"})
        if word in SMALL:
            return self._add(SMALL[word], "teen", after={"", "hundred", "scale", "and"})
        if word in TENS:
            return self._add(TENS[word], "tens", after={"", "hundred", "scale", "and"})
        if word == "and":
            if self.last not in {"hundred", "scale"}:
                return False
            self.last = "and"
            return True
        if word == "hundred":
            if self.last not in {"unit", "teen", "tens"} or self.group >= 100:
                return False
            self.group *= 100
            self.last = "hundred"
            return True
        if word in SCALES:
            scale = SCALES[word]
            if self.last not in {"unit", "teen", "tens", "hundred"} or scale >= self.scale:
                return False
            self.total, self.group, self.scale, self.last = self.total + self.group * scale, 0, scale, "scale"
            return True
        if word == "dozen" and self.last in {"unit", "teen", "tens"} and self.total == 0 and self.group < 100:
            self.group *= _DOZEN
            self.last = "dozen"
            return True
        return False

    def _add(self, value: int, kind: str, *, after: set[str]) -> bool:
        # (Zero is a number alone: "twenty zero" is no number, "one hundred and zero" neither.)
        if self.last not in after or (value == 0 and self.last != ""):
            return False
        self.group += value
        self.last = kind
        return True

    @property
    def value(self) -> int:
        return self.total + self.group


def _phrase_at(text: str, start: int) -> tuple[int, int] | None:
    """The number phrase that starts at ``start``: its end and value, read as far as English
    lets it go. "a" stands for one before "hundred", "thousand", "million" or "dozen", and
    "half a dozen" is six. None when no number starts there."""
    words = list(islice(_PHRASE_WORD.finditer(text, start), _LONGEST_PHRASE))
    if not words or words[0].start() != start:
        return None
    spoken = [w.group(0).lower() for w in words]
    # How many words from the first stand together as one phrase.
    together = next(
        (i for i in range(1, len(words)) if not _joined(text, words[i - 1].end(), words[i].start())),
        len(words),
    )
    reading = _Reading()
    if spoken[0] == "half":
        # "half a dozen" is six; "half" alone is a fraction (calculation.py reads "half of").
        return (words[2].end(), _DOZEN // 2) if spoken[1:3] == ["a", "dozen"] and together >= 3 else None
    if spoken[0] in {"a", "an"}:
        # "a hundred", "a dozen". Any other "a" is an article, no number.
        if together < 2 or spoken[1] not in {"hundred", "thousand", "million", "dozen"}:
            return None
        reading.group, reading.last = 1, "unit"
        words = words[1:together]
    else:
        words = words[:together]
    end = kept = words[0].start()
    for found in words:
        if not reading.take(found.group(0).lower()):
            break
        end = found.end()
        if reading.last != "and":
            kept = end  # a trailing "and" belongs to the words after it, not to the number
    if reading.last == "" or kept == words[0].start():
        return None
    return kept, reading.value


def _joined(text: str, end: int, start: int) -> bool:
    """Whether two words of one number stand together: spaces or one hyphen between them."""
    return re.fullmatch(r"\s+|\s*-\s*", text[end:start]) is not None


def spoken_numbers(text: str) -> Iterator[SpokenNumber]:
    """Each number ``text`` writes in words, in order: "forty-two" is 42, "one hundred and five"
    105, "a dozen" 12, "two dozen" 24, "1.5 million" 1500000. Words that only sound like part of
    one ("a", "and", "half") stay what they are."""
    position = 0
    while True:
        word = _PHRASE_WORD.search(text, position)
        scaled = _DIGITS_SCALED.search(text, position)
        if scaled is not None and (word is None or scaled.start() <= word.start()):
            factor = _DOZEN if scaled.group(2).lower() == "dozen" else SCALES[scaled.group(2).lower()]
            yield SpokenNumber(scaled.start(), scaled.end(), _plain_digits(Decimal(scaled.group(1)) * factor))
            position = scaled.end()
            continue
        if word is None:
            return
        phrase = _phrase_at(text, word.start())
        if phrase is None:
            position = word.end()
            continue
        end, value = phrase
        yield SpokenNumber(word.start(), end, str(value))
        position = end
