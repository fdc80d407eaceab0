"""Arithmetic a request states as a word problem or a unit conversion, for a calculator that
takes only an expression (``calculate(expression)``).

"square root of 144", "average of 12, 15 and 21", "an 18% tip" on a bill, "split 1,250
between 4", "four of us split a 1,250 bill", "at 45 per hour, how much is 8 hours?", "20% off
59.99", "the remainder when 100 is divided by 7", "5000 after 3 years at 4% interest compounded
yearly", "convert 5 miles to km", "98.6 °F in Celsius", "how many seconds in a week". Each is put in symbols only
where the words fix the expression exactly (a conversion only between units whose factor is
defined exactly: lengths, masses, times, volumes, temperatures; never bytes, where 1000 and 1024
both have their users, nor money, whose rate changes daily); anything else is left for the
operator to state. Nothing is computed: the server computes.

The words each expression is read from are a span of the request, so graph/planner/provenance.py
can show a reviewer which words said it (calculation.expression_in reads the same span again).
The rules read the request with its numbers in digits (graph/planner/in_digits.py), so "four of
us split 1,250" and "4 of us split 1,250" are one rule's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from graph.planner.in_digits import in_digits

_NUMBER = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
# Two or more numbers listed: "4, 8, 10 and 14", "1,200 and 345".
LIST = rf"{_NUMBER}(?:\s*,\s*{_NUMBER})*\s*,?\s+and\s+{_NUMBER}"


Builder = Callable[[re.Match[str]], str]


def _plain(number: str) -> str:
    """A number as a calculator reads it: 1,250 is 1250."""
    return number.replace(",", "")


def _numbers(listed: str) -> list[str]:
    return [_plain(n) for n in re.findall(_NUMBER, listed)]


def _average(found: re.Match[str]) -> str:
    numbers = _numbers(found.group(1))
    return f"({'+'.join(numbers)})/{len(numbers)}"


def listed(operator: str) -> Builder:
    """The numbers of a list (its first group) joined by ``operator``: the sum of 1, 2 and 3 is 1+2+3."""
    return lambda found: operator.join(_numbers(found.group(1)))


def template(written: str) -> Builder:
    """The groups of a rule's match put in ``written`` ("{1}*{0}/100"), each as a calculator reads it."""
    return lambda found: written.format(*(_plain(g) for g in found.groups()))


