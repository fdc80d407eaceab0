"""Schema-guided argument extraction. A value is taken only when the text states it.

Every property of the capability's input schema is looked for in the request, in order of
how explicit the text is: ``key=value`` first, then enum values, then values whose shape fits
the property's role (an address for ``to``, a file name for ``path``, a number for ``id``).
Defaults are never filled in (the server applies its own) and nothing is invented: a
required property the text does not state is reported as missing.

The role rules are ROLE_RULES (and NUMBER_RULES for numbers and ids), one small function each,
asked in order until one decides; tests/graph/test_argument_rules.py has a case per rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from graph.planner import (
    clock_words,
    counted_words,
    placed_words,
    plain_words,
    replacements,
    spreadsheet_words,
    store_words,
)
from graph.planner.quantities import NUMBER_WORDS, QUANTITY, UNITS, number_of_words, unit_of
from graph.planner.text import STOPWORDS, compiled, split_identifier, stem
from graph.planner.zone_roles import TOWARDS, conversion_zones, led_by
from graph.planner.zones import is_zone_name, zone_mentions
from mcp_host.reported import InvalidValueError

if TYPE_CHECKING:
    from graph.planner.provenance import Provenance

_KEY_VALUE = re.compile(r"""\b([A-Za-z_][\w-]*)\s*[=:]\s*("([^"]*)"|'([^']*)'|[^\s,;]+)""")
_NAMED_QUOTE = re.compile(r"""\b([A-Za-z][\w-]*(?: [a-z]+)?)\s+(?:"([^"]*)"|“([^”]*)”|'([^']*)')""")
_QUOTED = re.compile(r""""([^"]+)"|“([^”]+)”|(?<![\w])'([^']+)'(?![\w])""")
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
_URI = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s\"']+", re.IGNORECASE)
_PATH = re.compile(
    r"(?<![\w@/.-])((?:\.{1,2}/|/)?(?:[\w-]+/)*[\w-]+(?:\.(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{1,8})+)(?![\w@])"
)
# A path with a slash: /srv/share, ./docs, ~/notes, docs/2024 (file names are _PATH's).
_SLASH_PATH = re.compile(r"(?<![\w@:/.~-])((?:~|\.{1,2})?/[\w.~/-]*|[\w.-]+/[\w./-]*)(?![\w@])")
_QUANTITY = re.compile(
    r"(?<![\w.#])-?\d+(?:\.\d+)?\s*(?:%|(?:degrees?|percent|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?"
    r"|months?|years?|times|am|pm|km|kilometers?|kilometres?|miles?|meters?|metres?|feet|foot|inch(?:es)?|kg|g|lbs?"
    r"|pounds?|dollars?|euros?|bytes?|kb|mb|gb|tb|items?|lines?|steps?|people|persons?|users?)\b)",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![\w.])#?(-?\d+(?:\.\d+)?)(?!\w|\.\d)")
# A JSON object or array written out in the request: one value, whatever quotes it holds.
_JSON_LITERAL = re.compile(r"(?<![\w])(\{.*\}|\[.*\])(?![\w])", re.DOTALL)
_CONTENT_LEAD = re.compile(
    r"\b(?:saying:?|that says:?|which says:?|with (?:the )?(?:message|body|text|content)|containing|reading"
    r"|tell (?:him|her|them)(?: that)?|let \S+ know(?: that)?)"
    r"\s+(.+)$",
    # MULTILINE: a clarification's answer is appended on its own line, and the request's own
    # "saying ..." must still end at the end of the request's line.
    re.IGNORECASE | re.MULTILINE,
)
# "Add this insight to the memo: Madrid customers buy monitors": what follows the colon of a
# clause that names the property, to the end of the line; quotation marks around it are not
# part of it.
_AFTER_COLON = re.compile(r"^(?P<lead>[^:\n]*?)\s*:\s+(?P<text>[^\n]+?)\s*$", re.MULTILINE)
_AROUND = re.compile(r"^[\"“«‘']\s*(.*?)\s*[\"”»’']$")


def _after_its_colon(name: str, is_content: bool, text: str) -> str | None:
    """The text after a request's colon, when the words before it name the property ("this
    insight ...: <text>"), or, for a property of content (body, text), when the text after it is
    quoted (": « La réunion est déplacée »"). A value with a colon of its own (a key, a time)
    is no such colon."""
    match = _AFTER_COLON.match(text)
    if match is None or re.search(r"\S:\S", match.group(0)[: match.end("lead") + 2]):
        return None
    lead, value = match.group("lead"), match.group("text").rstrip(".")
    if re.search(r"[\"”'’»]$", lead):
        return None  # '"apiKey": "..."': a key and its value written out, not a lead-in's colon
    quoted = _AROUND.match(value)
    named = any(compiled(rf"\b{re.escape(v)}s?\b", re.IGNORECASE).search(lead) for v in _name_variants(name))
    if named and len(split_identifier(name)) >= 1 and len(value.split()) >= 2:
        return quoted.group(1) if quoted else value
    if is_content and quoted:
        return quoted.group(1)
    return None


_SUBJECT = re.compile(
    r"\b(?:subject|titled|title)\s+(?:of\s+)?[\"“']?([^\"”']+?)[\"”']?(?=\s+(?:and|saying|with)\b|$)",
    re.MULTILINE,
)
_PERSON = re.compile(r"\b(?i:greet|hello|hi|welcome|named|called|to)\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)")

_EMAIL_NAMES = frozenset({"to", "recipient", "recipients", "email", "address", "email_address", "cc", "bcc"})
_PATH_NAMES = frozenset(
    {"path", "file", "filename", "file_name", "file_path", "filepath", "source", "target", "destination",
     "dest", "src", "repo_path", "repository"}
)  # fmt: skip
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b")
_CONTENT_NAMES = frozenset({"body", "message", "text", "content", "contents", "note", "comment"})
_SUBJECT_NAMES = frozenset({"subject", "title"})
_PERSON_NAMES = frozenset({"name", "person", "who", "user", "username"})
_PLACE_NAMES = frozenset({"city", "location", "place", "town", "region", "country", "destination_city"})
# Words that open a place or a relation, never a value: "a query against the database".
_PREPOSITIONS = frozenset("against on onto in into at from over under about with without for by via".split())
_QUERY_NAMES = frozenset({"query", "q", "search", "term", "keyword", "keywords"})


@dataclass
class Extraction:
    arguments: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    # Why each value was taken, shown to reviewers beside the value.
    sources: dict[str, str] = field(default_factory=dict)
    # The words of the request (or of the operator's answer) each value was read from.
    evidence: dict[str, str] = field(default_factory=dict)
    # Values the text stated that do not fit the schema: never passed on, always reported.
    invalid: dict[str, str] = field(default_factory=dict)
    # Arguments whose value has a shape only such a parameter takes (an e-mail
    # address, a URI, a date, a time of day): evidence the request is about this capability.
    distinctive: set[str] = field(default_factory=set)
    # Whether each value is the operator's words or derived from them (graph/planner/provenance.py).
    provenance: dict[str, Provenance] = field(default_factory=dict)


def property_shape(schema: dict[str, Any]) -> dict[str, Any]:
    """The non-null branch of ``anyOf: [X, null]``, which is how Optional fields are published."""
    options = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(options, list):
        for option in options:
            if isinstance(option, dict) and option.get("type") != "null":
                merged = {**schema, **option}
                merged.pop("anyOf", None)
                merged.pop("oneOf", None)
                return merged
    return schema


def referenced(schema: Any, root: dict[str, Any]) -> Any:
    """``schema`` with a local ``$ref`` ("#/$defs/Edit", which is how pydantic publishes a list
    of models) replaced by the definition in ``root`` it points to; anything else as it is."""
    reference = schema.get("$ref") if isinstance(schema, dict) else None
    if not isinstance(reference, str) or not reference.startswith("#/"):
        return schema
    target: Any = root
    for part in reference[2:].split("/"):
        target = target.get(part) if isinstance(target, dict) else None
    return target if isinstance(target, dict) else schema


def _types(shape: dict[str, Any]) -> set[str]:
    declared = shape.get("type")
    if isinstance(declared, list):
        return {str(t) for t in declared}
    return {str(declared)} if declared else set()


class _Coercion(InvalidValueError, ValueError):
    pass


