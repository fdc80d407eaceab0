"""Numbers a request says for the parameter whose noun they count or place, in digits or in
words (graph/planner/quantities.py): a range for a start and an end ("lines ten through twenty"
is 10 for ``start_line`` and 20 for ``end_line``), an ordinal for a position ("the second
layout" is 1 for ``layout_index``, which counts from 0; "the third slide" is 3 for
``slide_number``), and a most ("at most ten of them" for ``limit``). The noun decides: "the
first paragraph" places no table, "pages one to five" are no lines, so a parameter whose noun
the request does not say is asked for, never guessed.

A parameter's noun is a word of its name that says no role (``start_line`` is a line,
``cols`` columns, ``max_msgs`` messages), or, for a name of roles alone (``limit``,
``max_count``), a word of its description. graph/planner/arguments.py asks these rules first
among its rules for numbers; graph/planner/provenance.py shows an ordinal as the words that
stated it ("'first table' as index 0").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from graph.planner.quantities import NUMBER_WORD, number_of_words
from graph.planner.text import STOPWORDS, abbreviates, split_identifier, stem

Reading = tuple[Any, str]

ORDINALS = {
    word: n
    for n, word in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
        "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split(),
        1,
    )
}
# "the second", "the 3rd", "the last": an ordinal, with the word right after it.
_ORDINAL = re.compile(
    rf"\b(?:(?P<word>{'|'.join(ORDINALS)}|last)|(?P<digits>[1-9]\d{{0,3}})(?:st|nd|rd|th))\s+(?P<noun>[A-Za-z]+)\b",
    re.IGNORECASE,
)
# A number in digits or in words ("twenty-one").
_NUMBER = rf"(?:\d+|(?:{NUMBER_WORD})(?:[\s-]+(?:{NUMBER_WORD}))*)"
# "lines ten through twenty", "pages 3-7", "rows 4 to row 8", "from line 2 until 9".
_RANGE = re.compile(
    rf"\b(?P<noun>[A-Za-z]+)\s+(?P<start>{_NUMBER})\s*(?:-|–|\s(?:through|thru|to|until|till)\s)\s*"
    rf"(?:(?P=noun)\s+)?(?P<end>{_NUMBER})\b",
    re.IGNORECASE,
)
# "at most ten", "up to 20", "no more than five": the most of a count.
_AT_MOST = re.compile(
    rf"\b(?:at\s+most|up\s+to|no\s+more\s+than|not\s+more\s+than|a\s+maximum\s+of|maximum\s+of|"
    rf"limit(?:ed)?\s+(?:it\s+|them\s+)?to)\s+(?:the\s+)?(?P<n>{_NUMBER})\b",
    re.IGNORECASE,
)

# Words of a parameter's name that say its role, not what it counts or places.
_START_WORDS = frozenset({"start", "from", "first", "begin", "beginning"})
_END_WORDS = frozenset({"end", "to", "last", "stop", "until", "through"})
_POSITION_WORDS = frozenset({"index", "idx", "position", "pos", "nth"})
_NUMBER_WORDS = frozenset({"number", "num", "no", "nr"})
_MOST_WORDS = frozenset({"limit", "max", "maximum", "top"})
_ROLE_WORDS = (
    _START_WORDS
    | _END_WORDS
    | _POSITION_WORDS
    | _NUMBER_WORDS
    | _MOST_WORDS
    | frozenset({"min", "minimum", "count", "n", "k", "total", "how", "many", "of", "at", "size", "new"})
)
# Words of a description that name no thing counted.
_DESCRIPTION_NOISE = frozenset(
    {"number", "maximum", "minimum", "max", "min", "return", "returned", "inclusive", "exclusive", "based",
     "indexed", "default", "optional", "use", "used", "value", "index", "position", "count", "how", "many"}
)  # fmt: skip
_ZERO_BASED = re.compile(
    r"\b(?:0|zero)[\s-]?(?:based|indexed)\b|\bstart(?:s|ing)?\s+(?:at|from)\s+(?:0|zero)\b"
)
_ONE_BASED = re.compile(r"\b(?:1|one)[\s-]?(?:based|indexed)\b|\bstart(?:s|ing)?\s+(?:at|from)\s+(?:1|one)\b")
# "-1 for the last one", "last = -1": a description that lets -1 stand for the last.
_LAST_IS_MINUS_ONE = re.compile(r"-1\b[^.;]*\blast\b|\blast\b[^.;]*-1\b")
# Nouns that name a thing by its number ("version 2", "room 101", "issue 42"): the number is
# the thing's, never a value of a parameter that does not name that noun.
LABEL_NOUNS = frozenset(
    {"version", "release", "room", "issue", "ticket", "pr", "order", "invoice", "item", "chapter",
     "section", "step", "part", "phase", "level", "floor", "suite", "building", "apartment", "gate",
     "platform", "episode", "season", "volume", "edition", "model", "build", "sprint", "week", "day",
     "quarter", "page", "line", "row", "column", "slide", "table", "figure", "port", "case", "note"}
)  # fmt: skip


def _number(words: str) -> int | None:
    return int(words) if words.isdigit() else number_of_words(words)


def nouns(name: str, shape: Mapping[str, Any]) -> list[str]:
    """The nouns a numeric parameter counts or places: its name's words that say no role, else
    its description's words that name something."""
    named = [w for w in split_identifier(name) if w not in _ROLE_WORDS and not w.isdigit()]
    if named:
        return named
    description = str(shape.get("description") or "").lower()
    return [
        w
        for w in re.findall(r"[a-z]+", description)
        if len(w) > 2 and w not in STOPWORDS and w not in _DESCRIPTION_NOISE
    ]


