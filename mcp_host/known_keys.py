"""The key a person meant when a configuration file names one it does not know ("comand",
"acepts", "enviroment"), and a value of the wrong kind as the file wrote it: the servers file,
its capability notes, roots and sign-in settings, and the policy file all say it the same way."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from typing import Any

# Below this a guess names a key nobody meant ("colour" is no "cwd").
_CUTOFF = 0.6
# A known key this short is a prefix of too many words to be the one meant by them.
_SHORTEST_PREFIX = 3


def _folded(key: str) -> str:
    return key.casefold().replace("_", "").replace("-", "")


def closest_key(key: str, known: Iterable[str]) -> str | None:
    """The known key ``key`` most likely misspells: the same key in another case or with '_'
    or '-' (``env_file`` for ``envFile``), else the nearest spelling, else the longest known
    key it begins with (``enviroment`` for ``env``); None when none is near."""
    keys = [name for name in known if name != key]
    by_fold = {_folded(name): name for name in keys}
    if _folded(key) in by_fold:
        return by_fold[_folded(key)]
    near = difflib.get_close_matches(_folded(key), list(by_fold), n=1, cutoff=_CUTOFF)
    if near:
        return by_fold[near[0]]
    prefixes = [
        name for name in keys if len(name) >= _SHORTEST_PREFIX and _folded(key).startswith(_folded(name))
    ]
    return max(prefixes, key=len) if prefixes else None


def did_you_mean(key: str, known: Iterable[str]) -> str:
    """`` (did you mean 'command'?)`` for a key with a close known one, else ``""``."""
    meant = closest_key(key, known)
    return f" (did you mean {meant!r}?)" if meant is not None else ""


def written_as(value: Any, mapping: str = "an object") -> str:
    """A value as the file wrote it, for "not ...": ``mapping`` names a mapping in the file's
    own words (a JSON object; a TOML file says "a table")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {json.dumps(value, ensure_ascii=False)}"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return mapping
    return "null" if value is None else f"a {type(value).__name__}"
