"""Whether an argument's value is the operator's own words, and which words.

A value is *stated* when it is written in the words it is tied to (a language model's
citation, or the whole request for the deterministic planner) exactly as it stands, whitespace
aside, as a whole token ("Paris", never "Par" inside "Paris" nor "sample.txt" inside
"notes/sample.txt"); or when it is one of a few deterministic normalisations of those words
that this module shows and tests:

- an option of the schema written in another case ("HIGH" for the enum value "high");
- a number written in digits or words ("#42", "five", "twenty-one");
- a position said as an ordinal before the argument's noun ("the first table" is index 0 for
  ``table_index``, "the third slide" 3 for ``slide_number``: graph/planner/counted_words.py);
- a yes or no written right after the argument's name ("recursive=yes");
- a quantity converted to the unit the argument names ("2 hours" for ``timeout_seconds``);
- a time of day as HH:MM, in digits or words ("9am" and "9:00" are 09:00, "half past two in
  the afternoon" 14:30: graph/planner/clock_words.py);
- an option of the schema said in another language that the glossary reads as it
  ("pendientes" is the option pending);
- the IANA zone of a place named ("Tokyo" is Asia/Tokyo), also as another language writes
  it ("Tokio", "Ciudad de México");
- files of a kind as a glob ("Python files" is ``*.py``);
- a path named relative to one of its server's configured folders, joined to it;
- what a plain-words rule (graph/planner/plain_words.py) reads: arithmetic in symbols ("17
  times 23" is ``17*23``), a unit as the schema's option ("kilometres" is ``km``), a range of
  cells ("A1 to C5" is ``A1:C5``). (A yes or no said as the argument's own word, "recursively",
  is derived: a reviewer reads it.)

A list is stated when each of its items is, and an object (a replacement's old and new text)
when each of its fields is.

Anything else is *derived*: a model (or anything else) made it up from the words, and a
reviewer reads it before it runs (policies/provenance.py flags it).
"""

from __future__ import annotations

import math
import posixpath
import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from graph.planner.arguments import (
    Extraction,
    enum_options,
    files_of_a_kind,
    property_shape,
    referenced,
)
from graph.planner.clock_words import times_of_day
from graph.planner.counted_words import ordinal_stated
from graph.planner.languages import places_written, written_for
from graph.planner.plain_words import restated
from graph.planner.quantities import NUMBER_WORDS, QUANTITY, UNITS, number_of_words, unit_of
from graph.planner.text import compiled, split_identifier
from graph.planner.zones import is_zone_name, zone_mentions

Kind = Literal["stated", "derived"]


@dataclass(frozen=True)
class Provenance:
    """Where an argument's value came from: ``words`` of the request (or of the operator's
    replies), and ``how`` the value was read from them, in words a reviewer reads."""

    kind: Kind
    words: str
    how: str


# Characters that continue a token (a word, a path, an address): a stated value is never the
# middle of one.
_JOINERS = frozenset("_-./@\\~")
_BOOLEAN_WORDS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}
_NUMBER = re.compile(r"(?<![\w.])#?(-?\d+(?:,\d{3})*(?:\.\d+)?)(?![\w]|\.\d)")


@dataclass(frozen=True)
class _Folded:
    """Text with whitespace runs as one space (and, ``loose``, case and compatibility forms
    folded), with the position in the original of each character kept."""

    text: str
    positions: tuple[int, ...]

    @classmethod
    def of(cls, original: str, *, loose: bool) -> _Folded:
        folded: list[str] = []
        positions: list[int] = []
        previous_space = True  # leading whitespace is dropped
        for index, char in enumerate(original):
            pieces = unicodedata.normalize("NFKC", char).casefold() if loose else char
            for piece in pieces:
                if piece.isspace():
                    if previous_space:
                        continue
                    piece, previous_space = " ", True
                else:
                    previous_space = False
                folded.append(piece)
                positions.append(index)
        while folded and folded[-1] == " ":
            folded.pop()
            positions.pop()
        return cls("".join(folded), tuple(positions))

    def spans(self, wanted: str) -> Iterator[tuple[int, int]]:
        """Where ``wanted`` (folded the same way) occurs, as spans of the original text."""
        start = self.text.find(wanted)
        while start >= 0 and wanted:
            yield self.positions[start], self.positions[start + len(wanted) - 1] + 1
            start = self.text.find(wanted, start + 1)


def locate(words: str, text: str) -> tuple[int, int] | None:
    """Where ``text`` holds ``words`` (case, whitespace and compatibility forms aside), as a
    span of ``text``; None when it does not."""
    wanted = _Folded.of(words, loose=True).text
    return next(_Folded.of(text, loose=True).spans(wanted), None) if wanted else None