def names_noun(word: str, parameter_nouns: list[str]) -> bool:
    """Whether ``word`` of the request is one of the parameter's nouns: the same word in
    another number ("lines" for a line), or a word the name abbreviates ("columns" for cols)."""
    said = stem(word.lower())
    return any(stem(noun) == said or abbreviates(noun, said) for noun in parameter_nouns)


def _role(name: str) -> str | None:
    words = set(split_identifier(name))
    if words & _START_WORDS and not words & _END_WORDS:
        return "start"
    if words & _END_WORDS and not words & _START_WORDS:
        return "end"
    return None


def range_value(name: str, shape: Mapping[str, Any], text: str) -> Reading | None:
    """The start or the end of a range of the parameter's noun: "lines ten through twenty" is
    10 for ``start_line`` (``startLine``, ``from_line``, ``first_row``) and 20 for its end."""
    role = _role(name)
    if role is None:
        return None
    parameter_nouns = nouns(name, shape)
    for match in _RANGE.finditer(text):
        if not names_noun(match.group("noun"), parameter_nouns):
            continue
        start, end = _number(match.group("start")), _number(match.group("end"))
        if start is None or end is None or end < start:
            continue
        written = match.group(role)
        return (start if role == "start" else end), f"the {role} of '{match.group(0)}' ({written})"
    return None


def counts_from_zero(name: str, shape: Mapping[str, Any]) -> bool:
    """Whether a position counts from 0: an index (``table_index``) unless its description says
    it counts from 1; anything its description says counts from 0."""
    description = str(shape.get("description") or "").lower()
    if _ZERO_BASED.search(description):
        return True
    if _ONE_BASED.search(description):
        return False
    return bool(set(split_identifier(name)) & {"index", "idx"})


def _is_position(name: str, shape: Mapping[str, Any]) -> bool:
    """A parameter that says where a thing is among its kind: an index or a position
    (``layout_index``), a thing's number (``slide_number``, not ``number_of_rows``), or a lone
    singular noun a description does not call a count (``page``)."""
    words = split_identifier(name)
    if set(words) & _POSITION_WORDS:
        return True
    if len(words) > 1 and words[-1] in _NUMBER_WORDS:
        return True
    description = str(shape.get("description") or "").lower()
    return (
        len(words) == 1
        and len(words[0]) > 2
        and words[0] not in _ROLE_WORDS
        and not words[0].endswith("s")
        and not re.search(r"\b(?:number\s+of|how\s+many|count\s+of|amount)\b", description)
    )