def coerce(value: Any, schema: dict[str, Any]) -> Any:
    """Convert text from the request to the property's declared type, or raise _Coercion."""
    shape = property_shape(schema)
    types = _types(shape)
    enum = shape.get("enum")
    if isinstance(value, str):
        value = value.strip()
    if isinstance(enum, list) and enum:
        for option in enum:
            if str(option).lower() == str(value).lower():
                return option
        raise _Coercion(f"{value!r} is not one of {', '.join(map(str, enum))}")
    if "integer" in types:
        written = str(value).lstrip("#")
        try:
            # int() first: a float would round an identifier longer than 15 digits.
            whole = int(written) if re.fullmatch(r"-?\d+", written) else float(written)
        except ValueError as exc:
            raise _Coercion(f"{value!r} is not a whole number") from exc
        if isinstance(whole, float) and not whole.is_integer():
            raise _Coercion(f"{value!r} is not a whole number")
        return _within_bounds(int(whole), shape)
    if "number" in types:
        try:
            return _within_bounds(float(value), shape)
        except ValueError as exc:
            raise _Coercion(f"{value!r} is not a number") from exc
    if "boolean" in types:
        lowered = str(value).lower()
        if lowered in {"true", "yes", "on", "1"}:
            return True
        if lowered in {"false", "no", "off", "0"}:
            return False
        raise _Coercion(f"{value!r} is not true or false")
    if "array" in types:
        return value if isinstance(value, list) else [value]
    return value


def _within_bounds(number: float, shape: dict[str, Any]) -> Any:
    """``number`` when the schema's minimum and maximum allow it; a value outside them is
    reported, never moved inside (the operator is asked again)."""
    low, high = shape.get("minimum"), shape.get("maximum")
    above, below = shape.get("exclusiveMinimum"), shape.get("exclusiveMaximum")
    if isinstance(low, int | float) and number < low:
        raise _Coercion(f"{number:g} is less than the least allowed, {low:g}")
    if isinstance(high, int | float) and number > high:
        raise _Coercion(f"{number:g} is more than the most allowed, {high:g}")
    if isinstance(above, int | float) and not isinstance(above, bool) and number <= above:
        raise _Coercion(f"{number:g} must be more than {above:g}")
    if isinstance(below, int | float) and not isinstance(below, bool) and number >= below:
        raise _Coercion(f"{number:g} must be less than {below:g}")
    return number


@lru_cache(maxsize=4096)  # every property of every capability scored, on every request
def _name_variants(name: str) -> frozenset[str]:
    """How a request may write a property's name: resourceType as "resource type", resource_id
    as "resource id"."""
    lowered = name.lower()
    parts = split_identifier(name)
    return frozenset(
        {
            lowered,
            lowered.replace("_", "-"),
            lowered.replace("-", "_"),
            lowered.replace("_", " "),
            " ".join(parts),
            "_".join(parts),
        }
        - {""}
    )


def _id_variants(name: str) -> set[str]:
    """An identifier property is also written as its noun ("resource 42" for resourceId) or,
    alone, as "id" ("id 7")."""
    parts = split_identifier(name)
    if len(parts) > 1 and parts[-1] == "id":
        return {" ".join(parts[:-1]), "id"}
    return set()


def _assigned(text: str) -> dict[str, str]:
    """Values written as ``key=value`` or ``key: value``."""
    found: dict[str, str] = {}
    for match in _KEY_VALUE.finditer(text):
        key = match.group(1).lower().replace("-", "_")
        value = match.group(3) if match.group(3) is not None else match.group(4)
        found.setdefault(key, value if value is not None else match.group(2))
    return found


def _key_values(text: str) -> dict[str, str]:
    found = _assigned(text)
    # "subject 'Outage', body 'The API is down'": a quotation right after a name is its value.
    for match in _NAMED_QUOTE.finditer(text):
        value = next(g for g in match.groups()[1:] if g is not None)
        label = match.group(1).lower().replace("-", "_")
        # "add a note 'x'": the name is the last word (note), or both words (resource type).
        found.setdefault(label.replace(" ", "_"), value)
        found.setdefault(label.rsplit(" ", 1)[-1], value)
    return found


def _enum_value(name: str, options: list[Any], text: str) -> Any | None:
    """An enum value the text states, preferring one written next to the property's name."""
    lowered = text.lower()
    label = "|".join(re.escape(v) for v in _name_variants(name))
    for option in options:
        word = re.escape(str(option).lower())
        if compiled(rf"\b{word}[\s-]+(?:{label})\b|\b(?:{label})\s*(?:is\s+|of\s+)?{word}\b").search(lowered):
            return option
    # An option of punctuation alone (a decimal separator ".") is no word: the dot of
    # "sales.xlsx" states no separator. It counts only beside the property's name, above.
    stated = [
        option
        for option in options
        if re.search(r"\w", str(option))
        and compiled(rf"\b{re.escape(str(option).lower())}\b").search(lowered)
    ]
    if not stated:
        # A plural option said in the singular with its label: "delete column C" is the
        # option "columns" ("the formula in B2" says nothing of a mode "formulas").
        stated = [
            option
            for option in options
            if str(option).lower().endswith("s")
            and len(str(option)) > 3
            and compiled(rf"\b{re.escape(str(option).lower()[:-1])}\s+(?:[A-Z]{{1,3}}|\d+)\b").search(text)
        ]
    return stated[0] if len(stated) == 1 else None


def _number_near(name: str, text: str) -> str | None:
    """A number written right after the property's name ("limit 5") or right before it ("5 steps")."""
    label = "|".join(
        re.escape(v) for v in sorted(_name_variants(name) | _id_variants(name), key=len, reverse=True)
    )
    after = compiled(rf"\b(?:{label})\s*(?:#|no\.?|number)?\s*(-?\d+(?:\.\d+)?)\b", re.IGNORECASE)
    match = after.search(text)
    if match:
        return match.group(1)
    before = compiled(rf"(?<![\w.])(-?\d+(?:\.\d+)?)\s+(?:{label})s?\b", re.IGNORECASE).search(text)
    return before.group(1) if before else None


_LABELLED_QUOTE = re.compile(
    r"(?:the\s+)?(?:text|message|words?|line|note)\s+([\"'“].+[\"'”])", re.IGNORECASE
)


def _content(captured: str) -> str:
    """The text to send or write: "the text 'hi there'" is hi there; a quotation is its inside."""
    value = captured.strip().rstrip(".")
    labelled = _LABELLED_QUOTE.fullmatch(value)
    return _unquote(labelled.group(1) if labelled else value)


def _unquote(value: str) -> str:
    for opening, closing in (('"', '"'), ("'", "'"), ("“", "”")):
        if len(value) >= 2 and value.startswith(opening) and value.endswith(closing):
            return value[1:-1]
    return value


def _zone_value(key: str, text: str, used: set[str]) -> tuple[Any, str, str] | None:
    """The IANA zone a time-zone property is given. Of two zones or more, the source is the one
    after "from" or whose time the request states, the target the one after "to" or asked about
    (graph/planner/zone_roles.py); one zone alone is the source's unless "to" leads it, and the
    target's when "to" or "in" leads it."""
    role = _zone_role(key)
    mentions = zone_mentions(text)
    if len({m.zone for m in mentions}) >= 2:
        if role is None:
            return None
        # Both roles are read from every zone named, whichever property is read first, so that
        # the source taking its zone leaves the target's reading unchanged.
        source, target = conversion_zones(text, mentions)
        chosen = source if role == "source" else target
        if chosen.words in used:
            return None
        return chosen.zone, f"time zone named in the request ({chosen.words})", chosen.words
    mentions = [m for m in mentions if m.words not in used][:1]  # "Phoenix, Arizona": one zone, named twice
    if not mentions:
        return None
    lone = mentions[0]
    if role == "source" and led_by(text, lone, *TOWARDS):
        return None  # "Convert 3pm to Auckland time": the target's zone, never the source's
    if role == "target" and not led_by(text, lone, *TOWARDS, "in"):
        return None
    return lone.zone, f"time zone named in the request ({lone.words})", lone.words


def _zone_role(key: str) -> Literal["source", "target"] | None:
    """Whether a time-zone property is where a time is converted from or to, by its name."""
    if "source" in key or "from" in key:
        return "source"
    if "target" in key or "dest" in key or key.startswith("to"):
        return "target"
    return None


