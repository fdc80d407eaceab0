"""Arguments a request states in plain words, read against the property that takes them.

graph/planner/arguments.py reads values by their shape (an address, a path, a number after
the property's name); these rules read what people write instead of a ``key=value``: a name
("call it Q4 plan"), a new name ("rename draft to final"), a table ("from the orders table"),
a range of cells ("A1 to C5"), a list ("tags a, b and c"), a yes or no said as the property's
own word ("recursively", "including archived ones"), an SQL statement, an arithmetic
expression and the units of a conversion (graph/planner/calculation.py). Each returns the
value with the reason it was read, and nothing when the request does not say: a value that is
not stated is asked for, never guessed. graph/planner/provenance.py shows a reviewer each
value's words, and which of these rules put them in another form.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from graph.planner import spreadsheet_words
from graph.planner.calculation import (
    conversion_in,
    expression_in,
    same_unit,
    takes_an_expression,
    unit_option,
    unit_role,
)
from graph.planner.text import STOPWORDS, abbreviates, compiled, split_identifier

Reading = tuple[Any, str]
# (graph/planner/arguments.py counts a value read so as distinctive of the capability.)
_ARITHMETIC_REASON = "arithmetic in the request"

# Words that end a name written without quotes ("call it Q4 plan and share it").
_NAME_ENDS = (
    r"and|with|in|into|under|inside|within|for|from|to|on|onto|at|that|which|who|where|so|then|please|"
    r"because|but|or|if|when|containing|saying|using|as|by|of|off|based|starting|below|above|after|before|via"
)
_NAME_WORD = r"[\w][\w.'&+-]*"
_NAMED_AS = re.compile(
    rf"""\b(?:call(?:ed)?\s+it|name(?:d)?\s+it|title(?:d)?\s+it|label(?:led)?\s+it|called|named|titled)\s+"""
    rf"""(?:"(?P<double>[^"]+)"|“(?P<curly>[^”]+)”|'(?P<single>[^']+)'|"""
    rf"""(?P<bare>{_NAME_WORD}(?:\s+(?!(?:{_NAME_ENDS})\b){_NAME_WORD})*))""",
    re.IGNORECASE,
)
# Properties that take what a new thing is called.
_NAME_KEYS = frozenset({"name", "title", "label", "display_name", "displayname", "new_name", "newname"})
# "rename draft to final", "rename the 'Q1' sheet to 'Q1 2024'".
_QUOTED_OR_WORD = r"""(?:"[^"]+"|“[^”]+”|'[^']+'|[\w][\w./-]*)"""
_RENAME = re.compile(
    rf"\brename\s+(?:the\s+)?(?:(?P<noun>[a-z]+)\s+(?=(?:{_QUOTED_OR_WORD})\s+(?:to|as|into)\b))?"
    rf"(?P<old>{_QUOTED_OR_WORD})(?:\s+(?P<noun_after>[a-z]+))?\s+(?:to|as|into)\s+"
    rf"(?P<new>{_QUOTED_OR_WORD}(?:\s+(?!(?:{_NAME_ENDS})\b)[\w][\w./-]*)*)",
    re.IGNORECASE,
)
_OLD_WORDS = frozenset({"old", "current", "from", "source", "existing", "original", "src"})
_NEW_WORDS = frozenset({"new", "to", "target", "destination", "dest"})
# Nouns for things a database or a workspace holds, written beside their name.
_CONTAINER_NOUNS = frozenset(
    "table collection sheet worksheet tab database db schema index bucket channel project board list "
    "queue topic view dataset namespace space workspace".split()
)
_DETERMINERS = STOPWORDS | frozenset(
    "this that these those each every which what whole entire new same".split()
)
# A spreadsheet cell ("A1", "$C$5") and a range of them ("A1:C5", "A1 to C5", "from A1 through C5").
_CELL = r"\$?[A-Z]{1,3}\$?[1-9]\d{0,6}"
_CELL_RANGE = re.compile(
    rf"(?:\b(?P<sheet>[A-Za-z][\w]*)!)?(?<![\w$])(?P<start>{_CELL})(?:\s*:\s*|\s+(?:to|through|thru|until)\s+|\s*-\s*)"
    rf"(?P<end>{_CELL})(?![\w])"
)
_RANGE_KEYS = frozenset({"range", "cell_range", "cells", "a1", "a1_range", "a1_notation", "rng"})
_LIST_END = r"(?=\s*(?:[.;!?]|$|\s(?:to|on|for|in|from|with)\b))"
_SQL = re.compile(
    r"(?<![\w'\"])((?:SELECT|WITH|INSERT\s+INTO|UPDATE|DELETE\s+FROM|CREATE\s+(?:TABLE|INDEX|VIEW)|"
    r"DROP\s+(?:TABLE|INDEX|VIEW)|ALTER\s+TABLE|PRAGMA|EXPLAIN)\b[^;]*;?)",
)
_SQL_KEYS = frozenset({"sql", "query", "statement", "sql_query", "stmt"})
_NEGATIONS = r"(?:don'?t|do\s+not|not|no|never|without|excluding|exclude|skip(?:ping)?|non-?|un)"


