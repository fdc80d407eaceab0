"""The validation library's errors about a policy file, in the file's own words: each names the
key as a person finds it in the TOML (``rules[8] (shop reads).acepts``), says what belongs
there and what was given ("must be true or false, not the string \\"0\\""), and names the key
or value meant when one is misspelt ("unknown key 'acepts' (did you mean 'accepts'?)").

The one place pydantic's wording is turned into a PolicyError's (policies/loader.py); the
model (policies/model.py) is strict, so a value of the wrong TOML type is always refused here,
never read as another ("no" is not false)."""

from __future__ import annotations

import json
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from mcp_host.known_keys import closest_key, did_you_mean, written_as

# What a list field's items are, by the field's name, for the example an error shows.
_ITEMS_BY_FIELD = {
    "match": ("globs", "files__*"),
    "exclude": ("globs", "files__*"),
    "ungrantable": ("globs", "files__*"),
    "refuse_servers": ("globs", "files"),
    "redact_arguments": ("globs", "*_pin"),
    "reviewer_roles": ("role names", "reviewer"),
    "trusted": ("server names", "filesystem"),
    "recipient_domains": ("domains", "example.com"),
    "roots": ("folders", "/srv/share"),
    "readable_mime_types": ("MIME types", "text/*"),
    "read": ("tool names or URI templates", "read_file"),
    "review": ("categories", "writes files"),
}
# Pydantic's words for a value out of range, after "Input should be ".
_SHOULD_BE = "input should be "


def key_path(location: tuple[int | str, ...], data: Any) -> str:
    """An error's location as the TOML key a person would look for (rules[2] (name).match)."""
    parts: list[str] = []
    for part in location:
        if isinstance(part, int):
            rule_name = ""
            if parts == ["rules"] and isinstance(data.get("rules"), list) and part < len(data["rules"]):
                name = data["rules"][part].get("name") if isinstance(data["rules"][part], dict) else None
                rule_name = f" ({name})" if name else ""
            parts[-1] = f"{parts[-1]}[{part}]{rule_name}"
        else:
            parts.append(str(part))
    return ".".join(parts)


def in_the_data(location: tuple[int | str, ...], data: Any) -> tuple[int | str, ...]:
    """The part of an error's location that addresses the file's data: pydantic adds the name
    of a union's member it tried (``equals.a.dict.b``), which no key of the file is."""
    kept: list[int | str] = []
    here = data
    for index, part in enumerate(location):
        in_table = isinstance(here, dict) and isinstance(part, str) and part in here
        in_list = isinstance(here, list) and isinstance(part, int) and 0 <= part < len(here)
        if in_table or in_list:
            here = here[part]
        elif not (isinstance(here, dict) and index == len(location) - 1):
            continue  # not the file's: a union member's name
        # else: a key the file leaves out (a field required)
        kept.append(part)
    return tuple(kept)


def _plain(annotation: Any) -> Any:
    """The type under Annotated[...] and X | None."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            members = [arg for arg in get_args(annotation) if arg is not type(None)]
            if len(members) != 1:
                return annotation
            annotation = members[0]
        else:
            return annotation


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def type_at(model: type[BaseModel], location: tuple[int | str, ...]) -> Any:
    """The type the model gives the value at ``location`` (None where it gives none)."""
    here: Any = model
    for part in location:
        here = _plain(here)
        origin = get_origin(here)
        if _is_model(here) and isinstance(part, str) and part in here.model_fields:
            here = here.model_fields[part].annotation
        elif origin is list and isinstance(part, int):
            here = get_args(here)[0]
        elif origin is dict and isinstance(part, str):
            here = get_args(here)[1]
        else:
            return None
    return _plain(here)


def _given(value: Any) -> str:
    return written_as(value, "a table")


def _unquoted(key: str, expected: type, value: Any) -> str:
    """How to write a quoted value that would be right without its quotes."""
    if not isinstance(value, str):
        return ""
    text = value.strip()
    fits = (
        text in ("true", "false")
        if expected is bool
        else text.lstrip("+-").isdigit()
        if expected is int
        else _is_number(text)
    )
    return f" (write {key} = {text}, without quotes)" if fits else ""


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.lower().lstrip("+-") not in ("nan", "inf", "infinity")


_SCALAR_WORDS = {bool: "must be true or false", int: "must be a whole number", float: "must be a number"}


def _list_words(key: str, item: Any, value: Any) -> str:
    if get_origin(item) is Literal:  # the policy's only lists of fixed words are of categories
        noun, example = "categories", str(get_args(item)[0])
    else:
        noun, example = _ITEMS_BY_FIELD.get(key, ("strings", "..."))
    if isinstance(value, str) and value.strip():
        example = value
    return f"must be a list of {noun}, e.g. {key} = {json.dumps([example], ensure_ascii=False)}"


def _wrong_value(error: ErrorDetails, expected: Any, key: str) -> str | None:
    """What a value of the wrong type should have been; None for an error of another kind."""
    kind, value = error["type"], error.get("input")
    if kind in ("bool_type", "int_type", "float_type", "bool_parsing", "int_parsing", "float_parsing"):
        scalar = {"bool": bool, "int": int, "float": float}[kind.split("_")[0]]
        return f"{_SCALAR_WORDS[scalar]}, not {_given(value)}{_unquoted(key, scalar, value)}"
    if kind == "string_type":
        return f"must be a string (in quotes), not {_given(value)}"
    if kind == "list_type":
        item = get_args(expected)[0] if get_origin(expected) is list else str
        return f"{_list_words(key, _plain(item), value)}, not {_given(value)}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"must be a table ([{key}] or {key} = {{ ... }}), not {_given(value)}"
    if kind == "invalid-json-value":
        return f"must be a string, number, true or false, list or table (a JSON value), not {_given(value)}"
    if kind == "literal_error":
        allowed = [str(option) for option in get_args(expected)] if get_origin(expected) is Literal else []
        meant = closest_key(value, allowed) if isinstance(value, str) else None
        hint = f" (did you mean {meant!r}?)" if meant else ""
        shown = json.dumps(value, ensure_ascii=False) if isinstance(value, str) else _given(value)
        return (
            f"must be {error.get('ctx', {}).get('expected', 'one of the allowed values')}, not {shown}{hint}"
        )
    return None


def reason(error: ErrorDetails, model: type[BaseModel], location: tuple[int | str, ...]) -> str:
    """One pydantic error about the value at ``location`` in plain words."""
    kind = error["type"]
    key = next((str(part) for part in reversed(location) if isinstance(part, str)), "")
    if kind == "extra_forbidden":
        table = type_at(model, location[:-1])
        known = list(table.model_fields) if _is_model(table) else []
        hint = did_you_mean(key, known)
        return (
            f"unknown key {key!r}{hint}" if hint else f"unknown key {key!r}; known keys: {', '.join(known)}"
        )
    if kind == "missing":
        return "is required: add it"
    if kind in ("too_short", "string_too_short"):
        return "must not be empty"
    if kind == "value_error":
        # A validator of the model's own: its words already say what is wrong.
        return str(error.get("ctx", {}).get("error", error["msg"]))
    worded = _wrong_value(error, type_at(model, location), key)
    if worded is not None:
        return worded
    words = error["msg"][0].lower() + error["msg"][1:]
    if words.startswith(_SHOULD_BE):
        words = f"must be {words.removeprefix(_SHOULD_BE)}"
        if "input" in error and not isinstance(error["input"], list | dict):
            words += f", not {_given(error['input'])}"
    return words
