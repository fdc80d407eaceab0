"""Replacements a request states in plain words, and the properties of a tool that take them.

"change A to B", "replace A with B", "swap A for B", "substitute B for A", "A -> B", and
several of them joined by "and" or commas, each give an old text and a new one. An edit tool
takes them as a list of objects with one field for the old text and one for the new
(server-filesystem's ``edits: [{oldText, newText}]``), or as two text properties of its own
(``replace_text(path, find, replace)``). The fields are found by their names (old/new,
from/to, find/replace, search/replace, original/updated, in any spelling) or, failing that,
by their descriptions ("Text to search for", "Text to replace with").

A quoted value is taken as written; an unquoted one only when it is one token that is not a
plain word of the sentence ("replace draft with final", never "change the review meeting to
the design review", whose ends nobody can tell). A request that states one side only
("change the word draft") states no replacement: the tool's property is asked for.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from graph.planner.text import STOPWORDS, split_identifier

Role = Literal["old", "new"]


@dataclass(frozen=True)
class Replacement:
    """One old text and the new text for it, with the words of the request that state them."""

    old: str
    new: str
    words: str


_QUOTED = r""""(?P<{0}_d>[^"]+)"|“(?P<{0}_c>[^”]+)”|‘(?P<{0}_s>[^’]+)’|(?<![\w])'(?P<{0}_q>[^']+)'(?![\w])|`(?P<{0}_b>[^`]+)`"""
# One token: letters, digits and the joiners of versions, identifiers and addresses ("v1.2",
# "foo_bar", "TODO"), never ending in punctuation (the full stop after it ends the sentence).
_TOKEN = r"(?P<{0}_t>[\w][\w.@#:/+-]*[\w]|[\w])"
# What may stand between the verb and the value: "replace the word 'draft'", "change every
# occurrence of draft", "swap out the text 'a'".
_LEAD_IN = (
    r"(?:(?:all|every|each)\s+(?:the\s+)?(?:occurrences?|instances?|mentions?)\s+of\s+|"
    r"(?:(?:the|all|every|each|any)\s+)?(?:words?|text|phrases?|strings?|lines?|terms?|spelling)\s+|"
    # "replace every 'North' with 'Nord'": a quantifier before a quoted text.
    r"(?:all|every|each|any)\s+(?=[\"“‘'`]))?"
)


# Where an unquoted new text ends: the end of the clause, or a word that starts the next
# ("to final in /x/q4.md", "with final and save it"). "to final version" has no clear end.
_CLAUSE_END = (
    r"(?=\s*(?:[.,;:!?)]|$)|\s+(?:in|inside|within|throughout|everywhere|across|on|at|under|and|then"
    r"|please|so|but)\b)"
)


def _value(group: str, *, ends_a_clause: bool = False) -> str:
    token = _TOKEN.format(group) + (_CLAUSE_END if ends_a_clause else "")
    return rf"(?:{_LEAD_IN})(?:{_QUOTED.format(group)}|{token})"


# The verb and the word between the old and the new text it takes; "substitute B for A" puts
# the new text first.
# ("swap A with B" may mean trading places, so only "swap A for B" is read.)
_CONNECTORS = {"replace": "with|by", "change": "to|into", "swap": "for", "substitute": "for|with"}
_VERB = r"(?P<verb>replace|change|swap(?:\s+out)?|substitute)"
_BODY = rf"{_value('a')}\s+(?P<connector>with|by|to|into|for)\s+{_value('b', ends_a_clause=True)}"
_STATED = re.compile(rf"\b{_VERB}\s+{_BODY}", re.IGNORECASE)
# "..., and 'c' with 'd'", "and change 'c' to 'd'": the next replacement of a list.
_FOLLOWING = re.compile(rf"\s*(?:,\s*(?:and\s+)?|\s+and\s+)(?:also\s+)?(?:{_VERB}\s+)?{_BODY}", re.IGNORECASE)
_ARROW = re.compile(rf"{_value('a')}\s*(?:->|→|=>)\s*{_value('b', ends_a_clause=True)}", re.IGNORECASE)


def _side(match: re.Match[str], group: str) -> str | None:
    """The text of one side, as written inside its quotes; None for an unquoted plain word
    ("change the ... to ...": "the" is no text to replace)."""
    for suffix in ("d", "c", "s", "q", "b"):
        quoted = match.group(f"{group}_{suffix}")
        if quoted is not None:
            return quoted if quoted.strip() else None
    token = match.group(f"{group}_t")
    return token if token.lower() not in STOPWORDS else None


def _pair(match: re.Match[str], verb: str) -> Replacement | None:
    """The replacement a match states, when its connector belongs to ``verb``."""
    connector = match.group("connector").lower()
    if connector not in _CONNECTORS[verb].split("|"):
        return None
    first, second = _side(match, "a"), _side(match, "b")
    if first is None or second is None:
        return None
    old, new = (second, first) if verb == "substitute" and connector == "for" else (first, second)
    return Replacement(old, new, match.group(0).strip())


def _verb_of(match: re.Match[str], previous: str) -> str:
    written = match.group("verb")
    return written.split()[0].lower() if written else previous