def _unquote(value: str) -> str:
    for opening, closing in (('"', '"'), ("'", "'"), ("“", "”")):
        if len(value) >= 2 and value.startswith(opening) and value.endswith(closing):
            return value[1:-1]
    return value


def _unused(value: str | None, used: set[str]) -> str | None:
    return value if value and value not in used else None


def name_given(text: str) -> Reading | None:
    """What the request calls a new thing: "call it Q4 plan", "named 'budget'", "titled Roadmap"."""
    found = _NAMED_AS.search(text)
    if not found:
        return None
    quoted = found.group("double") or found.group("curly") or found.group("single")
    value = quoted or found.group("bare").rstrip(".,;:!?")
    lead = found.group(0).split()[0].lower()
    return value, f"the name after '{lead}' ({value})"


def rename(text: str) -> tuple[str, str] | None:
    """The old and new names of "rename X to Y", each as written (quotes taken off)."""
    found = _RENAME.search(text)
    if not found:
        return None
    return _unquote(found.group("old")), _unquote(found.group("new").rstrip(".,;:!?"))


# "... as Q3-backup", "... to Q3-final": what a copy or a renamed thing is to be called, last.
_NEW_NAME_LAST = re.compile(
    r"""\s(?:as|to|into)\s+(?:"(?P<double>[^"]+)"|“(?P<curly>[^”]+)”|'(?P<single>[^']+)'|"""
    r"""(?P<bare>[\w][\w.-]*?))\s*[.!]?\s*$""",
    re.IGNORECASE,
)


def new_name_last(text: str) -> Reading | None:
    """The new name a request ends on ("Duplicate the Q3 sheet as Q3-backup"), for a property
    that takes a new name (rename_role "new"); the thing copied or renamed is named before it."""
    found = _NEW_NAME_LAST.search(text)
    if not found:
        return None
    value = found.group("double") or found.group("curly") or found.group("single") or found.group("bare")
    if re.search(r"\.[A-Za-z]\w{0,7}$", value):
        return None  # "save it as q3.csv": a file to write, not a new name
    lead = found.group(0).split()[0].lower()
    return value, f"the new name after '{lead}' ({value})"


def rename_role(name: str, properties: dict[str, Any]) -> str | None:
    """Which name of a rename a property takes: "old" or "new", or None. A plain ``name`` beside a
    ``new_name`` is the old one."""
    words = set(split_identifier(name))
    siblings = {w for other in properties if other != name for w in split_identifier(other)}
    if words & _NEW_WORDS and not words & _OLD_WORDS:
        return "new"
    if words & _OLD_WORDS:
        return "old"
    if words & {"name", "title", "id"} and "new" in siblings:
        return "old"
    return None


