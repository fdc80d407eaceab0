"""What the command line takes from a person, checked before anything is opened or run.

Each check names the argument and says what is wrong, in one line (exit 2), instead of the
traceback the same input causes deeper down: bytes from a non-UTF-8 locale fail when they are
written to the database, NUL characters fail path checks and checkpoints, deep JSON exhausts
Python's recursion limit.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from gatehouse.errors import ConfigurationError
from mcp_host.bounded_json import BoundedJsonError, loads_bounded
from reviews.edited_arguments import MAX_DEPTH

# Edited or explained arguments are a tool call's arguments: a few levels deep in practice.
# The same bound the review service puts on a reviewer's edited arguments, so what the command
# line accepts the service accepts too.
MAX_ARGUMENT_DEPTH = MAX_DEPTH
# Arguments that name files (--anchor takes a file or one anchor's JSON, which is ASCII).
_PATH_ARGUMENTS = frozenset({"db", "servers", "policy", "path", "append", "anchor", "file"})
# Positional arguments by their metavar, as `--help` shows them; options by their flag.
_POSITIONAL_NAMES = {
    "text": "TEXT",
    "key": "SERVER__CAPABILITY",
    "review_id": "ID",
    "thread_id": "THREAD",
    "path": "PATH",
    "selector": "-k",
}


def _not_unicode(text: str) -> bool:
    """True for text holding surrogates: bytes that were not UTF-8, kept by Python as
    surrogate escapes (or a lone surrogate written as a JSON escape)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _shown(text: str) -> str:
    """The argument as the bytes it was (b'caf\\xe9'), shortened."""
    try:
        shown = repr(text.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:
        shown = ascii(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def check_text_arguments(args: argparse.Namespace) -> None:
    """Every argument that is text (a request, a name, a reason, JSON) must be UTF-8: a byte
    that is not is refused, naming the argument. File names are bytes on Linux and are left
    as they are."""
    for dest, value in vars(args).items():
        if dest in _PATH_ARGUMENTS:
            continue
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, str) and _not_unicode(item):
                name = _POSITIONAL_NAMES.get(dest, "--" + dest.replace("_", "-"))
                raise ConfigurationError(
                    f"{name}: not valid UTF-8 ({_shown(item)}); pass text in UTF-8 (a UTF-8 locale)"
                )


def _unusable(value: Any) -> str | None:
    """Where a NUL character or a lone surrogate hides in parsed JSON (keys and strings), or a
    number that is not finite (Python's parser takes NaN and Infinity; JSON has neither)."""
    pending: list[tuple[str, Any]] = [("", value)]
    while pending:
        where, item = pending.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                path = f"{where}.{key}" if where else str(key)
                if "\x00" in key or _not_unicode(key):
                    return f"argument name {key!a} holds a NUL character or is not valid Unicode"
                pending.append((path, child))
        elif isinstance(item, list):
            pending.extend((f"{where}[{index}]", child) for index, child in enumerate(item))
        elif isinstance(item, float) and not math.isfinite(item):
            return f"argument {where} is {item}, not a finite number"
        elif isinstance(item, str):
            if "\x00" in item:
                return f"argument {where} holds a NUL character"
            if _not_unicode(item):
                return f"argument {where} is not valid Unicode (a lone surrogate)"
    return None


def json_arguments(text: str, option: str) -> dict[str, Any]:
    """A tool call's arguments from the command line: a JSON object, at most
    MAX_ARGUMENT_DEPTH levels deep, without NUL characters, lone surrogates or non-finite
    numbers."""
    try:
        value = loads_bounded(text, max_depth=MAX_ARGUMENT_DEPTH)
    except BoundedJsonError as exc:
        raise ConfigurationError(f"{option}: {exc}") from exc
    if not isinstance(value, dict):
        raise ConfigurationError(f"{option}: must be a JSON object of argument names and values")
    problem = _unusable(value)
    if problem is not None:
        raise ConfigurationError(f"{option}: {problem}")
    return value