def ordinals(text: str) -> list[tuple[int | None, str, str]]:
    """Each ordinal of the text with the word right after it: its number (None for "last"),
    the noun and the words."""
    found = []
    for match in _ORDINAL.finditer(text):
        word = (match.group("word") or "").lower()
        number = None if word == "last" else ORDINALS[word] if word else int(match.group("digits"))
        found.append((number, match.group("noun"), match.group(0)))
    return found


def position_of(number: int | None, name: str, shape: Mapping[str, Any]) -> int | None:
    """The value an ordinal gives a position parameter: the n-th is n-1 from 0, n from 1; the
    last is -1 only where the description says -1 is the last."""
    if number is None:
        description = str(shape.get("description") or "").lower()
        return -1 if _LAST_IS_MINUS_ONE.search(description) else None
    return number - 1 if counts_from_zero(name, shape) else number


def position_value(name: str, shape: Mapping[str, Any], text: str, used: set[str]) -> Reading | None:
    """An ordinal before the parameter's noun, for a position: "the second layout" is 1 for
    ``layout_index``, "the third slide" is 3 for ``slide_number``."""
    if not _is_position(name, shape):
        return None
    parameter_nouns = nouns(name, shape)
    for number, noun, words in ordinals(text):
        if words in used or not names_noun(noun, parameter_nouns):
            continue
        value = position_of(number, name, shape)
        if value is not None:
            base = "from 0" if counts_from_zero(name, shape) else "from 1"
            return value, f"the position '{words}', counted {base} ({words})"
    return None


def _is_most(name: str, shape: Mapping[str, Any]) -> bool:
    description = str(shape.get("description") or "").lower()
    return bool(set(split_identifier(name)) & _MOST_WORDS) or bool(
        re.search(r"\b(?:maximum|max|most)\b", description)
    )


def most_value(name: str, shape: Mapping[str, Any], text: str) -> Reading | None:
    """The most a count may be, for a limit (``limit``, ``maxResults``, a count described as a
    maximum): "at most ten of them", "up to 20", "no more than five"."""
    if not _is_most(name, shape):
        return None
    match = _AT_MOST.search(text)
    value = _number(match.group("n")) if match else None
    if match is None or value is None:
        return None
    return value, f"'{match.group(0)}' in the request ({match.group(0)})"


def ordinal_stated(value: float, words: str, name: str, shape: Mapping[str, Any]) -> tuple[str, str] | None:
    """The ordinal of ``words`` that states a position's ``value`` and how ("'first table' as
    index 0"); None when none does. For graph/planner/provenance.py."""
    if not _is_position(name, shape):
        return None
    parameter_nouns = nouns(name, shape)
    for number, noun, written in ordinals(words):
        if names_noun(noun, parameter_nouns) and position_of(number, name, shape) == value:
            base = "index" if counts_from_zero(name, shape) else "number"
            return written, f"'{written}' as {base} {value:g}"
    return None


def label_of(text: str, start: int) -> str | None:
    """The word that makes the number at ``text[start:]`` a thing's own number, or None: a
    noun that names things by number ("version 2", "room 101") or a name ("Windows 11", "May
    3") right before it."""
    before = re.search(r"([A-Za-z][\w-]*)\s+#?$", text[:start])
    if before is None:
        return None
    word = before.group(1)
    opens_sentence = re.search(r"(?:^|[.!?:]\s*)\W*$", text[: before.start(1)]) is not None
    named = word[0].isupper() and not opens_sentence and word.lower() not in STOPWORDS
    return word if word.lower() in LABEL_NOUNS or named else None