def _time_of_day(text: str, used: set[str]) -> tuple[str, str] | None:
    """A time of day as HH:MM, with the words it was read from ("14:30", "9am", "half past
    two in the afternoon": graph/planner/clock_words.py)."""
    said = next((t for t in clock_words.times_of_day(text) if t.words not in used), None)
    return None if said is None else (said.value, said.words)


# Three or more single words after a colon, "a, b, c or d".
_LISTED_OPTIONS = re.compile(r":\s*([\w-]+(?:,\s*[\w-]+)+,?\s+(?:or|and)\s+[\w-]+)\s*\.?\s*$")


def enum_options(shape: dict[str, Any]) -> list[Any]:
    """The options a property takes: its schema's enum, or those its description lists."""
    enum = shape.get("enum")
    return list(enum) if isinstance(enum, list) and enum else _described_options(shape)


def _described_options(shape: dict[str, Any]) -> list[str]:
    """Choices a description lists in quotes ("local branches ('local'), remote ('remote') or
    all ('all')"): an enum the schema did not declare. Three or more, so an example is not one."""
    if "string" not in _types(shape):
        return []
    return list(_options_in(str(shape.get("description") or "")))


@lru_cache(maxsize=4096)  # every string property of every capability scored, on every request
def _options_in(description: str) -> tuple[str, ...]:
    options = re.findall(r"\('([\w-]+)'\)|\(\"([\w-]+)\"\)", description)
    found = list(dict.fromkeys(a or b for a, b in options))
    if len(found) >= 3:
        return tuple(found)
    # "Ticket priority to include: low, medium, high or urgent."
    listed = _LISTED_OPTIONS.search(description)
    if listed:
        found = [w for w in re.split(r",\s*|\s+(?:or|and)\s+", listed.group(1)) if w]
    return tuple(found) if len(found) >= 3 else ()


# "Python files", ".md files", "markdown documents": files of one kind.
_EXTENSIONS = {
    "python": "py", "javascript": "js", "typescript": "ts", "markdown": "md", "text": "txt", "json": "json",
    "yaml": "yaml", "csv": "csv", "html": "html", "css": "css", "shell": "sh", "go": "go", "rust": "rs",
    "java": "java", "ruby": "rb", "php": "php", "sql": "sql", "toml": "toml", "xml": "xml", "log": "log",
    "pdf": "pdf", "png": "png", "jpeg": "jpg", "jpg": "jpg",
}  # fmt: skip
_KIND_OF_FILE = re.compile(
    rf"(?<![\w.])((?:{'|'.join(_EXTENSIONS)})|\.[a-z0-9]{{1,5}})\s+(?:source\s+)?(?:files?|documents?|scripts?)\b",
    re.IGNORECASE,
)


def files_of_a_kind(text: str) -> list[tuple[str, str]]:
    """Each mention of files of one kind ("Python files", ".md files") with its extension."""
    return [
        (m.group(0), _EXTENSIONS.get(m.group(1).lower().lstrip("."), m.group(1).lower().lstrip(".")))
        for m in _KIND_OF_FILE.finditer(text)
    ]


# A glob has a * (or a ? inside a word: a question mark ending a sentence is not one).
_GLOB = re.compile(r"(?<!\S)([\w./-]*(?:\*|\?(?=[\w.*]))[\w.*?/-]*)")
_REVISION = re.compile(r"\b(HEAD(?:[~^]\d*)*(?::[\w./-]+)?|[0-9a-f]{7,40})\b")
_NAMED = re.compile(r"\b(?:named|called)\s+[\"'“]?([\w][\w./-]*)")
_COUNT = re.compile(
    r"\b(?:first|last|top|latest|newest|recent)\s+(\d+)\b|(?<![\w-])-n?\s?(\d+)(?![\w.])", re.IGNORECASE
)
_COUNT_NAMES = frozenset(
    {"limit", "count", "max_count", "max", "max_results", "top", "n", "size", "page_size"}
)
_TOPIC = re.compile(r"\b(?:on|about|regarding)\s+(?:the\s+)?(.+?)[.?!]?$", re.IGNORECASE)


# A name written with capitals ("Acme Corp"), not opening the sentence.
_PROPER_NAME = re.compile(r"(?<=[\w,:;] )[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")


def _list_value(name: str, shape: dict[str, Any], text: str, used: set[str]) -> tuple[list[str], str] | None:
    """Several values for an array of strings: every path for ``paths`` or ``files``, every
    capitalised name for ``names`` or ``entityNames``, in the order the request gives them."""
    items = shape.get("items")
    if not isinstance(items, dict) or _types(items) - {"string"}:
        return None
    words = split_identifier(name)
    last = words[-1] if words else ""
    plain = _URI.sub(" ", _EMAIL.sub(" ", text))
    if last in {"paths", "files", "filenames"}:
        # In the order written: slash paths and bare file names, wherever each stands.
        spans = [(m.start(), m.group(1).rstrip(".,;:!?")) for m in _SLASH_PATH.finditer(plain)]
        spans += [
            (m.start(), m.group(1))
            for m in _PATH.finditer(_SLASH_PATH.sub(lambda m: " " * len(m.group(0)), plain))
        ]
        found = [p for _, p in sorted(spans)]
        if last != "paths":
            # Files, not the folder they are in ("stage login.py in /srv/repo").
            found = [p for p in found if re.search(r"\.\w{1,8}$", p)]
        found = [p for p in dict.fromkeys(found) if p and p not in used and not is_zone_name(p)]
        return (found, "paths in the request") if found else None
    if last == "names":
        found = [n for n in _PROPER_NAME.findall(_QUOTED.sub(" ", text)) if n not in used]
        return (found, "capitalised names in the request") if found else None
    return None


def _counted_things(description: str, text: str, name: str = "") -> tuple[str, str] | None:
    """A number before the things a count property counts: "5 resource links" for a count
    described as "Number of resource links to return", "2 columns" for ``cols`` (a name's word
    may abbreviate the noun). "One row per member" counts no rows: it is a rate."""
    counted = {stem(w) for w in re.findall(r"[a-z]+", description.lower())} - {stem(w) for w in STOPWORDS}
    abbreviated = [w for w in counted_words.nouns(name, {}) if w not in STOPWORDS] if name else []
    for match in re.finditer(
        r"(?<![\w.])(\d+)\s+([A-Za-z]+)\b(?!\s+(?:per|each|apiece|for\s+(?:each|every))\b)", text
    ):
        said = stem(match.group(2).lower())
        if said in counted - {"number"} or counted_words.names_noun(said, abbreviated):
            return match.group(1), f"'{match.group(0)}' in the request"
    return None


def _labelled_name(noun: str, text: str) -> str | None:
    """An identifier written beside the noun it names: "the feature-search branch", "branch
    release/2.1". Only a token no word could be (a hyphen, a slash, a dot or a digit in it)."""
    token = r"([\w][\w./-]*[-./\d][\w./-]*)"
    match = compiled(rf"\b{token}\s+{re.escape(noun)}\b", re.IGNORECASE).search(text) or compiled(
        rf"\b{re.escape(noun)}\s+{token}", re.IGNORECASE
    ).search(text)
    return match.group(1).rstrip(".,;:!?") if match else None


_COMPARED = re.compile(
    r"\b(?:against|versus|vs\.?|compared?\s+(?:to|with)|differ(?:s|ent)?\s+from)\s+(?:the\s+)?([\w][\w./~^-]*)",
    re.IGNORECASE,
)
_COMPARED_BEFORE = re.compile(r"\b([\w][\w./-]*[-./\d][\w./-]*)\s+(differs?|compares?)\b", re.IGNORECASE)
_BASED = re.compile(
    r"\b(?:off|from|based\s+on|starting\s+(?:at|from))\s+(?:the\s+)?([\w][\w./-]*)", re.IGNORECASE
)
# Where a comparison or a new branch starts from, by a parameter's name.
# Nouns for a point in a history: a parameter named by one takes an identifier beside it.
REFERENCE_NOUNS = frozenset({"branch", "tag", "commit", "revision", "release", "version"})
_COMPARED_NAMES = frozenset({"target", "against", "compare", "compare_to", "other", "ref", "head"})
_BASE_NAMES = frozenset(
    {"base", "base_branch", "start_point", "from", "from_branch", "source_branch", "base_ref"}
)