# A share of an amount that is itself an amount (a tip, a tax): "an 18% tip" on 86.40 is 86.40*18/100.
_SHARE_NOUNS = r"(?:tip|gratuity|tax|vat|sales\s+tax|commission|service\s+charge)"
_PROBLEMS: tuple[tuple[re.Pattern[str], Builder], ...] = (
    (re.compile(rf"\bsquare\s+root\s+of\s+({_NUMBER})(?![\w]|\.\d)", re.I), template("{0}**0.5")),
    (re.compile(rf"\bcube\s+root\s+of\s+({_NUMBER})(?![\w]|\.\d)", re.I), template("{0}**(1/3)")),
    (re.compile(rf"\b(?:the\s+)?(?:average|mean)\s+of\s+({LIST})(?![\w]|\.\d)", re.I), _average),
    (
        re.compile(
            rf"\bremainder\s+(?:when|of|if)\s+({_NUMBER})\s+(?:is\s+)?divided\s+by\s+({_NUMBER})(?![\w]|\.\d)",
            re.I,
        ),
        template("{0}%{1}"),
    ),
    # Splits: "split 1,800 between 3", "share a 1,250 bill among four", "split 120 into 4".
    (
        re.compile(
            rf"\bsplit\s+({_NUMBER})(?:\s+[A-Za-z]+)?(?:\s+evenly|\s+equally)?\s+(?:by|into)\s+"
            rf"({_NUMBER})(?![\w]|\.\d)",
            re.I,
        ),
        template("{0}/{1}"),
    ),
    (
        # (Only among people or parts: "divide 10 files into 2 folders" moves files.)
        re.compile(
            rf"\b(?:split|share|divide)\s+(?:up\s+)?(?:(?:an?|the)\s+)?({_NUMBER})(?:\s+[A-Za-z]+){{0,2}}?"
            rf"(?:\s+evenly|\s+equally)?\s+(?:between|among(?:st)?|across)\s+({_NUMBER})(?![\w]|\.\d)",
            re.I,
        ),
        template("{0}/{1}"),
    ),
    (
        re.compile(rf"\b(?:split|share|divide)\s+(?:up\s+)?({_NUMBER})\s+({_NUMBER})\s+ways\b", re.I),
        template("{0}/{1}"),
    ),
    (
        re.compile(
            rf"(?<![\w.])({_NUMBER})\s+(?:of\s+us|of\s+them|[A-Za-z]+)\s+(?:will\s+|want\s+to\s+|are\s+)?"
            rf"(?:split|share|splitting|sharing|divide|dividing)\s+(?:up\s+)?(?:an?\s+|the\s+)?({_NUMBER})(?![\w]|\.\d)",
            re.I,
        ),
        template("{1}/{0}"),
    ),
    (
        re.compile(
            rf"(?<![\w.])({_NUMBER})(?:\s+[A-Za-z]+){{0,2}}?\s+(?:(?:is|are|was|were|gets?|being)\s+)?"
            rf"(?:split|shared|divided)\s+(?:evenly\s+|equally\s+)?(?:between|among(?:st)?|across)\s+"
            rf"({_NUMBER})(?![\w]|\.\d)",
            re.I,
        ),
        template("{0}/{1}"),
    ),
    # Rates: "at 45 per hour, how much is 8 hours?", "8 hours at 45 an hour".
    (
        re.compile(
            rf"(?<![\w.])({_NUMBER})(?:\s+[A-Za-z]+)?\s+(?:per|an?|each|every)\s+([A-Za-z]+?)(?:s)?\b"
            rf"[^.?!]{{0,12}}?[,;.]?\s*how\s+(?:much|many|far|long)\b[^.?!\d]{{0,40}}?"
            rf"(?<![\w.])({_NUMBER})\s+(\2s?)\b",
            re.I,
        ),
        template("{0}*{2}"),
    ),
    (
        re.compile(
            rf"(?<![\w.])({_NUMBER})\s+([A-Za-z]+?)(?:s)?\s+at\s+({_NUMBER})\s+(?:per|an?|each)\s+(\2)\b",
            re.I,
        ),
        template("{0}*{2}"),
    ),
    # A change by a percentage: "increase 250 by 8%", "20% off 59.99".
    (
        re.compile(
            rf"\b(?:increase|raise|grow|mark\s+up)\s+({_NUMBER})\s+by\s+({_NUMBER})\s*(?:%|percent|per\s*cent)",
            re.I,
        ),
        template("{0}*(100+{1})/100"),
    ),
    (
        re.compile(
            rf"\b(?:decrease|reduce|discount|lower|cut)\s+({_NUMBER})\s+by\s+({_NUMBER})\s*(?:%|percent|per\s*cent)",
            re.I,
        ),
        template("{0}*(100-{1})/100"),
    ),
    (
        re.compile(
            rf"(?<![\w.])({_NUMBER})\s*(?:%|percent|per\s*cent)\s+off\s+(?:of\s+)?({_NUMBER})(?![\w]|\.\d)",
            re.I,
        ),
        template("{1}*(100-{0})/100"),
    ),
    (
        re.compile(
            rf"(?<![\w.])({_NUMBER})\s*(?:%|percent)\s+{_SHARE_NOUNS}\s+(?:on|of|for)\s+(?:a\s+bill\s+of\s+)?"
            rf"({_NUMBER})(?![\w]|\.\d)",
            re.I,
        ),
        template("{1}*{0}/100"),
    ),
    (
        # "Our bill is 86.40. How much is an 18% tip?": the amount first, the share after it.
        re.compile(
            rf"(?<![\w.])({_NUMBER})(?![\w]|\.\d)[^%\d]{{0,40}}?(?<![\w.])({_NUMBER})\s*(?:%|percent)\s+{_SHARE_NOUNS}\b",
            re.I,
        ),
        template("{0}*{1}/100"),
    ),
    (
        re.compile(
            rf"(?<![\w.])({_NUMBER})\s+after\s+({_NUMBER})\s+years?\s+at\s+({_NUMBER})\s*(?:%|percent)"
            r"(?:\s+(?:interest|a\s+year|per\s+year|annually))*\s*,?\s+compounded\s+(?:yearly|annually)\b",
            re.I,
        ),
        template("{0}*(1+{2}/100)**{1}"),
    ),
)


@dataclass(frozen=True)
class Problem:
    """An expression a word problem or a conversion fixes: ``symbols`` read from ``words``."""

    symbols: str
    words: str


def word_problem_in(text: str) -> Problem | None:
    """The first word problem ``text`` states whose expression its words fix exactly; its
    words are a span of ``text`` however its numbers were written."""
    said = in_digits(text)
    for pattern, build in _PROBLEMS:
        found = pattern.search(said.text)
        if found:
            return Problem(build(found), said.words(*found.span()))
    return None


