"""Arithmetic and unit conversions a request states, for a server that offers a calculator.

"What is 17*23?", "2+2?", "what's 17 times 23", "the sum of 3 and 5", "convert 5 miles to
km", "how many kilometres is 26.2 miles?". An expression written in symbols is kept as the
operator wrote it; one written in words is put in symbols ("17 times 23" is ``17*23``), a
normalisation graph/planner/provenance.py shows a reviewer as such. Nothing is computed here:
the server computes, Gatehouse only reads what to ask it.

The rules read the request with its numbers in digits (graph/planner/in_digits.py: "forty-two"
is 42, "a dozen" 12), so each operation is written once, for numbers however spelled; what a
rule matched is mapped back to the request's own words. Each rule is an operation of English
arithmetic ("N percent of M", "the quotient of A and B", "half of N", "twice N"), never a
sentence: the numbers are whatever the request says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from graph.planner.in_digits import InDigits, in_digits
from graph.planner.word_problems import (
    LIST,
    Builder,
    conversion_expression,
    listed,
    template,
    word_problem_in,
)

_NUMBER = r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
# A run of numbers, operators and parentheses, not inside a word, path, version or identifier.
_SYMBOLIC = re.compile(
    rf"(?<![\w./:#@,-])(?:\(\s*)*-?(?:{_NUMBER})(?:\s*\)*\s*(?:\*\*|[-+*/×÷^%−])\s*(?:\(\s*)*-?(?:{_NUMBER})\s*\)*)+"
    r"(?![\w/:@]|\.\d)"
)
_DATE_LIKE = re.compile(r"^\d{1,4}[-/]\d{1,2}[-/]\d{1,4}$")
# Operators written as words, and the symbol each stands for.
_SPOKEN_OPERATORS = {
    "plus": "+",
    "added to": "+",
    "minus": "-",
    "less": "-",
    "times": "*",
    "multiplied by": "*",
    "x": "*",
    "divided by": "/",
    "over": "/",
    "to the power of": "**",
    "raised to the power of": "**",
    "raised to": "**",
    "mod": "%",
    "modulo": "%",
}
_OPERATOR_WORDS = "|".join(re.escape(word) for word in sorted(_SPOKEN_OPERATORS, key=len, reverse=True))
_SPOKEN = re.compile(
    rf"(?<![\w.])(-?{_NUMBER})((?:\s+(?:{_OPERATOR_WORDS})\s+-?{_NUMBER})+)(?![\w]|\.\d)", re.IGNORECASE
)
_SPOKEN_STEP = re.compile(rf"\s+({_OPERATOR_WORDS})\s+(-?{_NUMBER})", re.IGNORECASE)
_PERCENT = r"(?:\s*%|\s+percent|\s+per\s*cent|\s+pct)"
_WHAT_PERCENT = r"what\s+(?:percent(?:age)?|per\s*cent|%)"
# Fractions said as words, by their denominator: "half of 365", "three quarters of 80".
_DENOMINATORS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5, "fifths": 5,
    "sixth": 6, "sixths": 6, "eighth": 8, "eighths": 8, "tenth": 10, "tenths": 10,
}  # fmt: skip
_FRACTION = "|".join(sorted(_DENOMINATORS, key=len, reverse=True))
# Multiples said as words: "twice 19.5", "double 4,250".
_MULTIPLES = {"twice": 2, "double": 2, "thrice": 3, "triple": 3, "treble": 3, "quadruple": 4}
_MULTIPLE = "|".join(_MULTIPLES)
# Not a part of a period: "the second half of 2025", "the first quarter of 2026" say when.
_NO_PERIOD = "".join(
    f"(?<!{word}\\s)"
    for word in ("the", "first", "second", "third", "fourth", "last", "other", "this", "next")
)


def _fraction_of(found: re.Match[str]) -> str:
    numerator, denominator, amount = found.group(1), _DENOMINATORS[found.group(2).lower()], found.group(3)
    if numerator is None or numerator.lower() in {"a", "an", "1"}:
        return f"{amount}/{denominator}"
    return f"{amount}*{numerator}/{denominator}"


def _multiple(found: re.Match[str]) -> str:
    return f"{_MULTIPLES[found.group(1).lower()]}*{found.group(2)}"


# Operations of two numbers (or a list) said in words, and how each is written in symbols.
_OPERATIONS: tuple[tuple[re.Pattern[str], Builder], ...] = (
    (re.compile(rf"\b(?:the\s+)?(?:sum|total)\s+of\s+({LIST})(?![\w]|\.\d)", re.I), listed("+")),
    (re.compile(rf"\badd(?:\s+up)?\s+({LIST})(?![\w]|\.\d)", re.I), listed("+")),
    (re.compile(rf"\badd\s+({_NUMBER})\s+to\s+({_NUMBER})\b", re.I), template("{0}+{1}")),
    (re.compile(rf"\b(?:the\s+)?product\s+of\s+({LIST})(?![\w]|\.\d)", re.I), listed("*")),
    (re.compile(rf"\bmultiply\s+({_NUMBER})\s+(?:by|and|with)\s+({_NUMBER})\b", re.I), template("{0}*{1}")),
    (re.compile(rf"\bdivide\s+({_NUMBER})\s+by\s+({_NUMBER})\b", re.I), template("{0}/{1}")),
    (
        re.compile(rf"\b(?:the\s+)?quotient\s+of\s+({_NUMBER})\s+(?:and|by|over)\s+({_NUMBER})\b", re.I),
        template("{0}/{1}"),
    ),
    (re.compile(rf"\b(?:the\s+)?ratio\s+of\s+({_NUMBER})\s+to\s+({_NUMBER})\b", re.I), template("{0}/{1}")),
    (re.compile(rf"\bsubtract\s+({_NUMBER})\s+from\s+({_NUMBER})\b", re.I), template("{1}-{0}")),
    (
        re.compile(rf"\b(?:the\s+)?difference\s+(?:between|of)\s+({_NUMBER})\s+and\s+({_NUMBER})\b", re.I),
        template("{0}-{1}"),
    ),
    # "what percentage of 80 is 20", "what percent is 45 of 180", "20 is what percent of 80".
    (
        re.compile(rf"\b{_WHAT_PERCENT}\s+of\s+({_NUMBER})\s+(?:is|are|makes?)\s+({_NUMBER})\b", re.I),
        template("{1}/{0}*100"),
    ),
    (
        re.compile(
            rf"\b{_WHAT_PERCENT}\s+(?:is|are|of)\s+({_NUMBER})\s+(?:of|out\s+of|in)\s+({_NUMBER})\b", re.I
        ),
        template("{0}/{1}*100"),
    ),
    (
        re.compile(rf"(?<![\w.])({_NUMBER})\s+(?:is|are)\s+{_WHAT_PERCENT}\s+of\s+({_NUMBER})\b", re.I),
        template("{0}/{1}*100"),
    ),
    (re.compile(rf"(?<![\w.])({_NUMBER}){_PERCENT}\s+of\s+({_NUMBER})\b", re.I), template("{1}*{0}/100")),
    (
        re.compile(
            rf"{_NO_PERIOD}(?<![\w.])(?:(an?|{_NUMBER})[\s-]+)?({_FRACTION})\s+of\s+(?:an?\s+)?({_NUMBER})\b",
            re.I,
        ),
        _fraction_of,
    ),
    (re.compile(rf"\b({_MULTIPLE})\s+({_NUMBER})\b", re.I), _multiple),
    (re.compile(rf"\b(?:the\s+)?square\s+of\s+({_NUMBER})\b", re.I), template("{0}**2")),
    (re.compile(rf"\b(?:the\s+)?cube\s+of\s+({_NUMBER})\b", re.I), template("{0}**3")),
    (re.compile(rf"(?<![\w.])({_NUMBER})\s+(?:squared)\b", re.I), template("{0}**2")),
    (re.compile(rf"(?<![\w.])({_NUMBER})\s+(?:cubed)\b", re.I), template("{0}**3")),
)
# Property names and descriptions that take an expression to evaluate.
_EXPRESSION_NAMES = frozenset({"expression", "expr", "formula", "equation", "calculation", "math", "problem"})
# (Not a regular, cron or JSONPath expression: those are patterns, not arithmetic.)
_EXPRESSION_DESCRIPTION = re.compile(
    r"\b(?<!regular\s)(?<!cron\s)(?<!jsonpath\s)(?<!search\s)(?:math(?:ematical)?\s+)?(?:expression|formula|equation)s?\b"
    r"|\barithmetic\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Expression:
    """An expression the request states: ``symbols`` to send, the ``words`` it was read from."""

    symbols: str
    words: str

    @property
    def as_written(self) -> bool:
        return self.symbols == self.words


def _is_expression(run: str, text: str) -> bool:
    """A run of numbers and operators that is arithmetic, not a date (2024-03-01, 12/05/2024),
    a range (pages 10-20) or a fraction-like reference: a hyphen or slash alone, unspaced, only
    counts when the request says nothing else ("2-1?")."""
    stripped = run.strip()
    if _DATE_LIKE.match(stripped):
        return False
    operators = set(re.findall(r"\*\*|[-+*/×÷^%−]", re.sub(r"^-|(?<=[-+*/×÷^%(])\s*-", "", stripped)))
    if not operators:
        return False
    if operators <= {"-", "/"} and " " not in stripped:
        rest = re.sub(
            r"\b(?:what|whats|what's|is|calculate|compute|evaluate|equals?)\b|[?=!.\s]", "", text.lower()
        )
        return rest == stripped.lower()
    return True


def _in_symbols(run: str) -> str:
    """An expression as a calculator reads it: 1,000 is 1000; ×, ÷ and − are *, / and -."""
    return re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", run).replace("×", "*").replace("÷", "/").replace("−", "-")


@lru_cache(maxsize=256)
def expression_in(text: str) -> Expression | None:
    """The first arithmetic expression ``text`` states, in symbols or in words; its words are
    a span of ``text`` however its numbers were written."""
    said = in_digits(text)
    found = [
        expression
        for expression in (
            _symbolic(said),
            _spoken(said),
            _operation(said),
            # Word problems and conversions an expression-only calculator can be given, where exact.
            _problem(text),
            _converted(text),
        )
        if expression is not None
    ]
    if not found:
        return None
    # A reading that holds another's words is the fuller one: "the remainder of 1234 divided by
    # 7" is 1234%7, not the division inside it. Otherwise the first reader, in the order above.
    first = found[0]
    wider = [e for e in found[1:] if first.words in e.words and len(e.words) > len(first.words)]
    return max(wider, key=lambda e: len(e.words)) if wider else first


def _symbolic(said: InDigits) -> Expression | None:
    """ "17*23", "(3+4)*2", "1,000 + 250": kept as written, in a calculator's symbols."""
    for match in _SYMBOLIC.finditer(said.text):
        run = match.group(0).strip()
        if _is_expression(run, said.text):
            return Expression(_in_symbols(run), said.words(*match.span()))
    return None