# "since yesterday", "in the last 2 weeks", "after 3 days ago": where a period starts.
_RELATIVE_DATE = re.compile(
    r"\b(?:since|after|from)\s+(?P<word>\d{4}-\d{2}-\d{2}|yesterday|today|last\s+(?:week|month|year|night|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|\d+\s+(?:minutes?|hours?|days?|weeks?|months?|years?)\s+ago)\b"
    r"|\b(?:in\s+)?the\s+(?:last|past)\s+(?P<span>\d+\s+(?:minutes?|hours?|days?|weeks?|months?|years?))\b",
    re.IGNORECASE,
)


# "check out main", "switch to release-2", "go back to the develop branch".
_GOING_TO = re.compile(
    r"\b(?:checkout|check\s+out|switch\s+to|go\s+(?:back\s+)?to)\s+(?:the\s+)?([\w][\w./-]*)(\s+branch\b)?",
    re.IGNORECASE,
)
_PERIOD_RANGE = re.compile(
    r"\b(?:between|from)\s+(\d{4}-\d{2}-\d{2})\s+(?:and|to|until|through)\s+(\d{4}-\d{2}-\d{2})\b",
    re.IGNORECASE,
)


def _takes_a_relative_date(key: str, description: str) -> bool:
    """A start of a period that its description says may be relative ("2 weeks ago")."""
    return any(w in key for w in ("start", "since", "after")) and (
        "ago" in description or "relative" in description
    )


def _reference_value(name: str, text: str, used: set[str]) -> tuple[str, str] | None:
    """A branch, tag or commit a reference parameter is given: beside its noun ("the
    feature-search branch"), after "against" for a comparison's target, after "off" or "from"
    for a base."""
    key = name.lower()
    nouns = [w for w in split_identifier(name) if w in REFERENCE_NOUNS]
    if key not in _COMPARED_NAMES | _BASE_NAMES and not (nouns and not key.endswith("name")):
        return None
    for noun in nouns or ["branch", "tag", "commit"]:
        labelled = _labelled_name(noun, text)
        if labelled and labelled not in used:
            return labelled, f"the name beside '{noun}'"
    lead = _BASED if key in _BASE_NAMES or "base" in key else _COMPARED
    if lead is _COMPARED:
        revision = next((r for r in _REVISION.findall(text) if r not in used), None)
        if revision:
            return revision, "revision in the request"
    match = lead.search(text)
    if match and match.group(1).lower() not in STOPWORDS and match.group(1) not in used:
        value = match.group(1).rstrip(".,;:!?")
        return value, f"the name after '{match.group(0).split()[0]}'"
    # "How does feature-search differ from what I have checked out?": the name compared is
    # the one before "differ" (only a token no word could be).
    before = _COMPARED_BEFORE.search(text) if lead is _COMPARED else None
    if before and before.group(1) not in used:
        return before.group(1), f"the name before '{before.group(2)}'"
    return None


def _in_digits(text: str) -> str:
    """``text`` with numbers written in words put in digits ("zero lines" is "0 lines")."""

    def digits(match: re.Match[str]) -> str:
        value = number_of_words(match.group(0))
        return match.group(0) if value is None else str(value)

    return NUMBER_WORDS.sub(digits, text)


def _quantity_value(name: str, shape: dict[str, Any], text: str, used: set[str]) -> tuple[Any, str] | None:
    """A quantity in the unit the property names: "wait 2 minutes" is 120 for ``timeout_seconds``.
    Only when the request states one quantity of that dimension (two would be a guess)."""
    target = unit_of(name, shape)
    if target is None:
        return None
    dimension, unit = target
    found = [
        m
        for m in QUANTITY.finditer(text)
        if m.group("unit").lower() in UNITS[dimension] and m.group(0) not in used
    ]
    if len(found) != 1 or not found[0].group("amount")[0].isdigit():
        return None
    match = found[0]
    amount = (
        float(match.group("amount")) * UNITS[dimension][match.group("unit").lower()] / UNITS[dimension][unit]
    )
    value = int(amount) if amount.is_integer() else amount
    return str(value), f"'{match.group(0)}' in {unit} ({match.group(0)})"


def _is_identifier(name: str) -> bool:
    return name.lower() == "id" or split_identifier(name)[-1:] == ["id"]


# A value for a property and the reason it was chosen.
Found = tuple[Any, str]


class _NoValue:
    """A rule's verdict that the property takes no value from the request: the property is of
    the rule's kind, the request states no value of that kind, and a value of another shape
    would be a guess."""


NO_VALUE = _NoValue()
# What a rule says of a property: a value (taken, the rules after it are not asked), NO_VALUE
# (none, and the rules after it are not asked), or None (nothing: the next rule is asked).
RoleVerdict = Found | _NoValue | None


@dataclass(frozen=True, eq=False)
class _Property:
    """A property to find a value for in the request ``text``, with the values other
    properties already took (``used``)."""

    name: str
    shape: dict[str, Any]
    text: str
    used: set[str]
    key: str  # the name in lower case
    types: set[str]
    description: str  # in lower case

    @classmethod
    def of(cls, name: str, shape: dict[str, Any], text: str, used: set[str]) -> _Property:
        description = str(shape.get("description") or "").lower()
        return cls(name, shape, text, used, name.lower(), _types(shape), description)

    @property
    def numeric(self) -> bool:
        return bool(self.types & {"integer", "number"})

    @property
    def textual(self) -> bool:
        """A string, or a property that declares no type."""
        return "string" in self.types or not self.types


def _decided(found: Found | None) -> Found | _NoValue:
    """The verdict of a rule that decides for its kind of property: the value, or none."""
    return NO_VALUE if found is None else found


def _not_in_used(values: Any, used: set[str]) -> Any:
    """The first of ``values`` no other property took, or None."""
    return next((v for v in values if v not in used), None)


def _anchor_quoted(p: _Property) -> RoleVerdict:
    """The text a tool looks for to place something (search_text, anchor_text): the quotation
    after "after" or "before" ("add a footnote right after '48,000 euros'")."""
    return placed_words.anchor_text(p.name, p.text, p.used) if p.textual else None


def _folder_in_words(p: _Property) -> RoleVerdict:
    """A folder named in words ("the Meetings folder"), for a property that takes a folder
    (pathPrefix, a path described as a directory)."""
    return placed_words.folder_named(p.name, p.shape, p.text, p.used) if p.textual else None


def _copies(p: _Property) -> RoleVerdict:
    """Copies (cc, bcc) only where the request labels them: "cc grace@example.org and
    bob@x.org"; any other address is the recipient's."""
    if "array" not in p.types or p.key not in {"cc", "bcc"}:
        return None
    copied = re.search(
        rf"\b{p.key}\s*:?\s*((?:{_EMAIL.pattern})(?:\s*(?:,|and)\s*(?:{_EMAIL.pattern}))*)",
        p.text,
        re.IGNORECASE,
    )
    copies = [a for a in _EMAIL.findall(copied.group(1)) if a not in p.used] if copied else []
    return (copies, f"addresses after '{p.key}'") if copies else NO_VALUE


def _list_of_values(p: _Property) -> RoleVerdict:
    """An array takes a list: "Put 2750 into cell D7" is one row of one value for a property
    of rows; otherwise the values the request lists, or the words after the property's name
    for a list of strings. Nothing else (a single value's shape) fits an array."""
    if "array" not in p.types:
        return None
    rows = spreadsheet_words.one_value_as_rows(p.name, p.shape, p.text)
    if rows is not None:
        return rows
    listed = _list_value(p.name, p.shape, p.text, p.used)
    if listed is None and _types(property_shape(p.shape.get("items") or {})) <= {"string"}:
        return _decided(plain_words.listed_values(p.name, p.text, p.used))
    return _decided(listed)


def _in_plain_words(p: _Property) -> RoleVerdict:
    """The value the request states for the property in plain words (arithmetic, a unit
    converted, a language: graph/planner/plain_words.py), before any rule of shape."""
    return plain_words.read(p.name, p.shape, p.types, p.text, p.used)


def _sql_never_made_up(p: _Property) -> RoleVerdict:
    """An SQL statement, when the request wrote none, is asked for, never made up from its
    words."""
    return NO_VALUE if plain_words.takes_sql(p.name, p.shape) else None