# Units whose size is defined exactly, in one base unit per quantity (metre, kilogram, second,
# litre), as fractions so that the factor written is the definition, not a rounding.
_EXACT: dict[str, tuple[str, Fraction]] = {
    "mm": ("length", Fraction(1, 1000)),
    "cm": ("length", Fraction(1, 100)),
    "m": ("length", Fraction(1)),
    "km": ("length", Fraction(1000)),
    "in": ("length", Fraction(254, 10000)),
    "ft": ("length", Fraction(3048, 10000)),
    "yd": ("length", Fraction(9144, 10000)),
    "mi": ("length", Fraction(1609344, 1000)),
    "mg": ("mass", Fraction(1, 1_000_000)),
    "g": ("mass", Fraction(1, 1000)),
    "kg": ("mass", Fraction(1)),
    "tonne": ("mass", Fraction(1000)),
    "lb": ("mass", Fraction(45359237, 100_000_000)),
    "oz": ("mass", Fraction(45359237, 1_600_000_000)),
    "ml": ("volume", Fraction(1, 1000)),
    "l": ("volume", Fraction(1)),
    "gal": ("volume", Fraction(3785411784, 1_000_000_000)),
    "s": ("time", Fraction(1)),
    "min": ("time", Fraction(60)),
    "h": ("time", Fraction(3600)),
    "d": ("time", Fraction(86400)),
    "wk": ("time", Fraction(604800)),
    "ms": ("time", Fraction(1, 1000)),
    "mph": ("speed", Fraction(1609344, 3_600_000)),
    "km/h": ("speed", Fraction(1000, 3600)),
}
# Temperatures are not proportional: each pair has its formula, x the amount.
_TEMPERATURE = {
    ("f", "c"): "({x}-32)*5/9",
    ("c", "f"): "{x}*9/5+32",
    ("c", "k"): "{x}+273.15",
    ("k", "c"): "{x}-273.15",
    ("f", "k"): "({x}-32)*5/9+273.15",
    ("k", "f"): "({x}-273.15)*9/5+32",
}


def _decimal(value: Fraction) -> str | None:
    """``value`` as an exact decimal, or None when it has none (1/3)."""
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    if denominator != 1:
        return None
    text = f"{value.numerator / value.denominator:.12f}".rstrip("0").rstrip(".")
    return text if Fraction(text) == value else None


def conversion_expression(amount: str, source: str, target: str) -> str | None:
    """The expression converting ``amount`` from ``source`` to ``target`` (the canonical unit
    symbols of graph/planner/calculation.py), or None without an exact definition."""
    amount = _plain(amount)
    if (source, target) in _TEMPERATURE:
        return _TEMPERATURE[source, target].format(x=amount)
    if source not in _EXACT or target not in _EXACT or _EXACT[source][0] != _EXACT[target][0]:
        return None
    ratio = _EXACT[source][1] / _EXACT[target][1]
    factor = _decimal(ratio)
    if factor is not None:
        return f"{amount}*{factor}"
    inverse = _decimal(1 / ratio)
    if inverse is not None:
        return f"{amount}/{inverse}"  # km to miles: divided by the mile's exact 1.609344
    # 1 ft in yards is 1/3: written as the division it is.
    return f"{amount}*{ratio.numerator}/{ratio.denominator}"


# A question after an amount ("how many slices do 7 pizzas have?", "how much is left?").
_AMOUNT_QUESTION = re.compile(r"\bhow\s+(?:many|much|far|long|often)\b", re.IGNORECASE)
# Words that ask for a figure to be worked out, whatever the story around it.
_WORK_OUT = re.compile(
    r"\b(?:calculate|compute|work\s+out|figure\s+out|average|mean|total|per\s+cent|percent|square\s+root|"
    r"to\s+the\s+power|remainder|interest|each)\b",
    re.IGNORECASE,
)
# Digits standing alone: not a date, a time, a version, an identifier or part of a path.
_AMOUNT = re.compile(r"(?<![\w./:#@-])\d+(?:[.,]\d+)?(?![\w/:@-]|\.\d)")


# A date written in words ("1 November 2026", "November 1, 2026", "2026-11-01"): its numbers
# say when, not how much.
_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DATE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}\b(?:,?\s+\d{{4}})?"
    rf"|\b{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}})?|\b{_MONTHS}\s+\d{{4}}\b"
    r"|\b\d{4}-\d{2}-\d{2}\b",
    re.IGNORECASE,
)


def asks_for_arithmetic(text: str) -> bool:
    """Whether ``text`` is a word problem: two amounts in digits and a question or a word asking
    for a figure ("If one pizza has 8 slices, how many slices do 7 pizzas have?"), whether or not
    its words fix the expression. An expression-only calculator is then the capability to ask
    with; the expression, where no rule can build it, is asked for, never guessed. The numbers
    of a date ("since 1 November 2026") are no amounts."""
    amounts = _AMOUNT.findall(_DATE.sub(" ", text))
    return len(amounts) >= 2 and bool(_AMOUNT_QUESTION.search(text) or _WORK_OUT.search(text))