def _container_name(name: str, text: str) -> Reading | None:
    """A table (or another container) named beside its noun: "the orders table", "table orders"."""
    words = split_identifier(name)
    # "tbl" is the table, "coll" the collection: a name's word may abbreviate the noun.
    nouns = [
        next((n for n in sorted(_CONTAINER_NOUNS) if w == n or abbreviates(w, n)), "")
        for w in words
        if w in _CONTAINER_NOUNS or any(abbreviates(w, n) for n in _CONTAINER_NOUNS)
    ]
    if not nouns or {"path", "file", "dir", "directory", "uri", "url"} & set(words):
        return None
    noun = nouns[0]
    plural = rf"{noun}s?"
    quoted = r"""[`"'“]([^`"'”]+)[`"'”]"""
    for pattern in (
        rf"{quoted}\s+{plural}\b",
        rf"\b{plural}\s+(?:called\s+|named\s+)?{quoted}",
        rf"\b(?:the|a|an|my|our|from|in|into|of)\s+([\w][\w.-]*)\s+{noun}\b",
        rf"\b(?:from|in|into|of|on)\s+(?:the\s+)?{noun}\s+(?:called\s+|named\s+)?([\w][\w.-]*)",
    ):
        found = compiled(pattern, re.IGNORECASE).search(text)
        if found and found.group(1).lower() not in _DETERMINERS | _CONTAINER_NOUNS:
            value = found.group(1)
            return value, f"the {noun} named in the request ({value})"
    return None


# Asked for every text property of every capability scored, always of the same request.
@lru_cache(maxsize=256)
def cell_range(text: str) -> tuple[str, str, str, str | None] | None:
    """The first range of cells: its start, its end, the words and the sheet named with it."""
    found = _CELL_RANGE.search(text)
    if not found:
        return None
    return found.group("start"), found.group("end"), found.group(0), found.group("sheet")


def _range_value(name: str, text: str) -> Reading | None:
    found = cell_range(text)
    if found is None:
        return None
    start, end, words, sheet = found
    key = name.lower()
    words_set = set(split_identifier(name))
    if key in _RANGE_KEYS or "range" in words_set:
        value = f"{sheet}!{start}:{end}" if sheet else f"{start}:{end}"
        return value, f"the cells in the request ({words})"
    if "cell" in key:
        if words_set & {"start", "from", "first", "begin", "top"}:
            return start, f"where the cells start ({start})"
        if words_set & {"end", "to", "last", "stop", "bottom"}:
            return end, f"where the cells end ({end})"
    return None


def listed_values(name: str, text: str, used: frozenset[str] | set[str] = frozenset()) -> Reading | None:
    """Several words after the property's name: "tags a, b and c", "labels: bug, ui"; or after
    "with" when the name's noun is the verb ("Tag Projects/Apollo.md with q4": the note tagged
    is another property's value, ``used``)."""
    words = split_identifier(name)
    if not words:
        return None
    noun = words[-1].removesuffix("s")
    item = r"[\w][\w.#/-]*"
    listed = rf"((?:{item}\s*,\s*)*{item}(?:,?\s+(?:and|or)\s+{item})?){_LIST_END}"
    patterns = (
        # The values start after a colon, an equals sign or a space, never inside the noun's
        # own word ("the tags on X" lists no tag "s").
        rf"\b{re.escape(noun)}s?(?:\s*[:=]\s*|\s+){listed}",
        rf"\b{re.escape(noun)}\w*(?:\s+(?!with\b)\S+){{1,3}}\s+with\s+(?!(?:the|a|an|this|that)\b){listed}",
    )
    for pattern in patterns:
        for found in compiled(pattern, re.IGNORECASE).finditer(text):
            values = [v.strip() for v in re.split(r"\s*,\s*|\s+(?:and|or)\s+", found.group(1)) if v.strip()]
            if not values or (len(values) == 1 and values[0].lower() in STOPWORDS):
                return None  # "tag it with the label" lists nothing
            if all(v in used or re.search(r"/|\.[A-Za-z]\w{0,7}$", v) for v in values):
                continue  # "Tag Projects/Apollo.md ...": the note, not a tag
            return values, f"the {noun}s listed in the request ({found.group(1)})"
    return None