def _quantity_in_its_unit(p: _Property) -> RoleVerdict:
    """A number in the unit the property names: "wait 2 minutes" is 120 for timeout_seconds."""
    return _quantity_value(p.name, p.shape, p.text, p.used) if p.numeric else None


def _declared_uri(p: _Property) -> RoleVerdict:
    """Whatever the name ("source", "data"), a property declared a URI takes a URI."""
    if p.shape.get("format") not in {"uri", "url"}:
        return None
    uri = _not_in_used(_URI.findall(p.text), p.used)
    return (uri, "URI in the request") if uri else NO_VALUE


_AT_ANY_DEPTH = re.compile(
    r"\b(?:sub-?folders?|sub-?directories|sub-?directory|recursive(?:ly)?|at\s+any\s+depth|nested\s+folders?)\b",
    re.IGNORECASE,
)


def _pattern(p: _Property) -> RoleVerdict:
    """A pattern takes a glob the request writes ("*.md"), files of a kind it names ("the
    markdown files": *.md, with "**/" where the tool says it matches subfolders so), or the
    name it looks for ("a file called config.json" is a pattern that matches it)."""
    if not (p.key == "pattern" or p.key.endswith("_pattern") or "glob" in p.description):
        return None
    glob = _not_in_used(_GLOB.findall(p.text), p.used)
    if glob:
        return glob, "pattern in the request"
    kind = _KIND_OF_FILE.search(p.text)
    if kind:
        extension = _EXTENSIONS.get(kind.group(1).lower().lstrip("."), kind.group(1).lower().lstrip("."))
        # "**/" matches at any depth, in every glob dialect that tools take: where the tool says
        # so, or where the request asks for subfolders too ("anywhere under /srv, subfolders
        # included", "recursively").
        prefix = "**/" if "**/" in p.description or _AT_ANY_DEPTH.search(p.text) else ""
        return f"{prefix}*.{extension}", f"files of a kind in the request ({kind.group(0)})"
    sought = _NAMED.search(p.text)
    if sought and sought.group(1).rstrip(".,;:!?") not in p.used:
        return sought.group(1).rstrip(".,;:!?"), "the name after 'called'"
    return NO_VALUE


def _revision(p: _Property) -> RoleVerdict:
    """A revision (rev, ref, commit, sha) is a commit hash or HEAD~n, nothing else."""
    if p.key not in {"revision", "rev", "ref", "commit", "sha"}:
        return None
    revision = _not_in_used(_REVISION.findall(p.text), p.used)
    return (revision, "revision in the request") if revision else NO_VALUE


def _branch(p: _Property) -> RoleVerdict:
    """A branch to go to: the name after "to", "onto" or "into" ("switch to feature-x"); "the
    other branch" names none (a plain word right before "branch" says which, it is no name)."""
    if "branch" not in p.key or "base" in p.key or "string" not in p.types:
        return None
    target = _GOING_TO.search(p.text)
    adjective = target is not None and target.group(2) is not None and target.group(1).isalpha()
    if (
        target
        and not adjective
        and target.group(1).lower() not in STOPWORDS | {"branch"}
        and target.group(1) not in p.used
    ):
        return target.group(1), f"the branch after '{target.group(0).split()[0]}'"
    return None


def _name_of_a_thing(p: _Property) -> RoleVerdict:
    """A thing's name (sheet_name, table_name, not a person's): the word after "named" or
    "called", or the name beside the thing's noun ("sheet Q3")."""
    if not p.key.endswith("name") or p.key in _PERSON_NAMES or "string" not in p.types:
        return None
    called = _NAMED.search(p.text)
    if called and called.group(1) not in p.used:
        return called.group(1).rstrip(".,;:!?"), "the name after 'named'"
    noun = p.key.removesuffix("name").strip("_-")
    labelled = _labelled_name(noun, p.text) if noun else None
    if labelled and labelled not in p.used:
        return labelled, f"the name beside '{noun}'"
    return None


def _place(p: _Property) -> RoleVerdict:
    """A city or a place: the capitalised name after "in", "for", "at", "near" or "of"."""
    if p.key not in _PLACE_NAMES or "string" not in p.types:
        return None
    named_place = re.search(r"\b(?:in|for|at|near|of)\s+([A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)*)", p.text)
    if named_place and named_place.group(1) not in p.used:
        return named_place.group(1).rstrip(".,;:!?"), "the place named in the request"
    return None


def _reference(p: _Property) -> RoleVerdict:
    """A branch, tag or revision to compare with or start from ("compared to main", "based on
    v2")."""
    return _reference_value(p.name, p.text, p.used)


def _topic(p: _Property) -> RoleVerdict:
    """A topic is the text after "on" or "about", to the end of its clause: "on quantum error
    correction, and make it short"."""
    if p.key not in {"topic", "subject_matter", "theme"}:
        return None
    topic = _TOPIC.search(p.text)
    if not topic:
        return None
    clause = re.split(r"\s*(?:[,;]|\band\s+(?:make|then|also)\b)", topic.group(1).strip())[0]
    return clause, "text after 'on'"


def _time_zone(p: _Property) -> RoleVerdict:
    """A time zone takes a zone (IANA name, a city's zone), nothing else."""
    if not ("zone" in p.key or p.key in {"tz", "timezone"} or "iana" in p.description):
        return None
    zone = _zone_value(p.key, p.text, p.used)
    return (zone[0], zone[1]) if zone else NO_VALUE


def _end_of_a_period(p: _Property) -> RoleVerdict:
    """ "between 2024-03-01 and 2024-03-31": where a period starts, for a start (since, after,
    from), and where it ends, for an end (until, before, to)."""
    period = _PERIOD_RANGE.search(p.text)
    if not period or not ("date" in p.description or "timestamp" in p.key or "date" in p.key):
        return None
    if any(w in p.key for w in ("start", "since", "after", "from")):
        return period.group(1), f"'{period.group(0)}' in the request"
    if any(w in p.key for w in ("end", "until", "before", "to")):
        return period.group(2), f"'{period.group(0)}' in the request"
    return None


def _relative_date(p: _Property) -> RoleVerdict:
    """A relative date as written ("2 weeks" for "the last 2 weeks"): git and most parsers
    read it so."""
    if not _takes_a_relative_date(p.key, p.description):
        return None
    relative = _RELATIVE_DATE.search(p.text)
    if not relative:
        return None
    value = relative.group("word") or relative.group("span")
    return value, f"'{relative.group(0).strip()}' in the request"


def _declared_date(p: _Property) -> RoleVerdict:
    """A property declared a date takes a date the request writes, nothing else."""
    if p.shape.get("format") not in {"date", "date-time"}:
        return None
    date = _not_in_used((d.group(0) for d in _DATE.finditer(p.text)), p.used)
    return (date, "date in the request") if date is not None else NO_VALUE


def _time_of_day_rule(p: _Property) -> RoleVerdict:
    """A time (time, start_time) takes a time of day ("9am", "16:45"), nothing else."""
    if not (p.key == "time" or p.key.endswith("_time")):
        return None
    found = _time_of_day(p.text, p.used)
    return (found[0], f"time of day in the request ({found[1]})") if found else NO_VALUE


def _email_address(p: _Property) -> RoleVerdict:
    """An address (to, recipient, a property declared e-mail) takes an e-mail address."""
    if p.key not in _EMAIL_NAMES and p.shape.get("format") != "email":
        return None
    address = _not_in_used(_EMAIL.findall(p.text), p.used)
    return (address, "e-mail address in the request") if address is not None else None


def _without_addresses(text: str) -> str:
    """``text`` without its URIs and e-mail addresses, whose parts look like paths."""
    return _URI.sub(" ", _EMAIL.sub(" ", text))


def _folder_path(p: _Property) -> RoleVerdict:
    """A repository or a folder takes a path whose last part has no extension (a time zone,
    Europe/Paris, is no folder), nothing else."""
    if p.key not in {"repo_path", "repository", "repo", "directory", "dir", "folder", "root"}:
        return None
    for path in _SLASH_PATH.findall(_without_addresses(p.text)):
        cleaned = path.rstrip(".,;:!?")
        if (
            cleaned
            and cleaned not in p.used
            and not re.search(r"\.\w{1,8}$", cleaned)
            and not is_zone_name(cleaned)
        ):
            return cleaned, "folder path in the request"
    return _decided(placed_words.folder_named(p.name, p.shape, p.text, p.used))