def replacements_in(text: str) -> list[Replacement]:
    """Every replacement ``text`` states, in the order written."""
    return list(_replacements_in(text))


# Asked once for every capability scored, always of the same request.
@lru_cache(maxsize=256)
def _replacements_in(text: str) -> tuple[Replacement, ...]:
    found: list[tuple[int, Replacement]] = []
    end = 0
    for match in _STATED.finditer(text):
        if match.start() < end:
            continue  # read already, as one of a list ("..., and replace 'c' with 'd'")
        verb = _verb_of(match, "replace")
        pair = _pair(match, verb)
        if pair is None:
            continue
        found.append((match.start(), pair))
        end = match.end()
        # The replacements that follow it with "and" or a comma, with or without a verb of their own.
        while (following := _FOLLOWING.match(text, end)) is not None:
            verb = _verb_of(following, verb)
            pair = _pair(following, verb)
            if pair is None:
                break
            found.append((following.start(), pair))
            end = following.end()
    for match in _ARROW.finditer(text):
        first, second = _side(match, "a"), _side(match, "b")
        if first is not None and second is not None:
            found.append((match.start(), Replacement(first, second, match.group(0).strip())))
    ordered: dict[tuple[str, str], Replacement] = {}
    for _, pair in sorted(found, key=lambda item: item[0]):
        ordered.setdefault((pair.old, pair.new), pair)  # the same replacement stated twice is made once
    return tuple(ordered.values())


# Words of a field's name that say it takes the old text, or the new.
_OLD_NAME_WORDS = frozenset(
    {"old", "original", "find", "search", "query", "before", "existing", "current", "from", "pattern"}
)
_NEW_NAME_WORDS = frozenset(
    {"new", "replace", "replacement", "updated", "after", "to", "with", "substitute", "substitution"}
)
# A name that is a role word alone or with one of these says it takes text ("oldText", "new_str"); with
# another word it takes something else ("from_unit", "old_name").
_TEXT_WORDS = frozenset(
    {"text", "string", "str", "content", "value", "word", "words", "phrase", "snippet", "line", "lines"}
)
# Role words that are common English on their own ("from" and "to" are also an e-mail's sender
# and recipient, a translation's languages): a field named by one alone needs its description.
_AMBIGUOUS = frozenset({"from", "to", "before", "after", "with", "current", "existing"})
_OLD_DESCRIPTION = re.compile(
    r"\b(?:(?:text|string|content)\s+to\s+(?:search\s+for|find|match|look\s+for|be\s+replaced|replace)(?!\s+(?:it\s+)?with)"
    r"|(?:old|original|existing|current)\s+(?:text|string|content))",
    re.IGNORECASE,
)
_NEW_DESCRIPTION = re.compile(
    r"\b(?:(?:text|string|content)\s+to\s+(?:replace\s+(?:it\s+)?with|insert|put)"
    r"|(?:new|replacement|updated)\s+(?:text|string|content)|replacement|instead|in\s+its\s+place)",
    re.IGNORECASE,
)


def _role(name: str, schema: Any) -> Role | None:
    """Whether a string field takes the old text of a replacement or the new; None for neither."""
    if not isinstance(schema, dict) or schema.get("type") not in ("string", None) or "enum" in schema:
        return None
    words = set(split_identifier(name))
    description = str(schema.get("description") or "")
    old, new = words & _OLD_NAME_WORDS, words & _NEW_NAME_WORDS
    # A name of a role word alone says it, unless the word is common English ("from", "to"):
    # then, as for any other name, the description has to.
    if (old or new) and not (old and new) and words - old - new <= _TEXT_WORDS and words - _AMBIGUOUS:
        return "old" if old else "new"
    # What the name does not say, the description may: "Exact text to look for", "The new text".
    says_new = _NEW_DESCRIPTION.search(description) is not None
    says_old = _OLD_DESCRIPTION.search(description) is not None
    if says_new != says_old:
        return "new" if says_new else "old"
    return None


def pair_fields(properties: Any) -> tuple[str, str] | None:
    """The names of the one old-text field and the one new-text field among ``properties``
    (each schema with its ``anyOf: [X, null]`` resolved, as arguments.property_shape does)."""
    if not isinstance(properties, dict):
        return None
    roles = {name: _role(str(name), schema) for name, schema in properties.items()}
    olds = [name for name, role in roles.items() if role == "old"]
    news = [name for name, role in roles.items() if role == "new"]
    return (olds[0], news[0]) if len(olds) == 1 and len(news) == 1 else None


def item_fields(items: Any, shape_of: Callable[[dict[str, Any]], dict[str, Any]]) -> tuple[str, str] | None:
    """The old and new fields of the ``items`` of an array property (its references resolved)
    that are replacements; None when they are anything else, or need a field a replacement
    does not give. ``shape_of`` resolves a field's ``anyOf: [X, null]``
    (arguments.property_shape)."""
    if not isinstance(items, dict) or items.get("type") not in ("object", None):
        return None
    properties = items.get("properties")
    if not isinstance(properties, dict):
        return None
    fields = pair_fields(
        {name: shape_of(field) for name, field in properties.items() if isinstance(field, dict)}
    )
    required = items.get("required") or []
    if fields is None or not set(required) <= set(fields):
        return None
    return fields