def _spoken(said: InDigits) -> Expression | None:
    """ "17 times 23", "twenty minus eight plus three": each operator word put in symbols."""
    spoken = _SPOKEN.search(said.text)
    if spoken is None:
        return None
    symbols = spoken.group(1) + "".join(
        _SPOKEN_OPERATORS[op.lower()] + number for op, number in _SPOKEN_STEP.findall(spoken.group(2))
    )
    return Expression(_in_symbols(symbols), said.words(*spoken.span()))


def _operation(said: InDigits) -> Expression | None:
    """ "the sum of 3 and 5", "15% of 80", "half of 365", "what percentage of 80 is 20"."""
    for pattern, build in _OPERATIONS:
        found = pattern.search(said.text)
        if found:
            return Expression(_in_symbols(build(found)), said.words(*found.span()))
    return None


def _problem(text: str) -> Expression | None:
    problem = word_problem_in(text)
    return Expression(problem.symbols, problem.words) if problem is not None else None


def _converted(text: str) -> Expression | None:
    conversion = conversion_in(text)
    if conversion is None:
        return None
    symbols = conversion_expression(
        conversion.amount_words, canonical_unit(conversion.source), canonical_unit(conversion.target)
    )
    if symbols is not None and conversion.one_unit:
        # "How many seconds in a week": no amount is written, so the factor is the expression.
        symbols = symbols.removeprefix("1*")
    return Expression(symbols, conversion.words.strip()) if symbols is not None else None