def _forms(word: str) -> list[str]:
    """A property word as a request may say it: recursive, recursively; archived, archive."""
    stem = re.sub(r"(?:ive|ed|e|s)$", "", word)
    return sorted(
        {word, f"{word}ly", f"{stem}ively", f"{stem}ed", f"{stem}ing", f"{stem}e", f"{stem}s"}, key=len
    )


def boolean_words(name: str, text: str) -> Reading | None:
    """A yes or no said as the property's own words: "recursively" for ``recursive``, "including
    archived ones" for ``include_archived``, "a dry run" for ``dry_run``, "not recursively" or
    "without archived" for no."""
    words = [w for w in split_identifier(name) if w not in {"is", "should", "enable", "enabled", "use"}]
    if not words:
        return None
    lead = words[0]
    if lead in {"include", "with", "show", "return", "list", "allow"} and len(words) > 1:
        subject = r"\s+".join(rf"(?:{'|'.join(map(re.escape, _forms(w)))})" for w in words[1:])
        yes = rf"\b(?:includ(?:e|es|ing)|with|show(?:ing)?|plus|and|even)\s+(?:the\s+|any\s+|all\s+)?{subject}\b"
        no = rf"\b(?:without|excluding|exclude|skip(?:ping)?|no|not|hide|hiding)\s+(?:the\s+|any\s+)?{subject}\b"
    else:
        subject = r"[\s-]+".join(rf"(?:{'|'.join(map(re.escape, _forms(w)))})" for w in words)
        yes = rf"\b{subject}\b"
        no = rf"\b{_NEGATIONS}[\s-]*(?:\w+\s+)?{subject}\b"
    negative = compiled(no, re.IGNORECASE).search(text)
    if negative:
        return False, f"'{negative.group(0)}' in the request"
    positive = compiled(yes, re.IGNORECASE).search(text)
    if positive:
        # The words may be followed by the value itself ("next thought needed false",
        # "recursive: no"): that value, never the yes the words alone would mean. On and off are
        # left out (prepositions: "recursively on /srv"), yes and no need a separator.
        said = _SAID_AFTER.match(text, positive.end())
        if said:
            value = said.group(1) or said.group(2)
            return value.lower() in {"true", "yes"}, f"'{positive.group(0)}{said.group(0)}' in the request"
        return True, f"'{positive.group(0)}' in the request"
    return None


_SAID_AFTER = re.compile(r"\s*(?:[=:]\s*|is\s+)?\b(true|false)\b|\s*[=:]\s*(yes|no)\b", re.IGNORECASE)


def conversion_unit(name: str, shape: dict[str, Any], text: str) -> tuple[Any, str, str] | None:
    """The unit a conversion's property takes ("5 miles to km": miles for ``from_unit``), as the
    schema's option for it when it lists options; with the reason and the words."""
    role = unit_role(name, str(shape.get("description") or ""))
    conversion = conversion_in(text) if role is not None else None
    if conversion is None:
        return None
    written = conversion.source if role == "source" else conversion.target
    options = shape.get("enum")
    value = unit_option(written, options) if isinstance(options, list) and options else written
    if value is None:
        return None
    return value, f"the unit converted {'from' if role == 'source' else 'to'} ({written})", written


