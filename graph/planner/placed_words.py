"""Text a request places by the words around it, read for the parameter that takes it: a
quotation after "after" or "before" is the text a tool looks for to place something
(``search_text``, ``anchor_text``, ``target_text``: "add a footnote after '48,000 euros'"), and
a folder named in words is the folder a parameter that takes one is given ("look only in the
Meetings folder" for ``pathPrefix``). Each is the operator's words as written;
graph/planner/arguments.py asks these among its rules for text, and what the request does not
place this way is left to the other rules, or asked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from graph.planner.text import STOPWORDS, split_identifier

Reading = tuple[Any, str]

# Words of a parameter's name that say it takes the text a tool looks for to place something.
_ANCHOR_WORDS = frozenset(
    {"search", "anchor", "target", "find", "locate", "match", "after", "before", "near"}
)
_QUOTE = r"""(?:"(?P<double>[^"]+)"|“(?P<curly>[^”]+)”|(?<!\w)'(?P<single>[^']+)'(?!\w))"""
# Words that place something by a text: "after '48,000 euros'", "below the line 'Total'".
_PLACING = frozenset("after before following preceding behind below above beneath under near to".split())
_PLACED = re.compile(
    rf"\b(?P<where>after|before|following|preceding|behind|below|above|beneath|under|next\s+to|near)\s+"
    rf"(?:the\s+(?:text|words?|phrase|sentence|line|paragraph|heading|header)\s+)?{_QUOTE}",
    re.IGNORECASE,
)
# Words of a parameter's name, or of its description, that say it takes a folder.
_FOLDER_WORDS = frozenset({"folder", "dir", "directory", "prefix", "subfolder", "subdirectory", "subtree"})
_FOLDER_NOUN = r"(?:sub)?(?:folder|directory)"
_FOLDER_NAME = r"""(?:"(?P<double>[^"]+)"|'(?P<single>[^']+)'|(?P<bare>[\w][\w./-]*))"""
# "the Meetings folder", "folder Meetings", "a folder called Drafts".
_FOLDER_NAMED = (
    re.compile(
        rf"\b(?:the|my|our|in|into|under|inside|within|from)\s+{_FOLDER_NAME}\s+{_FOLDER_NOUN}\b", re.I
    ),
    re.compile(rf"\b{_FOLDER_NOUN}\s+(?:called\s+|named\s+)?{_FOLDER_NAME}", re.I),
)
_NOT_A_NAME = STOPWORDS | frozenset(
    "this that same new other whole entire root top parent current project vault home shared each every".split()
)


def _quoted(match: re.Match[str]) -> str:
    return next(g for g in (match.group("double"), match.group("curly"), match.group("single")) if g)


def takes_an_anchor(name: str) -> bool:
    """Whether a parameter takes the text a tool looks for to place something."""
    return bool(set(split_identifier(name)) & _ANCHOR_WORDS)


def anchor_text(name: str, text: str, used: set[str]) -> Reading | None:
    """The quotation a request places something after or before, for a parameter that takes
    the text to look for (a name that says "after" or "before" takes only that side)."""
    words = set(split_identifier(name))
    if not words & _ANCHOR_WORDS:
        return None
    sides = words & {"after", "before"}
    for match in _PLACED.finditer(text):
        where = match.group("where").lower()
        if sides and where not in sides:
            continue
        value = _quoted(match)
        if value not in used:
            return value, f"the text after '{where}' ({value})"
    return None


def quote_after_noun(noun: str, text: str, used: set[str]) -> Reading | None:
    """The quotation right after a thing's noun ("insert the line 'Apologies: none.'" for
    ``line_text``), unless a preposition places something by it ("after the line 'Total'" is
    where, not what)."""
    pattern = rf"(?:\b(?P<lead>[A-Za-z]+)\s+)?(?:(?:the|a|an|this|new)\s+)?\b{re.escape(noun)}s?\s+{_QUOTE}"
    for match in re.finditer(pattern, text, re.IGNORECASE):
        lead = (match.group("lead") or "").lower()
        value = _quoted(match)
        if lead in _PLACING or value in used:
            continue
        return value, f"the quotation after '{noun}' ({value})"
    return None


def takes_a_folder(name: str, shape: Mapping[str, Any]) -> bool:
    """Whether a text parameter takes a folder: its name says so (``pathPrefix``, ``dir``), or
    its description does ("Directory to list", "a vault subtree")."""
    if set(split_identifier(name)) & _FOLDER_WORDS:
        return True
    # A description that opens on a folder ("Directory to list"), not one that only places a
    # file in one ("File to read, relative to the project folder").
    description = str(shape.get("description") or "").lower()
    return bool(
        re.match(
            r"\W*(?:(?:the|a|an)\s+)?(?:\w+\s+)?(?:folder|directory|subfolder|subdirectory)\b", description
        )
        or re.search(r"\b(?:subtree|(?:folder|directory)\s+prefix)", description)
    )


def folder_named(name: str, shape: Mapping[str, Any], text: str, used: set[str]) -> Reading | None:
    """A folder the request names in words ("the Meetings folder", "folder Drafts"), for a
    parameter that takes a folder."""
    if not takes_a_folder(name, shape):
        return None
    for pattern in _FOLDER_NAMED:
        for match in pattern.finditer(text):
            value = match.group("double") or match.group("single") or match.group("bare").rstrip(".,;:!?")
            if value.lower() in _NOT_A_NAME or value in used or re.search(r"\.\w{1,8}$", value):
                continue
            return value, f"the folder named in the request ({value})"
    return None
