"""Names read the way a person reads them: ``PayInvoice``, ``pay-invoice``, ``PAY_INVOICE`` and
``pay_invoice`` are one name, so neither a rule nor the risk rating can be dodged by spelling."""

from __future__ import annotations

import re
from functools import lru_cache

_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_WORD = re.compile(r"[a-z]+|[0-9]+")
_WILDCARD = re.compile(r"(\*|\?|\[[^\]]*\])")
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


@lru_cache(maxsize=1024)
def normalise_glob(pattern: str) -> str:
    """A rule's glob in the spelling of normalised keys: literal parts lower-cased, camelCase and
    kebab-case turned into snake_case; wildcards and underscores kept where they are."""
    return "".join(
        part if _WILDCARD.fullmatch(part) else _split_case(part).lower().replace("-", "_")
        for part in _WILDCARD.split(pattern)
    )