# The verbs that mean an option of what to do ("Tag X with q4" adds a tag, "Block port 8080"
# denies it), by option: read only for a property that says what to do (operation, action).
_VERBS_OF_OPTIONS: dict[str, frozenset[str]] = {
    option: frozenset(verbs.split())
    for option, verbs in {
        "add": "tag label attach apply append assign give insert",
        "remove": "untag unlabel detach strip unassign drop delete erase",
        "delete": "remove drop erase",
        "create": "make",
        "list": "show display enumerate",
        "deny": "block forbid disallow ban reject refuse blacklist",
        "allow": "permit unblock whitelist accept",
        "enable": "activate",
        "disable": "deactivate",
    }.items()
}
# Names of a property that says what to do.
_ACTION_WORDS = frozenset({"operation", "action", "op", "command", "cmd", "verb", "mode"})


def option_of_the_verb(options: list[Any], text: str, name: str = "") -> tuple[Any, str] | None:
    """The option a request's opening verb puts a thing in: "Close ticket 7" is ``closed``,
    "Reopen ticket 11" is ``open``, "Archive it" is ``archived``; for a property that says what
    to do (``operation``, ``action``), the option the verb means ("Tag X with q4" is ``add``,
    "Block port 8080" is ``deny``); with the verb as written."""
    opening = re.match(
        r"^\W*(?:(?:please|can|could|would|you|kindly|just)\s+)*([A-Za-z]+)\b", text, re.IGNORECASE
    )
    if opening is None:
        return None
    verb = opening.group(1).lower()
    forms = {f"{verb}d", f"{verb}ed", f"{verb[:-1]}ied" if verb.endswith("y") else f"{verb}ed"}
    if verb.startswith("re") and len(verb) > 4:
        forms.add(verb[2:])  # reopen: open again
    stated = [option for option in options if str(option).lower() in forms]
    if not stated and set(split_identifier(name)) & _ACTION_WORDS:
        stated = [option for option in options if verb in _VERBS_OF_OPTIONS.get(str(option).lower(), ())]
    return (stated[0], opening.group(1)) if len(stated) == 1 else None


_READING_SQL = re.compile(r"^(?:SELECT|WITH|PRAGMA|EXPLAIN)\b")


def sql_reads(text: str) -> bool | None:
    """Whether the SQL statement ``text`` writes out only reads (SELECT, WITH, PRAGMA, EXPLAIN);
    None when it writes none."""
    statement = _SQL.search(text)
    if statement is None:
        return None
    # "WITH ... DELETE" and the like change data whatever they open with.
    changes = re.search(r"\b(?:INSERT|UPDATE|DELETE|DROP|ALTER|CREATE|REPLACE)\b", statement.group(1))
    return bool(_READING_SQL.match(statement.group(1))) and changes is None


def sql_change(text: str) -> str | None:
    """The verb of the change the SQL statement ``text`` writes out makes ("delete" for DELETE
    FROM ...); None when it writes none, or one that only reads."""
    statement = _SQL.search(text)
    if statement is None or sql_reads(text):
        return None
    changes = re.search(r"\b(INSERT|UPDATE|DELETE|DROP|ALTER|CREATE|REPLACE)\b", statement.group(1))
    return changes.group(1).lower() if changes else None


def without_values(text: str) -> str:
    """``text`` with its SQL statement and its arithmetic blanked: their words ("SELECT ... FROM
    orders", "250 divided by 5", "3 squared") are a value, not topics a capability should mention."""
    blanked = _SQL.sub(" ", text)
    expression = expression_in(blanked)
    return blanked.replace(expression.words, " ") if expression is not None else blanked


def states_arithmetic(extraction_sources: dict[str, str]) -> bool:
    """Whether an argument was read as arithmetic the request states (by ``read`` above)."""
    return any(reason.startswith(_ARITHMETIC_REASON) for reason in extraction_sources.values())


def takes_sql(name: str, shape: dict[str, Any]) -> bool:
    """Whether a property takes an SQL statement: named ``sql``, or a query its schema says is SQL."""
    key = name.lower()
    return key == "sql" or (key in _SQL_KEYS and "sql" in str(shape.get("description") or "").lower())