def takes_an_expression(name: str, description: str, types: set[str]) -> bool:
    """Whether a property is an expression to evaluate: named so, or described so."""
    if types and "string" not in types:
        return False
    return name.lower() in _EXPRESSION_NAMES or bool(_EXPRESSION_DESCRIPTION.search(description))


# Units by what they measure: every way a request may write one, grouped by the unit meant.
_UNIT_GROUPS: tuple[tuple[str, ...], ...] = (
    ("mm", "millimeter", "millimeters", "millimetre", "millimetres"),
    ("cm", "centimeter", "centimeters", "centimetre", "centimetres"),
    ("m", "meter", "meters", "metre", "metres"),
    ("km", "kilometer", "kilometers", "kilometre", "kilometres"),
    ("in", "inch", "inches"),
    ("ft", "foot", "feet"),
    ("yd", "yard", "yards"),
    ("mi", "mile", "miles"),
    ("mg", "milligram", "milligrams"),
    ("g", "gram", "grams"),
    ("kg", "kilogram", "kilograms", "kilo", "kilos"),
    ("tonne", "tonnes", "metric ton", "metric tons"),
    ("lb", "lbs", "pound", "pounds"),
    ("oz", "ounce", "ounces"),
    ("c", "°c", "celsius", "centigrade", "degrees celsius"),
    ("f", "°f", "fahrenheit", "degrees fahrenheit"),
    ("k", "kelvin", "kelvins"),
    ("ml", "milliliter", "milliliters", "millilitre", "millilitres"),
    ("l", "liter", "liters", "litre", "litres"),
    ("gal", "gallon", "gallons"),
    ("ms", "millisecond", "milliseconds"),
    ("s", "sec", "secs", "second", "seconds"),
    ("min", "mins", "minute", "minutes"),
    ("h", "hr", "hrs", "hour", "hours"),
    ("d", "day", "days"),
    ("wk", "wks", "week", "weeks"),
    ("b", "byte", "bytes"),
    ("kb", "kilobyte", "kilobytes"),
    ("mb", "megabyte", "megabytes"),
    ("gb", "gigabyte", "gigabytes"),
    ("tb", "terabyte", "terabytes"),
    ("mph", "miles per hour"),
    ("km/h", "kph", "kmh", "kilometers per hour", "kilometres per hour"),
)
_GROUP_OF = {alias: group for group in _UNIT_GROUPS for alias in group}
# Units a request writes as words; one-letter symbols ("m", "in", "s") only right after a number.
_UNIT_WORD = "|".join(
    re.escape(alias) for alias in sorted(_GROUP_OF, key=len, reverse=True) if len(alias) > 2 or "/" in alias
)
_ANY_UNIT = "|".join(re.escape(alias) for alias in sorted(_GROUP_OF, key=len, reverse=True))
_AMOUNT_UNIT = rf"(?P<amount>-?{_NUMBER})\s*(?:degrees?\s+)?(?P<source>{_ANY_UNIT})"
# "a week", "an hour": one of a unit written as a word ("a m" is no amount).
_ONE_UNIT = rf"(?P<one>an?)\s+(?P<unit>{_UNIT_WORD})"
_CONVERSIONS = (
    re.compile(
        # (Not the 5 of "3,5 km": a decimal comma's digits are one amount, read or not.)
        rf"(?<![\w.])(?<!\d,){_AMOUNT_UNIT}\s+(?:to|in|into|as|in\s+terms\s+of)\s+(?:degrees\s+)?(?P<target>{_ANY_UNIT})(?![\w])",
        re.IGNORECASE,
    ),
    re.compile(
        rf"\bhow\s+many\s+(?P<target>{_UNIT_WORD})\s+(?:(?:is|are|make|makes|equals?|does|do)\s+)?"
        rf"(?:there\s+)?(?:in\s+)?(?:{_AMOUNT_UNIT}|{_ONE_UNIT})(?![\w])(?!\s+and\s+an?\s+half)",
        re.IGNORECASE,
    ),
    # "30 degrees Celsius is how much in Fahrenheit?", "5 km is how many miles?"
    re.compile(
        rf"(?<![\w.])(?<!\d,){_AMOUNT_UNIT}\s+(?:is|are|equals?|makes?)\s+how\s+(?:much|many)\s+"
        rf"(?:in\s+)?(?:degrees\s+)?(?P<target>{_ANY_UNIT})(?![\w])",
        re.IGNORECASE,
    ),
)