def _whole_token(text: str, start: int, end: int, joiners: frozenset[str]) -> bool:
    """Whether text[start:end] is not part of a longer word (or, with ``joiners``, of a longer
    path, address or identifier: "sample.txt" in "notes/sample.txt")."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    if (text[start].isalnum() or text[start] in joiners) and (before.isalnum() or before in joiners):
        return False
    if text[end - 1].isalnum() or text[end - 1] in joiners:
        # A full stop or colon after it ends the sentence, unless a word goes on ("notes.md").
        following = text[end + 1] if end + 1 < len(text) else " "
        if after.isalnum() or (after in joiners | {":"} and (following.isalnum() or following in joiners)):
            return False
    return True


def _within(text: str, span: tuple[int, int], wanted: str, *, loose: bool) -> str | None:
    """The words of text[span] that are ``wanted`` as a whole token, as written; None when none
    are. ``loose``: case and compatibility forms aside, and a word of a compound counts ("high"
    in "high-priority"), for an option the schema lists."""
    folded_wanted = _Folded.of(wanted, loose=loose).text
    joiners = frozenset("_") if loose else _JOINERS
    for start, end in _Folded.of(text, loose=loose).spans(folded_wanted):
        if span[0] <= start and end <= span[1] and _whole_token(text, start, end, joiners):
            return text[start:end]
    return None


def _numbers(text: str) -> Iterator[tuple[str, float]]:
    """Every number the text writes, in digits or in words, with the words."""
    for match in _NUMBER.finditer(text):
        yield match.group(0), float(match.group(1).replace(",", ""))
    for match in NUMBER_WORDS.finditer(text):
        value = number_of_words(match.group(0))
        if value is not None:
            yield match.group(0), float(value)


def _same_number(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _converted(value: float, words: str, name: str, schema: Mapping[str, Any]) -> tuple[str, str] | None:
    target = unit_of(name, schema)
    if target is None:
        return None
    dimension, unit = target
    for match in QUANTITY.finditer(words):
        source = match.group("unit").lower()
        if source not in UNITS[dimension]:
            continue
        amount_words = match.group("amount")
        amount = float(amount_words) if amount_words[0].isdigit() else number_of_words(amount_words)
        if amount is None:
            continue
        if _same_number(value, amount * UNITS[dimension][source] / UNITS[dimension][unit]):
            return match.group(0), f"'{match.group(0)}' in {unit}"
    return None


def _stated_number(
    value: float, text: str, span: tuple[int, int], name: str, schema: Mapping[str, Any]
) -> tuple[str, str] | None:
    words = text[span[0] : span[1]]
    for written, number in _numbers(words):
        if _same_number(value, number):
            how = "as written" if written.lstrip("#") == str(value) else f"'{written}' as a number"
            return written, how
    return _converted(value, words, name, schema) or ordinal_stated(value, words, name, schema)


def _stated_boolean(value: bool, text: str, span: tuple[int, int], name: str) -> tuple[str, str] | None:
    """A yes or no right after the argument's name ("recursive=yes", "include hidden: true"),
    or the citation being that word alone."""
    words = text[span[0] : span[1]]
    label = "|".join(re.escape(v) for v in {name, name.replace("_", " "), " ".join(split_identifier(name))})
    said = compiled(rf"(?:\b(?:{label})\s*[=:]?\s*)?\b(true|yes|on|false|no|off)\b", re.I)
    for match in said.finditer(words):
        named = match.group(0) != match.group(1)
        alone = match.group(1) == words.strip(" \"'.")
        if (named or alone) and _BOOLEAN_WORDS[match.group(1).lower()] is value:
            return match.group(0), "as written" if match.group(1).lower() == str(value).lower() else (
                f"'{match.group(1)}' as {str(value).lower()}"
            )
    return None


def _stated_text(
    value: str, text: str, span: tuple[int, int], name: str, shape: Mapping[str, Any], roots: Sequence[str]
) -> tuple[str, str] | None:
    exact = _within(text, span, value, loose=False)
    if exact is not None:
        return exact, "as written"
    options = enum_options(dict(shape))
    if value in options:
        written = _within(text, span, value, loose=True)
        if written is not None:
            return written, "as written" if written == value else f"the option '{value}', written '{written}'"
    words = text[span[0] : span[1]]
    if value in options and (glossed := written_for(words, value)) is not None:
        # "Muéstrame los tickets pendientes": an option said in the request's language, read
        # by the glossary (graph/planner/languages.py) as the option's English word.
        return glossed[0], f"the option '{value}', written '{glossed[0]}' in {glossed[1]}"
    if is_zone_name(value):
        place = next((m.words for m in zone_mentions(words) if m.zone == value), None)
        if place is not None:
            return place, f"the time zone of '{place}'"
        # "Ciudad de México": the place as another language writes it, read by its English name.
        for written, english in places_written(words):
            if any(m.zone == value for m in zone_mentions(english)):
                return written, f"the time zone of '{written}' ({english})"
    for said in times_of_day(words):
        if said.value == value:
            return said.words, "as written" if said.words == value else f"'{said.words}' as {value}"
    for written, extension in files_of_a_kind(words):
        if value in {f"*.{extension}", f"**/*.{extension}"}:
            return written, f"'{written}' as the pattern {value}"
    return _joined_to_root(value, text, span, roots) or restated(value, words, name)


def _joined_to_root(
    value: str, text: str, span: tuple[int, int], roots: Sequence[str]
) -> tuple[str, str] | None:
    """A path in one of the server's folders that the words name relative to it."""
    for root in roots:
        base = posixpath.normpath(root)
        relative = posixpath.relpath(posixpath.normpath(value), base) if value.startswith("/") else ".."
        if relative.startswith("..") or relative == "." or posixpath.join(base, relative) != value:
            continue
        for written in (relative, f"./{relative}"):
            found = _within(text, span, written, loose=False)
            if found is not None:
                return found, f"'{found}' in the folder {base}"
    return None