def identifier_beside_noun(name: str, text: str) -> Reading | None:
    """A string identifier written after its noun: "spreadsheet abc123" for ``spreadsheet_id``,
    "project 'web-app'" for ``projectId``. Only a token no word could be (a digit, a hyphen, an
    underscore or a dot in it), or a quotation."""
    words = split_identifier(name)
    if len(words) < 2 or words[-1] != "id":
        return None
    noun = r"[\s_-]+".join(map(re.escape, words[:-1]))
    found = compiled(
        rf"\b{noun}s?\s+(?:id\s+)?(?:\"([^\"]+)\"|'([^']+)'|([\w][\w.-]*[-_.\d][\w.-]*))", re.IGNORECASE
    ).search(text)
    if not found:
        return None
    value = next(g for g in found.groups() if g is not None).rstrip(".")
    return value, f"the {' '.join(words[:-1])} named in the request ({value})"


def read(name: str, shape: dict[str, Any], types: set[str], text: str, used: set[str]) -> Reading | None:
    """The value ``text`` states for the property in plain words, with the reason; None when
    none of these rules finds one (the shape rules in graph/planner/arguments.py go on)."""
    key = name.lower()
    description = str(shape.get("description") or "")
    if takes_an_expression(name, description, types):
        expression = expression_in(text)
        if expression is not None:
            return expression.symbols, f"{_ARITHMETIC_REASON} ({expression.words})"
    if "string" in types or not types:
        unit = conversion_unit(name, shape, text)
        if unit is not None:
            return unit[0], unit[1]
    if key in _SQL_KEYS and ("string" in types or not types):
        statement = _SQL.search(text)
        if statement:
            return statement.group(1).strip(), "the SQL statement in the request"
    if "string" in types or not types:
        named = _text_named(name, shape, text, used)
        if named is not None:
            return named
    if "integer" in types:
        return spreadsheet_words.line_number(name, shape, text)
    if "boolean" in types:
        return boolean_words(name, text)
    return None


def _text_named(name: str, shape: dict[str, Any], text: str, used: set[str]) -> Reading | None:
    """For a property of text: a range of cells, a container's name, an identifier beside its
    noun, a name given, a cell or a sheet, in that order; a value another property took is
    left to it (only the range is read whatever was taken)."""
    ranged = _range_value(name, text)
    if ranged is not None:
        return ranged
    candidates: list[Callable[[], Reading | None]] = [
        lambda: _container_name(name, text),
        lambda: identifier_beside_noun(name, text),
        lambda: name_given(text) if name.lower() in _NAME_KEYS else None,
        lambda: spreadsheet_words.one_cell(name, shape, text),
        lambda: spreadsheet_words.sheet_after_on(name, text),
    ]
    for candidate in candidates:
        found = candidate()
        if found is not None and _unused(str(found[0]), used):
            return found
    return None


def restated(value: Any, words: str, name: str) -> tuple[str, str] | None:
    """The words a value is read from when one of these rules put it in another form, and how:
    "17 times 23" as 17*23, "kilometres" as the option km, "A1 to C5" as A1:C5, "recursively"
    as yes. None when no rule reads ``value`` from ``words``."""
    verbed = option_of_the_verb([value], words, name) if isinstance(value, str) else None
    if verbed is not None:
        return verbed[1], f"'{verbed[1]}' as the option {value}"
    # (A yes or no said as the property's own word, "recursively", stays derived: a reviewer
    # reads it, as tests/graph/test_argument_provenance.py asks.)
    if not isinstance(value, str):
        return None
    expression = expression_in(words)
    if expression is not None and expression.symbols == value:
        return expression.words, f"'{expression.words}' in symbols as {value}"
    conversion = conversion_in(words)
    if conversion is not None:
        for written in (conversion.source, conversion.target):
            if same_unit(written, value):
                return written, f"the unit '{value}', written '{written}'"
    cells = cell_range(words)
    if cells is not None:
        start, end, written, sheet = cells
        if value in {f"{start}:{end}", f"{sheet}!{start}:{end}"}:
            return written, f"'{written}' as the range {value}"
    return None
