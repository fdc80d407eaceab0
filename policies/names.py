"""Names read the way a person reads them: ``PayInvoice``, ``pay-invoice``, ``PAY_INVOICE`` and
``pay_invoice`` are one name, so neither a rule nor the risk rating can be dodged by spelling."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from functools import lru_cache

_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_WORD = re.compile(r"[a-z]+|[0-9]+")
_WILDCARD = re.compile(r"(\*|\?|\[[^\]]*\])")
_NOT_IN_NAMES = re.compile(r"[^a-z0-9_]")
_DIGIT_EDGE = re.compile(r"(?<=[a-z])(?=[0-9])|(?<=[0-9])(?=[a-z])")
# Server and capability are joined by this in a key (mcp_host.manifest.KEY_SEPARATOR).
_KEY_SEPARATOR = "__"


def _split_case(text: str) -> str:
    return _CAMEL.sub(r"\1_\2", _ACRONYM.sub(r"\1_\2", text))


@lru_cache(maxsize=8192)
def words(text: str) -> list[str]:
    """Lower-case words of a name or a sentence: HTTPRequest -> http request, runCommand ->
    run command, exec-shell -> exec shell. Digits are words of their own."""
    return _WORD.findall(_split_case(text).lower())


def normalise_name(name: str) -> str:
    """One spelling of a name: snake_case of its words (``Exec_shell`` -> ``exec_shell``)."""
    return "_".join(words(name))


@lru_cache(maxsize=8192)
def normalise_key(key: str) -> str:
    """A capability key (``server__name``) with each side normalised and the separator kept."""
    server, separator, name = key.partition(_KEY_SEPARATOR)
    if not separator:
        return normalise_name(key)
    return f"{normalise_name(server)}{_KEY_SEPARATOR}{normalise_name(name)}"


def _literal(part: str) -> str:
    # As words() reads a name: digits a word of their own (ec2 -> ec_2), and any other mark
    # between words (kebab-case, dots) an underscore.
    return _DIGIT_EDGE.sub("_", _NOT_IN_NAMES.sub("_", _split_case(part).lower()))


@lru_cache(maxsize=1024)
def normalise_glob(pattern: str) -> str:
    """A rule's glob in the spelling of normalised keys: literal parts lower-cased, camelCase,
    kebab-case and dotted names turned into snake_case, digits split from letters as in a
    key (``ec2__*`` matches ``ec2__terminate``); wildcards and underscores kept where they are."""
    return "".join(part if _WILDCARD.fullmatch(part) else _literal(part) for part in _WILDCARD.split(pattern))


# What fnmatch reads as a wildcard or a set in a glob, but only as a break between words in a key.
_GLOB_MARKS = re.compile(r"[*?\[\]]")


def key_glob(key: str) -> str:
    """The glob that names exactly this capability in a rule's ``match`` or ``exclude``.

    Servers choose the names, and a name may hold ``*``, ``?``, ``[`` or ``]``: written as it
    is, ``files__read*`` would match every ``files__read_...`` and ``get[item]`` a set of one
    letter, not itself. Escaping them as fnmatch does (``[*]``) would not survive the
    comparison either: a key is compared in its spelling (normalise_key), in which each of
    them is a break between words, so an escaped ``*`` would match nothing. The key is kept
    as it is where it reads as itself and holds none of them; else it is written in that
    spelling, which holds only letters, digits and underscores, so it matches that spelling
    and no other (the spelling names one capability of a server: mcp_host/discovery.py keeps
    one capability a spelling)."""
    spelling = normalise_key(key)
    if _GLOB_MARKS.search(key) is None and normalise_glob(key) == spelling:
        return key
    return spelling


def key_matches(key: str, globs: Iterable[str]) -> bool:
    """Whether a capability key fits one of the globs, both compared in one spelling (what a
    rule's ``match`` and ``exclude`` do)."""
    name = normalise_key(key)
    return any(fnmatch.fnmatchcase(name, normalise_glob(glob)) for glob in globs)


def glob_problem(pattern: str) -> str | None:
    """Why a glob over capability keys cannot mean what it looks like, or None: it is blank,
    has spaces at an end (no key has), or opens a ``[`` set it never closes (fnmatch would
    then compare the ``[`` as a letter)."""
    if not pattern.strip():
        return "is blank"
    if pattern != pattern.strip():
        return "has spaces at an end, which no capability key has"
    if _WILDCARD.sub("", pattern).count("["):
        return "opens a [ set it never closes"
    return None