def _mapping(value: Any) -> Mapping[str, Any]:
    """A schema part that should be an object, or an empty one (a server may send anything)."""
    return value if isinstance(value, dict) else {}


def stated(
    value: Any,
    text: str,
    span: tuple[int, int],
    *,
    name: str,
    schema: Mapping[str, Any],
    roots: Sequence[str] = (),
) -> tuple[str, str] | None:
    """The words of text[span] that state ``value`` and how it is read from them; None when
    the value is not stated there (it is derived).

    Args:
        value: the argument's value, as it would be sent.
        text: everything the operator said on the request.
        span: the part of ``text`` the value is tied to (a citation; the whole text for the
            deterministic planner).
        name: the argument's name (a unit or a yes/no is read beside it).
        schema: the argument's JSON schema (its options, its description's unit).
        roots: the folders the capability's server was configured with.
    """
    shape = property_shape(dict(schema))
    if isinstance(value, bool):
        return _stated_boolean(value, text, span, name)
    if isinstance(value, int | float):
        return _stated_number(float(value), text, span, name, shape)
    if isinstance(value, str):
        return _stated_text(value, text, span, name, shape, roots) if value.strip() else None
    if isinstance(value, dict) and value and _takes_an_object(shape):
        # An object of values (a replacement's old and new text): stated when each field is.
        fields = _mapping(shape.get("properties"))
        return _each_stated(
            [
                stated(item, text, span, name=key, schema=_mapping(fields.get(key)), roots=roots)
                for key, item in value.items()
            ]
        )
    if isinstance(value, list) and value:
        items = _mapping(shape.get("items"))
        return _each_stated(
            [stated(item, text, span, name=name, schema=items, roots=roots) for item in value]
        )
    return None


def _takes_an_object(shape: Mapping[str, Any]) -> bool:
    """Whether a schema is an object's (an object given for text is never stated)."""
    declared = shape.get("type")
    return "properties" in shape or "object" in (declared if isinstance(declared, list) else [declared])


def _each_stated(parts: Sequence[tuple[str, str] | None]) -> tuple[str, str] | None:
    """The words and how of values that are each stated (a list's items, an object's fields),
    joined; None when any of them is not."""
    found = [part for part in parts if part is not None]
    if len(found) != len(parts):
        return None
    hows = {how for _, how in found}
    return ", ".join(words for words, _ in found), hows.pop() if len(hows) == 1 else "each as written"


def classify(
    value: Any,
    text: str,
    span: tuple[int, int],
    *,
    name: str,
    schema: Mapping[str, Any],
    roots: Sequence[str] = (),
    derived_from: str,
    derived_how: str,
) -> Provenance:
    """The value's provenance: stated, with the words; or derived from ``derived_from``."""
    found = stated(value, text, span, name=name, schema=schema, roots=roots)
    if found is not None:
        return Provenance("stated", found[0], found[1])
    return Provenance("derived", derived_from, derived_how)


def with_provenance(
    extraction: Extraction, text: str, schema: Mapping[str, Any], roots: Sequence[str] = ()
) -> Extraction:
    """The deterministic planner's extraction with each argument's provenance: its values are
    read off the request by rules, so each is checked against the whole of it."""
    properties = _mapping(schema.get("properties"))
    found = dict(extraction.provenance)
    for name, value in extraction.arguments.items():
        if name in found:
            continue
        shape = _mapping(properties.get(name))
        if "items" in shape:
            # A list of objects published by reference ("#/$defs/Edit"): its fields are named there.
            shape = {**shape, "items": referenced(shape["items"], dict(schema))}
        words = extraction.evidence.get(name, "")
        found[name] = classify(
            value,
            text,
            (0, len(text)),
            name=name,
            schema=shape,
            roots=roots,
            derived_from=words,
            derived_how=f"derived from '{words}' ({extraction.sources.get(name, 'no reason recorded')})",
        )
    return replace(extraction, provenance=found)
