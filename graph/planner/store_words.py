"""Values in a key-value store's words: keys written as ``session:alice`` or ``cache:*``, the value
set on one, and several keys listed for a property that takes a list.

A store's key is one token with colons between its parts; it is never cut at a colon into a
name and a value (``session:alice`` is no ``session=alice``), nor at its last word. Which
properties take a key is read off the schema (a property named ``key`` or ``keys``, or
described as a key; a pattern to match keys), never off a server's name.
"""

from __future__ import annotations

import re
from typing import Any

from graph.planner.text import compiled, split_identifier

Reading = tuple[Any, str]

# The reasons given for a key or a key pattern: values of a shape only such a property takes,
# so they point at the capability as an e-mail address points at a mail tool.
KEY_REASONS = ("the key in the request", "the keys in the request", "the key pattern in the request")

# One token with one or more colons between word parts, the parts possibly a glob ("cache:*"):
# "session:alice", "config:feature_flags", "otp:4471". Not a time (12:30: it opens with a
# letter), a URI ("memo://x": slashes follow) or a label and its text ("Note: ...": a space follows).
KEY_PATTERN = r"(?<![\w:/*?.@-])([A-Za-z_][\w.-]*(?::[\w.*?-]*[\w*?])+)(?![\w:/*?])"
_KEY = re.compile(KEY_PATTERN)
# "keys that start with session:", "beginning with cache:": a prefix, every key under it.
_PREFIX = re.compile(
    r"\b(?:start|starts|starting|begin|begins|beginning|prefixed)\s+(?:with|by)\s+['\"“]?([A-Za-z_][\w.:-]*)",
    re.IGNORECASE,
)
# "the text 'hello world'", "the value 'pong'": a quotation the request labels as what to store.
_LABELLED_QUOTE = re.compile(r"\b(?:text|value|string)\s+(?:\"([^\"]+)\"|'([^']+)'|“([^”]+)”)", re.IGNORECASE)
_JSON_LITERAL = re.compile(r"(?<![\w])(\{.*\}|\[.*\])(?![\w])", re.DOTALL)
# Words that make "... key" a secret or a credential, not a store's key.
_NOT_A_STORE_KEY = frozenset({"api", "secret", "access", "private", "public", "license", "encryption", "ssh"})


def keys_in(text: str) -> list[str]:
    """The key-shaped tokens of ``text`` in order, each once (a glob among them)."""
    found: list[str] = []
    for match in _KEY.finditer(text):
        # A question mark that ends the sentence is no glob ("Is there a key called prefs:alice?").
        key = match.group(1).rstrip(".").removesuffix("?")
        if key not in found:
            found.append(key)
    return found


# A question whose whole object is a key written out: what it holds. "What's counter:visits at
# right now?", "What's stored under session:alice?", "what does config:flags hold?", "the value
# of session:bob", "show me prefs:alice". Asked so, the key's parts ("counter", "visits") are
# the name of what is asked for, not a topic the servers must know; asked anything else about
# a key ("How long until session:alice expires?") they still are.
_KEY_ALONE = r"(?:the\s+key\s+)?['\"“]?" + KEY_PATTERN.replace("([", "(?:[", 1) + r"['\"”]?"
_ASKS_WHAT_A_KEY_HOLDS = re.compile(
    rf"^\W*what(?:'s|\s+is)\s+(?:(?:stored|kept|saved|set|written)\s+)?(?:(?:under|in|at|for)\s+)?{_KEY_ALONE}"
    rf"(?:\s+(?:at|set\s+to|right\s+now|now|currently|at\s+the\s+moment|these\s+days))*\s*[?.!]*\s*$"
    rf"|^\W*what\s+(?:does|do)\s+{_KEY_ALONE}\s+(?:hold|say|contain|store|have)\b"
    rf"|^\W*how\s+many\s+\w+\s+(?:does|do)\s+{_KEY_ALONE}\s+(?:hold|say|contain|store|have)\b"
    rf"|\b(?:value|contents?)\s+(?:of|at|under|in|for)\s+{_KEY_ALONE}",
    re.IGNORECASE,
)