def _file_path(p: _Property) -> RoleVerdict:
    """A path or a file takes a file name the request states, else a path with a slash. The name
    may be written in camel case (oldPath, sourceFile) as well as snake case."""
    last = split_identifier(p.name)[-1:]
    if (
        p.key not in _PATH_NAMES
        and not p.key.endswith(("_path", "_file"))
        and last not in (["path"], ["file"])
    ):
        return None
    plain = _without_addresses(p.text)
    path = _not_in_used(_PATH.findall(plain), p.used)
    if path is not None:
        return path, "file name in the request"
    for path in _SLASH_PATH.findall(plain):
        cleaned = path.rstrip(".,;:!?")
        if cleaned and cleaned not in p.used and not is_zone_name(cleaned):
            return cleaned, "path in the request"
    return None


def _file_name(p: _Property) -> RoleVerdict:
    """A name the description says is a file's (filename) takes a file name."""
    if not p.key.endswith("name") or "file" not in p.description or "string" not in p.types:
        return None
    path = _not_in_used(_PATH.findall(_without_addresses(p.text)), p.used)
    return (path, "file name in the request") if path is not None else None


def _uri(p: _Property) -> RoleVerdict:
    """A property named for a URI (uri, url, source_uri) takes one."""
    if not (
        p.key == "uri" or p.key.endswith("_uri") or p.key == "url" or p.shape.get("format") in {"uri", "url"}
    ):
        return None
    uri = _not_in_used(_URI.findall(p.text), p.used)
    return (uri, "URI in the request") if uri is not None else None


def _number_after_its_name(p: _Property) -> RoleVerdict:
    """The number right after the property's name: "ticket 42", "limit 5"."""
    near = _number_near(p.name, p.text) or _number_near(p.name.removesuffix("_id"), p.text)
    return (near, f"number after '{p.name}'") if near is not None else None


def _said_by_its_noun(p: _Property) -> RoleVerdict:
    """A number matched to the property by the noun it counts or places, in digits or words
    (graph/planner/counted_words.py): a range's start or end ("lines ten through twenty"), an
    ordinal for a position ("the first table" is 0 for table_index), a most for a limit ("at
    most ten")."""
    if _is_identifier(p.name) or not p.numeric:
        return None
    return (
        counted_words.range_value(p.name, p.shape, p.text)
        or counted_words.position_value(p.name, p.shape, p.text, p.used)
        or counted_words.most_value(p.name, p.shape, p.text)
    )


def _count_stated(p: _Property) -> RoleVerdict:
    """A count (limit, max_results) takes "the first 5", "top 10"."""
    if p.key not in _COUNT_NAMES:
        return None
    count = _COUNT.search(p.text)
    return (count.group(1) or count.group(2), f"'{count.group(0).strip()}' in the request") if count else None


def _things_counted(p: _Property) -> RoleVerdict:
    """A number of the things the property counts ("3 lines" for a count of lines); a count
    the description places first or last is looked for by _count_placed."""
    if not p.numeric or re.search(r"\b(?:first|last)\s+n\b", p.description):
        return None
    return _counted_things(f"{p.description} {' '.join(split_identifier(p.name))}", p.text, p.name)


def _count_in_words(p: _Property) -> RoleVerdict:
    """ "zero lines of context", "limit five": a count written in words (never an id: "the one
    about billing" names no ticket 1)."""
    if _is_identifier(p.name) or not p.numeric:
        return None
    spelled = _in_digits(p.text)
    if spelled == p.text:
        return None
    near = _number_near(p.name, spelled)
    if near is not None:
        return near, f"number after '{p.name}'"
    counted = _counted_things(f"{p.description} {' '.join(split_identifier(p.name))}", spelled, p.name)
    return (counted[0], "a number written in words") if counted else None


def _count_placed(p: _Property) -> RoleVerdict:
    """A count the description places ("returns only the last N lines"): "the last 3 lines"."""
    for place in ("first", "last"):
        if compiled(rf"\b{place}\s+n\b").search(p.description):
            stated = compiled(rf"\b{place}\s+(\d+)\b", re.IGNORECASE).search(p.text)
            if stated:
                return stated.group(1), f"'{stated.group(0)}' in the request"
    return None


def _the_only_number(p: _Property) -> RoleVerdict:
    """An id takes the only number of the request that is no count ("the first 5 tickets") and
    no quantity ("21 degrees", "5 minutes")."""
    if not _is_identifier(p.name):
        return None
    plain = _QUANTITY.sub(" ", _COUNT.sub(" ", clock_words.without_times(p.text)))
    numbers = [n for n in _NUMBER.findall(plain) if n not in p.used]
    return (numbers[0], "the only number in the request") if len(numbers) == 1 else None


# For a number or an id, in order: the first rule that finds a value decides.
NUMBER_RULES: tuple[Callable[[_Property], RoleVerdict], ...] = (
    _number_after_its_name,
    _said_by_its_noun,
    _count_stated,
    _things_counted,
    _count_in_words,
    _count_placed,
    _the_only_number,
)


def _number_or_id(p: _Property) -> RoleVerdict:
    """A number or an id takes a number found by NUMBER_RULES, nothing else."""
    if not (p.numeric or _is_identifier(p.name)):
        return None
    return _decided(_first_verdict(NUMBER_RULES, p))


def _text_after_its_colon(p: _Property) -> RoleVerdict:
    """ "Add this insight to the memo: Madrid customers buy monitors": the text after a colon
    whose clause names the property (or, for content, quoted text after a colon)."""
    if not p.textual:
        return None
    after = _after_its_colon(p.name, p.key in _CONTENT_NAMES, p.text)
    return (
        (after, "text after the colon that follows its name")
        if after is not None and after not in p.used
        else None
    )


def _takes_content(name: str) -> bool:
    """A message's content (body, text), or a named thing's text (footnote_text, comment_text),
    not text a tool looks for or replaces (search_text, old_text, header_text)."""
    words = split_identifier(name)
    if name.lower() in _CONTENT_NAMES:
        return True
    qualifiers = set(words[:-1])
    return (
        len(words) > 1
        and words[-1] in _CONTENT_NAMES
        and not placed_words.takes_an_anchor(name)
        and not qualifiers & {"old", "new", "replace", "replacement", "header", "heading", "title", "alt"}
    )


def _content_said(p: _Property) -> RoleVerdict:
    """A message's content (body, text): what follows "saying", or a JSON literal written out;
    a named thing's text (line_text) is also the quotation right after its noun ("insert the
    line 'Apologies: none.'")."""
    if not _takes_content(p.name) or (p.key not in _CONTENT_NAMES and not p.textual):
        return None
    nouns = split_identifier(p.name)[:-1]
    quoted = placed_words.quote_after_noun(nouns[-1], p.text, p.used) if nouns else None
    if quoted is not None:
        return quoted
    match = _CONTENT_LEAD.search(p.text)
    if match:
        return _content(match.group(1)), "text after 'saying'"
    literal = _JSON_LITERAL.search(p.text)
    if literal and literal.group(1) not in p.used:
        return literal.group(1), "the JSON in the request"
    return None


def _subject(p: _Property) -> RoleVerdict:
    """A subject or a title: the text after "subject"."""
    if p.key not in _SUBJECT_NAMES:
        return None
    match = _SUBJECT.search(p.text)
    return (match.group(1).strip(), "text after 'subject'") if match else None


def _person(p: _Property) -> RoleVerdict:
    """A person (name, user, who): the capitalised name after "greet", "hello", "named", "to"."""
    if p.key not in _PERSON_NAMES:
        return None
    match = _PERSON.search(p.text)
    return (
        (match.group(1), "capitalised name in the request")
        if match and match.group(1) not in p.used
        else None
    )


