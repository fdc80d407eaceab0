"""A form for a capability's arguments, built from its input schema.

The reviews page edits proposed arguments with it; what the schema cannot express as a simple
field (nested objects, arrays of objects, unions) falls back to JSON for that one field, so no
argument is ever out of reach. Reading a form back never guesses: a value that does not parse
is an error naming the field, and the arguments are validated against the schema as a whole.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from graph.planner.arguments import property_shape
from mcp_host.reported import InvalidValueError

FieldKind = Literal["text", "long_text", "integer", "number", "boolean", "choice", "lines", "json"]

# What makes a string field long text (a text area, where a line break is typed and kept,
# rather than a one-line box, which drops it): a name that says it holds prose or a file's
# text (``content``, ``file_content``, ``body_text``), a format or description saying several
# lines, room for more than a line (maxLength above LONG_MAX_LENGTH), a default or current
# value with a line break or longer than a line. One rule for every form built from a schema:
# the reviews page's argument editor and the chat's clarification form.
LONG_TEXT_CHARS = 80
# A limit above a database's usual one-line column (VARCHAR(255): a title, a subject).
LONG_MAX_LENGTH = 255
PROSE_NAMES = frozenset({"body", "content", "text", "message", "description", "comment", "notes", "contents"})
LONG_FORMATS = frozenset({"textarea", "multiline", "multi-line"})
_MULTI_LINE_WORDS = re.compile(r"multi-?line|several lines|line breaks", re.IGNORECASE)

_WHOLE_NUMBER = re.compile(r"-?[0-9]+")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (JSON has no NaN or Infinity)")


def _strict_json(text: str) -> Any:
    """json.loads without Python's NaN/Infinity extension, which no server's schema expects."""
    return json.loads(text, parse_constant=_no_constant)


@dataclass(frozen=True)
class FormField:
    name: str
    kind: FieldKind
    required: bool
    description: str
    options: tuple[Any, ...] = ()


class ArgumentError(InvalidValueError, ValueError):
    """An argument the reviewer typed does not fit the input schema; names the field."""


def _long(value: Any) -> bool:
    return isinstance(value, str) and ("\n" in value or len(value) > LONG_TEXT_CHARS)


def is_long_text(name: str, shape: dict[str, Any], current: Any = None) -> bool:
    """Whether a string property holds text of several lines (see LONG_TEXT_CHARS above)."""
    # file_content, fileContent, body-text: each word of the name.
    words = {word.lower() for word in re.findall(r"[A-Z]?[a-z]+", name)}
    max_length = shape.get("maxLength")
    return bool(
        words & PROSE_NAMES
        or str(shape.get("format") or "").lower() in LONG_FORMATS
        or _MULTI_LINE_WORDS.search(str(shape.get("description") or ""))
        or (isinstance(max_length, int) and max_length > LONG_MAX_LENGTH)
        or _long(shape.get("default"))
        or _long(current)
    )


def _kind(name: str, shape: dict[str, Any], current: Any) -> FieldKind:
    if isinstance(shape.get("enum"), list) and shape["enum"]:
        return "choice"
    declared = shape.get("type")
    if declared == "boolean":
        return "boolean"
    if declared == "integer":
        return "integer"
    if declared == "number":
        return "number"
    if declared == "string":
        return "long_text" if is_long_text(name, shape, current) else "text"
    if declared == "array":
        items = shape.get("items")
        if isinstance(items, dict) and property_shape(items).get("type") == "string":
            return "lines"
    return "json"


def form_fields(schema: dict[str, Any], arguments: dict[str, Any]) -> list[FormField]:
    """One field per declared property (in the schema's order), then any argument the schema
    does not declare (as JSON), so the form shows everything that would be sent."""
    declared = schema.get("properties")
    properties: dict[str, Any] = declared if isinstance(declared, dict) else {}
    required = set(schema.get("required") or [])
    fields = []
    for name, raw in properties.items():
        shape = property_shape(raw) if isinstance(raw, dict) else {}
        kind = _kind(name, shape, arguments.get(name))
        options = tuple(shape["enum"]) if kind == "choice" else ()
        fields.append(FormField(name, kind, name in required, str(shape.get("description") or ""), options))
    for name in arguments:
        if name not in properties:
            fields.append(FormField(name, "json", False, "not declared by the input schema"))
    return fields


def initial_text(field: FormField, value: Any) -> str:
    """The text a text-like widget starts with for this field's current value."""
    if value is None:
        return ""
    if field.kind == "lines":
        return "\n".join(str(item) for item in value) if isinstance(value, list) else json.dumps(value)
    if field.kind == "json":
        return json.dumps(value, indent=2, ensure_ascii=False)
    return str(value)


def read_field(field: FormField, raw: Any) -> tuple[bool, Any]:
    """The argument value a widget's content stands for: (present, value).

    Empty optional fields are left out rather than sent as empty strings. An empty required
    number, list or JSON field is an error; an empty required text is sent as "" (an empty
    file's content is a real value)."""
    if field.kind == "boolean":
        return True, bool(raw)
    if field.kind == "choice":
        if raw is None and field.required:
            raise ArgumentError(f"{field.name}: required, but nothing is chosen")
        return (raw is not None), raw
    text = "" if raw is None else str(raw)
    if not text.strip() and field.kind not in {"text", "long_text"}:
        if field.required:
            raise ArgumentError(f"{field.name}: required, but empty")
        return False, None
    if field.kind in {"text", "long_text"}:
        if not text and not field.required:
            return False, None
        return True, text
    return True, _typed_value(field, text)


def read_fields(fields: Iterable[FormField], raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Each field's value from what its widget holds (``raw``, by field name), as read_field
    reads it: (the values present, by name in the fields' order; what is wrong, each naming its
    field). Every field is read, so one wrong field does not hide another's error."""
    values: dict[str, Any] = {}
    problems: list[str] = []
    for field in fields:
        try:
            present, value = read_field(field, raw.get(field.name))
        except ArgumentError as exc:
            problems.append(str(exc))
            continue
        if present:
            values[field.name] = value
    return values, problems


def _typed_value(field: FormField, text: str) -> Any:
    """A non-empty number, list or JSON field's text as the value it types."""
    if field.kind == "integer":
        # Plain ASCII digits only: int() would also take "1_000", "+3" and other scripts' digits.
        if not _WHOLE_NUMBER.fullmatch(text.strip()):
            raise ArgumentError(f"{field.name}: {text.strip()!r} is not a whole number")
        return int(text.strip())
    if field.kind == "number":
        try:
            number = float(text.strip())
        except ValueError:
            raise ArgumentError(f"{field.name}: {text.strip()!r} is not a number") from None
        if not math.isfinite(number):
            raise ArgumentError(f"{field.name}: {text.strip()!r} is not a finite number")
        return int(number) if number.is_integer() and "." not in text else number
    if field.kind == "lines":
        return [line.strip() for line in text.splitlines() if line.strip()]
    try:
        return _strict_json(text)
    except json.JSONDecodeError as exc:
        raise ArgumentError(f"{field.name}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except ValueError as exc:
        raise ArgumentError(f"{field.name}: {exc}") from None


def parse_json_arguments(text: str) -> dict[str, Any]:
    """Arguments typed as one JSON object (the page's JSON mode)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ArgumentError(
            f"arguments: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from None
    if not isinstance(value, dict):
        raise ArgumentError(f"arguments: expected a JSON object, got {type(value).__name__}")
    return value


def schema_problems(schema: dict[str, Any], arguments: dict[str, Any]) -> list[str]:
    """What is wrong with these arguments under the input schema, each naming where."""
    try:
        Draft202012Validator.check_schema(schema)
        validator = Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
    except SchemaError as exc:
        return [f"the input schema itself is broken: {exc.message}"]
    except Exception as exc:  # noqa: BLE001 - a broken schema (bad $ref) is the server's fault, not the reviewer's
        return [f"the input schema itself is broken: {exc}"]
    return [f"{'.'.join(str(p) for p in e.absolute_path) or 'arguments'}: {e.message}" for e in errors]