def without_the_question_of_what_a_key_holds(text: str) -> str | None:
    """``text`` less its question of what a key holds (above), or None when it asks none: the
    question's own words ("what does ... hold") and the key are then no topic of the request."""
    found = _ASKS_WHAT_A_KEY_HOLDS.search(text.strip())
    if found is None:
        return None
    stripped = text.strip()
    return stripped[: found.start()] + " " + stripped[found.end() :]


def _is_glob(key: str) -> bool:
    return "*" in key or "?" in key


def takes_a_key(name: str, shape: dict[str, Any]) -> bool:
    """A property whose value is a store's key: named key or keys (cache_key, keyName), or
    described as one ("Redis key to retrieve"); never an API key or other secret."""
    parts = split_identifier(name)
    if set(parts) & _NOT_A_STORE_KEY:
        return False
    description = str(shape.get("description") or "").lower()
    if set(parts) & {"key", "keys"}:
        return True
    return name.lower() in {"name", "id"} and bool(re.search(r"\bkeys?\b", description))


def takes_a_key_pattern(name: str, shape: dict[str, Any]) -> bool:
    """A pattern property that matches keys: named pattern (or *_pattern), described as
    matching keys or as a glob."""
    key = name.lower()
    # (Only a key-shaped glob or a prefix ending in a colon is taken for it: cache:*, session:.)
    return key in {"pattern", "match", "glob"} or key.endswith("_pattern")


def _accepts_a_list(schema: dict[str, Any]) -> bool:
    """Whether the schema (before its Optional or oneOf branches are merged) allows an array."""
    if schema.get("type") == "array" or (isinstance(schema.get("type"), list) and "array" in schema["type"]):
        return True
    options = schema.get("anyOf") or schema.get("oneOf")
    return isinstance(options, list) and any(
        isinstance(option, dict) and option.get("type") == "array" for option in options
    )


def _value_after_key(key: str, text: str) -> str | None:
    """The value a request sets a key to: "Set otp:4471 to 839201", "Change session:bob to
    logged-in" (a quotation or one token after "to")."""
    found = compiled(
        rf"{re.escape(key)}\s+(?:to|=)\s+(?:\"([^\"]+)\"|'([^']+)'|“([^”]+)”|([^\s,;]+))", re.IGNORECASE
    ).search(text)
    if not found:
        return None
    value = next(g for g in found.groups() if g is not None)
    return value.rstrip(".,;!?") if found.group(4) is not None else value


def read(
    name: str, schema: dict[str, Any], shape: dict[str, Any], text: str, used: set[str]
) -> Reading | None:
    """The value ``text`` states for a key-value store's property, with the reason; None when
    the property is no key, pattern or stored value, or the request states none."""
    keys = [key for key in keys_in(text) if key not in used]
    if takes_a_key_pattern(name, shape):
        globbed = [key for key in keys if _is_glob(key)]
        if globbed:
            return globbed[0], f"the key pattern in the request ({globbed[0]})"
        prefix = _PREFIX.search(text)
        if prefix and prefix.group(1).endswith(":"):
            return f"{prefix.group(1)}*", f"every key under '{prefix.group(1)}' ({prefix.group(0)})"
        return None
    if takes_a_key(name, shape):
        plain = [key for key in keys if not _is_glob(key)]
        if len(plain) > 1 and _accepts_a_list(schema):
            return plain, "the keys in the request"
        if plain:
            return plain[0], "the key in the request"
        return None
    if name.lower() == "value":
        labelled = _LABELLED_QUOTE.search(text)
        if labelled:
            value = next(g for g in labelled.groups() if g is not None)
            if value not in used:
                return value, "the quoted text labelled as the value"
    if name.lower() == "value" and any(key in used for key in keys_in(text)):
        # The value stored under the key taken: JSON written out, or what the key is set "to".
        literal = _JSON_LITERAL.search(text)
        if literal and literal.group(1) not in used:
            return literal.group(1), "the JSON in the request"
        for key in keys_in(text):
            value = _value_after_key(key, text)
            if value is not None and value not in used:
                return value, f"the value after '{key} to'"
    return None