def _query(p: _Property) -> RoleVerdict:
    """What to look for (query, q, search): the text after "for", "about" or "matching" ("for
    anything about billing" looks for billing; "Globex in memory" is the name, not where to
    look), else the one name the request says ("is Alice in the graph?")."""
    if p.key not in _QUERY_NAMES:
        return None
    match = re.search(r"\b(?:for|about|matching)\s+(.+?)[.?!]?$", p.text, re.IGNORECASE)
    if match:
        value = re.sub(
            r"^(?:any|some|every)(?:thing|one|body)\s+(?:about|on|regarding|mentioning|related\s+to)\s+",
            "",
            match.group(1).strip(),
            flags=re.IGNORECASE,
        )
        value = re.sub(r"^([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)\s+(?:in|from|within|on)\s+.*$", r"\1", value)
        return value, "text after 'for'"
    # Not a folder's name inside a path ("open Projects/Apollo.md"): the path is a value whole.
    unquoted = _SLASH_PATH.sub(lambda m: " " * len(m.group(0)), _QUOTED.sub(" ", p.text))
    names = [n for n in _PROPER_NAME.findall(unquoted) if n not in p.used]
    return (names[0], "the name the request looks for") if len(names) == 1 else None


def _name_before_its_label(p: _Property) -> RoleVerdict:
    """A capitalised name right before the property's name: "the Acme customer"."""
    if not p.textual or p.key in STOPWORDS or p.key in _PERSON_NAMES:
        return None
    label = "|".join(re.escape(v) for v in _name_variants(p.name))
    beside = compiled(rf"(?<=[\w,:;] )([A-Z][\w-]*)\s+(?i:{label})\b").search(p.text)
    return (
        (beside.group(1), f"the name before '{p.name}'") if beside and beside.group(1) not in p.used else None
    )


def _word_after_its_label(p: _Property) -> RoleVerdict:
    """Last resort, and only when the text puts the value right after the name: "priority
    urgent" (never for a name that is an English word of its own: "to", "from", "in")."""
    if not p.textual or p.key in STOPWORDS:
        return None
    label = "|".join(re.escape(v) for v in _name_variants(p.name))
    match = compiled(rf"\b(?:{label})\s+(?:is\s+|of\s+)?([\w][\w.@/-]*)", re.IGNORECASE).search(p.text)
    if match and match.group(1).lower() not in STOPWORDS | _PREPOSITIONS:
        return match.group(1).rstrip(".,;:!?"), f"word after '{p.name}'"
    return None


# The rules that find a property's value by the role its name and schema give it, in order:
# the first that speaks decides (a value, or NO_VALUE). Order is precedence: a list before
# anything else (an array takes no single value), plain words before shapes, what the schema
# declares (a URI, a date) and what the name says precisely (a pattern, a revision, a zone)
# before looser readings, numbers before text, and the word after the property's name last.
ROLE_RULES: tuple[Callable[[_Property], RoleVerdict], ...] = (
    _copies,
    _list_of_values,
    _in_plain_words,
    _sql_never_made_up,
    _anchor_quoted,
    _quantity_in_its_unit,
    _declared_uri,
    _pattern,
    _revision,
    _branch,
    _name_of_a_thing,
    _place,
    _reference,
    _topic,
    _time_zone,
    _end_of_a_period,
    _relative_date,
    _declared_date,
    _time_of_day_rule,
    _email_address,
    _folder_path,
    _file_path,
    _file_name,
    _folder_in_words,
    _uri,
    _number_or_id,
    _text_after_its_colon,
    _content_said,
    _subject,
    _person,
    _query,
    _name_before_its_label,
    _word_after_its_label,
)


def _first_verdict(rules: Sequence[Callable[[_Property], RoleVerdict]], p: _Property) -> Found | None:
    """The verdict of the first of ``rules`` that speaks: its value, or None (NO_VALUE, or
    none spoke)."""
    for rule in rules:
        verdict = rule(p)
        if isinstance(verdict, _NoValue):
            return None
        if verdict is not None:
            return verdict
    return None


def _role_value(name: str, shape: dict[str, Any], text: str, used: set[str]) -> tuple[Any, str] | None:
    """A value whose shape fits what the property is for, with the reason it was chosen: the
    verdict of the first of ROLE_RULES that speaks."""
    return _first_verdict(ROLE_RULES, _Property.of(name, shape, text, used))


def _replacement_values(
    input_schema: dict[str, Any], stated: list[replacements.Replacement]
) -> tuple[dict[str, tuple[Any, str, str]], set[str]]:
    """The value, the reason and the words for each property that takes the replacements the
    request states: a list of old and new text for an array of them (every replacement), or
    the old and the new text for two text properties (only when one replacement is stated:
    which of several a tool taking one means is asked, not guessed). With them, the names of
    every property that takes replaced text, filled or not."""
    if not stated:
        return {}, set()
    properties = input_schema.get("properties", {})
    words = "; ".join(r.words for r in stated)
    values: dict[str, tuple[Any, str, str]] = {}
    shapes = {name: property_shape(s) for name, s in properties.items() if isinstance(s, dict)}
    for name, shape in shapes.items():
        fields = (
            replacements.item_fields(referenced(shape.get("items"), input_schema), property_shape)
            if "array" in _types(shape)
            else None
        )
        if fields is not None:
            old, new = fields
            edits = [{old: r.old, new: r.new} for r in stated]
            values[name] = edits, f"the replacements in the request ({words})", words
    pair = replacements.pair_fields(shapes)
    if pair is None:
        return values, set(values)
    if len(stated) == 1:
        (replacement,) = stated
        values[pair[0]] = (
            replacement.old,
            f"the text replaced in the request ({replacement.words})",
            replacement.old,
        )
        values[pair[1]] = replacement.new, f"the text put in its place ({replacement.words})", replacement.new
    return values, set(values) | set(pair)


def takes_a_location(name: str, shape: dict[str, Any]) -> bool:
    """Whether a property takes a place: a path, a folder, an address or a URI."""
    key = name.lower()
    return (
        bool(
            {"path", "paths", "file", "files", "dir", "directory", "folder", "uri", "url"}
            & set(split_identifier(name))
        )
        or key in _PATH_NAMES
        or key in _EMAIL_NAMES
        or key.endswith(("_path", "_file", "_uri", "url"))
        or key in {"uri", "repo", "directory", "dir", "folder", "root"}
        or shape.get("format") in {"email", "uri", "date", "date-time"}
    )


# The reasons _role_value gives for values of a shape only some parameters take.
# (Not a place: "a flight to Paris" names a city, not a time zone.)
_DISTINCTIVE_REASONS = (
    "arithmetic in the request",
    "the unit converted",
    "e-mail address in the request",
    "URI in the request",
    "date in the request",
    "time of day in the request",
    # A store's key (session:alice) or key pattern (cache:*): a shape only a key property takes.
    *store_words.KEY_REASONS,
)


def _searched_first(item: tuple[str, Any]) -> bool:
    """What to look for is read before where to look ("a file called config.json under /srv"):
    the name is the pattern's, so the folder is left for the path."""
    name, schema = item
    description = str(property_shape(schema).get("description") or "") if isinstance(schema, dict) else ""
    return not (
        name.lower() == "pattern" or name.lower().endswith("_pattern") or "glob" in description.lower()
    )


def extract_arguments(
    input_schema: dict[str, Any],
    text: str,
    *,
    answer: str | None = None,
    asked: list[str] | None = None,
    server: str | None = None,
) -> Extraction:
    """Arguments for a capability from the request text.

    ``answer`` is an operator's reply to a clarification that asked for ``asked``: a bare
    reply ("Alice") fills the one argument asked for; a reply naming its argument
    ("priority high") is read like the request. ``server`` is the name of the capability's
    server: said in the request, it names the server ("Which Excel files do we have?"), and is
    no value for its tools.
    """
    properties = input_schema.get("properties", {})
    required = [str(name) for name in input_schema.get("required", [])]
    full_text = f"{text}\n{answer}" if answer else text
    pairs = _key_values(full_text)
    # Quotes inside a JSON literal are part of it, not quotations of their own.
    quoted = [
        next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(_JSON_LITERAL.sub(" ", text))
    ]
    result = Extraction()
    used: set[str] = set()

    server_name = " ".join(split_identifier(server)) if server else None

    def take(name: str, raw: Any, reason: str, schema: dict[str, Any], words: str | None = None) -> None:
        if server_name and isinstance(raw, str) and raw.strip().lower() == server_name:
            return
        try:
            result.arguments[name] = coerce(raw, schema)
        except _Coercion as exc:
            result.invalid[name] = str(exc)
            return
        result.sources[name] = reason
        if reason.startswith(_DISTINCTIVE_REASONS):
            result.distinctive.add(name)
        # The words the value was read from: the value itself, or what it was normalised from.
        result.evidence[name] = (
            words if words is not None else ", ".join(raw) if isinstance(raw, list) else str(raw)
        )
        for item in raw if isinstance(raw, list) else [raw]:
            # A replacement's old and new text are used as much as a plain value is.
            used.update(map(str, item.values()) if isinstance(item, dict) else [str(item)])
        if words is not None:
            used.add(words)

    replaced, replacing = _replacement_values(input_schema, replacements.replacements_in(full_text))
    assigned = _assigned(full_text)
    for name, schema in sorted(properties.items(), key=_searched_first):
        if isinstance(schema, dict):
            # "replace 'teh' with 'the'" quotes the old text after the word "replace": only a
            # ``replace=...`` written out overrides what the replacement states.
            labels = assigned if name in replacing else pairs
            _read_property(name, schema, full_text, labels, replaced, used, take)
    _take_renamed(full_text, properties, result, take)
    # A bare reply to a question about one argument is that argument's value.
    if answer and asked and len(asked) == 1 and asked[0] not in result.arguments and not _key_values(answer):
        schema = properties.get(asked[0], {})
        if isinstance(schema, dict):
            take(asked[0], answer.strip().rstrip("."), "the operator's answer", schema)
    _take_the_one_quote(required, properties, [q for q in quoted if q not in used], result, take)
    _take_numbers_in_order(required, properties, full_text, used, result, take)
    result.missing = [name for name in required if name not in result.arguments]
    return result