@dataclass(frozen=True)
class Conversion:
    """A quantity to convert: its amount and units as the request writes them."""

    amount: float
    source: str
    target: str
    words: str
    # The amount as written, in digits ("1,250", "98.6"; "2" for "two", "1" for "a week"),
    # for an expression that keeps it so.
    amount_words: str = ""
    # Whether the amount is one of the unit said with an article ("a week", "an hour").
    one_unit: bool = False


@lru_cache(maxsize=256)
def conversion_in(text: str) -> Conversion | None:
    """The unit conversion ``text`` asks for, if any ("5 miles to km", "how many seconds in a
    week"); its words are a span of ``text`` however its amount was written."""
    said = in_digits(text)
    for pattern in _CONVERSIONS:
        found = pattern.search(said.text)
        if found is None:
            continue
        parts = found.groupdict()
        amount = "1" if parts.get("one") else found.group("amount")
        source = parts.get("unit") or found.group("source")
        if _GROUP_OF[source.lower()] != _GROUP_OF[found.group("target").lower()]:
            return Conversion(
                float(amount.replace(",", "")),
                source,
                found.group("target"),
                said.words(*found.span()),
                amount,
                one_unit=bool(parts.get("one")),
            )
    return None


def unit_option(written: str, options: list[object]) -> object | None:
    """The schema's option for a unit written another way ("kilometres" for the option "km")."""
    group = _GROUP_OF.get(written.lower())
    if group is None:
        return None
    return next((option for option in options if str(option).lower() in group), None)


def canonical_unit(written: str) -> str:
    """The unit's symbol ("mi" for "miles", "c" for "°C"); the words as written if unknown."""
    group = _GROUP_OF.get(written.lower())
    return group[0] if group else written.lower()


def same_unit(a: str, b: str) -> bool:
    """Whether two spellings name one unit ("km" and "kilometres")."""
    group = _GROUP_OF.get(a.lower())
    return group is not None and b.lower() in group


def unit_role(name: str, description: str) -> str | None:
    """Which end of a conversion a property takes: "source" (from_unit, unit_from, input_unit),
    "target" (to_unit, target_unit, output_unit), or None for no unit property."""
    words = set(re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", name.lower())) - {""}
    if "unit" not in words and "units" not in words and "unit" not in description.lower():
        return None
    if words & {"from", "source", "input", "src", "original"}:
        return "source"
    if words & {"to", "target", "output", "dest", "destination", "into"}:
        return "target"
    return None
