"""A server asking the person for input in the middle of a call (``elicitation/create``).

The host only carries the question: whoever holds the session pool decides who answers it
(the operator who asked, through the chat; a command on a terminal; a test). The pool hands
every request to one ``ElicitationHandler`` with the server's name, and declares the
elicitation capability to servers only when a handler is there: a host that cannot ask
anyone must not let servers believe it can.

Whose question it is: the caller names the request a call is made for (``on_behalf_of``, a
context variable set around the call on the caller's thread), and the pool hands that name
to the handler (``call_owner()`` inside the handler). The pool's calls run on its own event
loop, whose tasks do not inherit the caller's context, so the pool carries the name across
itself (mcp_host/sdk_client.py). A server's request for a model completion is told every call
it may have come from (``callers()``): whoever caused it may not decide it alone.

What a form may ask, per the protocol's restricted schema: a flat object of strings (with an
optional format), numbers, integers, booleans, single-choice enums and multi-choice lists
(``form_fields``); ``check_answer`` says what is wrong with an answer to one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from mcp.types import ElicitRequestParams, ElicitResult

from mcp_host.reported import InvalidValueError

# What an answer may hold, per the protocol: strings, numbers, booleans, lists of strings.
ElicitValue = str | int | float | bool | list[str] | None


class ElicitationHandler(Protocol):
    """Answers one server's question; raising refuses it (the server gets an error).
    ``call_owner()`` names the request the call was made for, when the pool knows it."""

    async def __call__(self, server: str, request: ElicitRequestParams) -> ElicitResult: ...


@dataclass(frozen=True)
class CallOwner:
    """The request a call is made for: its thread, and the person who asked (who answers).
    ``contributors`` shaped the request besides them (answered its questions, took it over);
    ``review_id`` is the review whose approval lets the call run, when one did."""

    thread_id: str
    requester: str
    contributors: tuple[str, ...] = ()
    review_id: str | None = None

    @property
    def people(self) -> tuple[str, ...]:
        """Everyone behind the call: the requester first, then the contributors."""
        return (self.requester, *(name for name in self.contributors if name != self.requester))


_owner: ContextVar[CallOwner | None] = ContextVar("gatehouse_call_owner", default=None)
# Inside a handler for a server's request: the owner of every call it may have come from
# (None for a call made for nobody named). Empty when it came outside any call.
_callers: ContextVar[tuple[CallOwner | None, ...]] = ContextVar("gatehouse_callers", default=())


@contextmanager
def on_behalf_of(owner: CallOwner | None) -> Iterator[None]:
    """Calls made inside this block are made for ``owner``: a question a server asks during
    one of them is theirs."""
    token = _owner.set(owner)
    try:
        yield
    finally:
        _owner.reset(token)


def call_owner() -> CallOwner | None:
    """Whose call this is (set by ``on_behalf_of``; inside a handler, set by the pool)."""
    return _owner.get()


@contextmanager
def from_calls(owners: tuple[CallOwner | None, ...]) -> Iterator[None]:
    """A server's request handled inside this block may have come from calls of these owners
    (the pool sets it: one call when the request names it, else every call in flight)."""
    token = _callers.set(owners)
    try:
        yield
    finally:
        _callers.reset(token)


def callers() -> tuple[CallOwner | None, ...]:
    """Inside a handler: the owners of the calls the server's request may have come from, None
    for a call made for nobody named (a reviewer's preview); empty outside any call. Unlike
    ``call_owner`` it is never narrowed to one: who must be kept from deciding a request is
    everyone who may have caused it."""
    return _callers.get()


def form_defaults(schema: Mapping[str, Any]) -> dict[str, ElicitValue]:
    """The values a form shows before the person types: each property's ``default`` when it
    has one of the property's own type (SEP-1034), nothing for the others. A default of the
    wrong type, or outside the property's enum, is the server's mistake and is left out
    rather than shown as if it were valid."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    values: dict[str, ElicitValue] = {}
    for name, spec in properties.items():
        if not isinstance(spec, Mapping) or "default" not in spec:
            continue
        default = spec["default"]
        if _fits(default, spec):
            values[str(name)] = default
    return values


def _fits(value: Any, spec: Mapping[str, Any]) -> bool:
    enum = spec.get("enum")
    if isinstance(enum, list) and value not in enum:
        return False
    kind = spec.get("type")
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    return False


# -- forms ------------------------------------------------------------------------------------

FieldKind = Literal["string", "number", "integer", "boolean", "choice", "choices"]
STRING_FORMATS = ("email", "uri", "date", "date-time")


class UnsupportedFormError(InvalidValueError, ValueError):
    """A requested schema outside the protocol's restricted form schema."""


@dataclass(frozen=True)
class FormField:
    """One property of a form, as a person fills it in."""

    name: str
    kind: FieldKind
    title: str | None = None
    description: str | None = None
    required: bool = False
    # The server's default of the field's own type (SEP-1034), else None.
    default: ElicitValue = None
    # For choice and choices: (value, label) pairs, in the server's order.
    options: tuple[tuple[str, str], ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    string_format: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    # The server itself marks the value as one to hide (``format: password`` or ``writeOnly``).
    masked: bool = False
    # Every piece of text the server wrote about this field (for the policy's checks).
    texts: tuple[str, ...] = field(default=(), repr=False)

    @property
    def label(self) -> str:
        return self.title or self.name


def form_fields(schema: Mapping[str, Any]) -> list[FormField]:
    """The fields of a requested schema, in the server's order; UnsupportedFormError names
    what is outside the restricted schema (nested objects, arrays of anything but choices,
    references, types it does not have)."""
    if schema.get("type", "object") != "object":
        raise UnsupportedFormError(f"the form is a {schema.get('type')!r}, not an object")
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise UnsupportedFormError("the form's properties are not an object")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        raise UnsupportedFormError("the form's required list is not a list of names")
    fields = [_field(str(name), spec, str(name) in required) for name, spec in properties.items()]
    unknown = sorted(set(required) - {f.name for f in fields})
    if unknown:
        raise UnsupportedFormError(f"the form requires {', '.join(unknown)}, which it does not ask for")
    return fields


def _text(spec: Mapping[str, Any], key: str) -> str | None:
    value = spec.get(key)
    return value if isinstance(value, str) else None


def _number(spec: Mapping[str, Any], key: str) -> float | None:
    value = spec.get(key)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _count(spec: Mapping[str, Any], key: str) -> int | None:
    value = spec.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _options(spec: Mapping[str, Any], name: str) -> tuple[tuple[str, str], ...] | None:
    """An enum's values and labels: ``enum`` (with the older ``enumNames``), or ``oneOf`` /
    ``anyOf`` of ``{"const", "title"}``; None when the property has neither."""
    enum = spec.get("enum")
    if isinstance(enum, list):
        if not all(isinstance(value, str) for value in enum):
            raise UnsupportedFormError(f"{name}: a choice of values that are not all strings")
        names = spec.get("enumNames")
        labels = names if isinstance(names, list) and len(names) == len(enum) else enum
        return tuple((value, str(label)) for value, label in zip(enum, labels, strict=True))
    for key in ("oneOf", "anyOf"):
        choices = spec.get(key)
        if isinstance(choices, list):
            options: list[tuple[str, str]] = []
            for choice in choices:
                if not isinstance(choice, Mapping) or not isinstance(choice.get("const"), str):
                    raise UnsupportedFormError(f"{name}: a choice that is not a string constant")
                options.append((choice["const"], _text(choice, "title") or choice["const"]))
            return tuple(options)
    return None


def _field(name: str, spec: Any, required: bool) -> FormField:
    if not isinstance(spec, Mapping):
        raise UnsupportedFormError(f"{name}: not a property definition")
    kind = spec.get("type")
    texts = tuple(t for t in (name, _text(spec, "title"), _text(spec, "description")) if t)
    common: dict[str, Any] = {
        "name": name,
        "title": _text(spec, "title"),
        "description": _text(spec, "description"),
        "required": required,
        "default": form_defaults({"properties": {name: spec}}).get(name),
        "masked": spec.get("writeOnly") is True or spec.get("format") == "password",
    }
    if kind == "string":
        options = _options(spec, name)
        if options is not None:
            return FormField(
                kind="choice", options=options, texts=texts + tuple(label for _, label in options), **common
            )
        string_format = _text(spec, "format")
        if string_format is not None and string_format not in STRING_FORMATS:
            string_format = None  # an unknown format is only a hint; the text is taken as typed
        return FormField(
            kind="string",
            min_length=_count(spec, "minLength"),
            max_length=_count(spec, "maxLength"),
            string_format=string_format,
            texts=texts,
            **common,
        )
    if kind in ("number", "integer"):
        return FormField(
            kind=kind,
            minimum=_number(spec, "minimum"),
            maximum=_number(spec, "maximum"),
            texts=texts,
            **common,
        )
    if kind == "boolean":
        return FormField(kind="boolean", texts=texts, **common)
    if kind == "array":
        items = spec.get("items")
        options = _options(items, name) if isinstance(items, Mapping) else None
        if options is None:
            raise UnsupportedFormError(f"{name}: a list of anything but choices")
        return FormField(
            kind="choices",
            options=options,
            min_items=_count(spec, "minItems"),
            max_items=_count(spec, "maxItems"),
            texts=texts + tuple(label for _, label in options),
            **common,
        )
    raise UnsupportedFormError(f"{name}: a property of type {kind!r}, which a form cannot ask")


_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def check_answer(fields: list[FormField], content: Mapping[str, Any]) -> list[str]:
    """What is wrong with ``content`` as the answer to a form of ``fields`` (empty: nothing).
    A value left out is fine unless its field is required."""
    by_name = {f.name: f for f in fields}
    problems = [f"{name}: the form does not ask for it" for name in content if name not in by_name]
    for f in fields:
        if f.name not in content or content[f.name] is None:
            if f.required:
                problems.append(f"{f.label}: required")
            continue
        problem = _value_problem(f, content[f.name])
        if problem is not None:
            problems.append(f"{f.label}: {problem}")
    return problems


def _value_problem(f: FormField, value: Any) -> str | None:
    if f.kind == "boolean":
        return None if isinstance(value, bool) else "must be yes or no"
    if f.kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "must be a number"
        if f.kind == "integer" and not isinstance(value, int):
            return "must be a whole number"
        if f.minimum is not None and value < f.minimum:
            return f"must be at least {f.minimum:g}"
        if f.maximum is not None and value > f.maximum:
            return f"must be at most {f.maximum:g}"
        return None
    allowed = {option for option, _ in f.options}
    if f.kind == "choice":
        return None if isinstance(value, str) and value in allowed else "must be one of the choices"
    if f.kind == "choices":
        if not isinstance(value, list) or not all(isinstance(v, str) and v in allowed for v in value):
            return "must be some of the choices"
        if f.min_items is not None and len(value) < f.min_items:
            return f"choose at least {f.min_items}"
        if f.max_items is not None and len(value) > f.max_items:
            return f"choose at most {f.max_items}"
        return None
    if not isinstance(value, str):
        return "must be text"
    if f.min_length is not None and len(value) < f.min_length:
        return f"must be at least {f.min_length} characters"
    if f.max_length is not None and len(value) > f.max_length:
        return f"must be at most {f.max_length} characters"
    return _format_problem(f.string_format, value)


def _format_problem(string_format: str | None, value: str) -> str | None:
    if string_format == "email" and not _EMAIL.fullmatch(value):
        return "must be an e-mail address"
    if string_format == "uri":
        try:
            parts = urlsplit(value)
        except ValueError:
            return "must be an address (URI)"
        return None if parts.scheme and (parts.netloc or parts.path) else "must be an address (URI)"
    try:
        if string_format == "date":
            date.fromisoformat(value)
        elif string_format == "date-time":
            datetime.fromisoformat(value)
    except ValueError:
        return f"must be a {string_format} (ISO 8601)"
    return None


# -- typed answers ------------------------------------------------------------------------------

_YES = frozenset({"y", "yes", "true", "1", "on"})
_NO = frozenset({"n", "no", "false", "0", "off"})


def typed_value(field: FormField, text: str) -> Any:
    """What a line typed for ``field`` means (a number, yes or no, a choice by number, value or
    label); None when it means nothing. ``check_answer`` then says whether it fits."""
    if field.kind == "boolean":
        word = text.lower()
        return True if word in _YES else False if word in _NO else None
    if field.kind == "integer":
        try:
            return int(text)
        except ValueError:
            return None
    if field.kind == "number":
        try:
            number = float(text)
        except ValueError:
            return None
        return int(number) if number.is_integer() and "." not in text else number
    if field.kind == "choice":
        return _option(field, text)
    if field.kind == "choices":
        picked = [_option(field, part.strip()) for part in text.split(",") if part.strip()]
        return picked if all(p is not None for p in picked) else None
    return text


def _option(field: FormField, text: str) -> str | None:
    if text.isdigit() and 1 <= int(text) <= len(field.options):
        return field.options[int(text) - 1][0]
    for value, label in field.options:
        if text in (value, label) or text.lower() in (value.lower(), label.lower()):
            return value
    return None