# How extract_arguments takes a value: (name, raw value, reason, schema, the words it was read from).
_Take = Callable[..., None]


def _read_property(
    name: str,
    schema: dict[str, Any],
    text: str,
    labels: dict[str, str],
    replaced: dict[str, tuple[Any, str, str]],
    used: set[str],
    take: _Take,
) -> None:
    """One property's value, in order of how explicit the text is: written out (``labels``:
    name=value), a replacement the request states, an option it names, then by its role."""
    shape = property_shape(schema)
    explicit = next((labels[v] for v in _name_variants(name) if v in labels), None)
    if explicit is not None:
        take(name, explicit, f"'{name}=' in the request", schema)
        return
    if name in replaced:
        value, reason, words = replaced[name]
        take(name, value, reason, schema, words)
        return
    enum = shape.get("enum") or _described_options(shape)
    if isinstance(enum, list) and enum:
        _take_option(name, schema, shape, enum, text, take)
        return
    if _leaves_out(name) and not _LEAVING_OUT.search(text):
        # What to leave out (excludePaths, ignore_patterns) is named only by saying so: the path
        # "open Projects/Apollo.md" states is what to read, never what to skip.
        return
    # A store's key is one token (session:alice), read before any rule could cut it at a colon.
    found = store_words.read(name, schema, shape, text, used) or _role_value(name, shape, text, used)
    if found is not None:
        cited = re.search(r"\(([^()]+)\)$", found[1])
        take(name, found[0], found[1], schema, cited.group(1) if cited else None)


_LEAVE_OUT_WORDS = frozenset(
    "exclude excluded excludes excluding exclusion exclusions ignore ignored ignores skip skipped omit "
    "omitted except without blacklist denylist".split()
)
_LEAVING_OUT = re.compile(
    r"\b(?:exclud\w*|except\w*|ignor\w*|skip\w*|omit\w*|without|leav(?:e|ing)\s+out|but\s+not|apart\s+from"
    r"|other\s+than)\b",
    re.IGNORECASE,
)


def _leaves_out(name: str) -> bool:
    """Whether a property names what to leave out (excludePaths, ignore_patterns, skip_dirs)."""
    return bool(set(split_identifier(name)) & _LEAVE_OUT_WORDS)


def _take_option(
    name: str, schema: dict[str, Any], shape: dict[str, Any], enum: list[Any], text: str, take: _Take
) -> None:
    """One of a property's options: a unit to convert from or to is placed by the conversion
    ("5 miles to km"), not by which option the request happens to name; else the option the
    request names, or the one its verb names."""
    converted = plain_words.conversion_unit(name, shape, text)
    option = converted[0] if converted else _enum_value(name, enum, text)
    if converted is not None:
        take(name, converted[0], converted[1], schema, converted[2])
    elif option is not None:
        take(name, option, f"'{option}' stated in the request", schema)
    elif (verbed := plain_words.option_of_the_verb(enum, text, name)) is not None:
        take(name, verbed[0], f"the option the request's verb names ({verbed[1]})", schema, verbed[1])


def _take_renamed(text: str, properties: dict[str, Any], result: Extraction, take: _Take) -> None:
    """ "Rename draft to final": the old and the new name, where the schema has places for both;
    else a new name the request ends on ("Rename the Q3 sheet in sales.xlsx to Q3-final",
    "Duplicate ... as Q3-backup")."""
    renamed = plain_words.rename(text)
    if renamed is None:
        _take_new_name_last(text, properties, result, take)
        return
    for name, schema in properties.items():
        role = plain_words.rename_role(name, properties) if isinstance(schema, dict) else None
        if role is not None and name not in result.arguments and name not in result.invalid:
            value = renamed[0] if role == "old" else renamed[1]
            take(name, value, f"the {role} name in 'rename ... to ...' ({value})", schema)


def _take_the_one_quote(
    required: list[str], properties: dict[str, Any], unused_quotes: list[str], result: Extraction, take: _Take
) -> None:
    """One quoted string left and one required text property unfilled: the quote is its value.
    A path, an address or a URI is never a quotation that does not look like one."""
    open_required = [
        n
        for n in required
        if n not in result.arguments
        and n in properties
        and "string" in _types(property_shape(properties[n]))
        and not takes_a_location(n, property_shape(properties[n]))
    ]
    if len(open_required) == 1 and len(unused_quotes) == 1:
        take(
            open_required[0], unused_quotes[0], "the quoted text in the request", properties[open_required[0]]
        )


def _take_numbers_in_order(
    required: list[str],
    properties: dict[str, Any],
    text: str,
    used: set[str],
    result: Extraction,
    take: _Take,
) -> None:
    """As many numbers stated as required numeric properties left open: they are those, in the
    order both are written ("the sum of 3 and 5" gives a=3, b=5)."""
    open_numbers = [
        n
        for n in required
        if n not in result.arguments
        and n in properties
        and _types(property_shape(properties[n])) & {"integer", "number"}
    ]
    if not open_numbers:
        return
    # Numbers inside a time, a date, a revision (HEAD~2) or a quotation are parts of those.
    plain = _QUOTED.sub(" ", _REVISION.sub(" ", clock_words.without_times(_DATE.sub(" ", text))))
    if any(_is_identifier(n) for n in open_numbers):
        plain = _QUANTITY.sub(" ", plain)  # "21 degrees" identifies nothing
    # "version 2", "room 101", "Windows 11": a number a noun or a name labels is that thing's,
    # unless an open property names the noun ("row 7" for at_row).
    # An identifier takes such a number ("ticket 42" for an id).
    named = [noun for n in open_numbers for noun in counted_words.nouns(n, property_shape(properties[n]))]
    stated = [
        m.group(1)
        for m in _NUMBER.finditer(plain)
        if m.group(1) not in used
        and (
            any(_is_identifier(n) for n in open_numbers)
            or (label := counted_words.label_of(plain, m.start())) is None
            or counted_words.names_noun(label, named)
        )
    ]
    if len(stated) == len(open_numbers):
        for name, number in zip(open_numbers, stated, strict=True):
            take(name, number, "number in the request", properties[name])


def _take_new_name_last(
    text: str, properties: dict[str, Any], result: Extraction, take: Callable[..., object]
) -> None:
    """A new name the request ends on, for the property that takes one, unless a value already
    read holds it (a file name: "save it as q3.csv" goes to a path)."""
    found = plain_words.new_name_last(text)
    if found is None:
        return
    value, reason = found
    taken = {str(v) for v in result.arguments.values()}
    for name, schema in properties.items():
        if not isinstance(schema, dict) or name in result.arguments or name in result.invalid:
            continue
        # Only a property that takes a name (new_name, new_title), not any "target" (a zone).
        says_name = {"name", "title", "label"} & set(split_identifier(name))
        if says_name and plain_words.rename_role(name, properties) == "new" and str(value) not in taken:
            take(name, value, reason, schema)
            return
