"""A language model's proposed arguments, kept only where the operator's own words back them.

The model must cite, for each argument, the words of the request (or of the operator's replies
to Gatehouse's questions) the value came from. A citation is looked for in that text with case
and whitespace normalised; an argument without one, or whose citation is not there, is dropped
and counted as missing, so Gatehouse asks the operator instead of running an invented value.
Whether the value itself appears in the text is recorded too: a reviewer reads "stated" or
"derived from" beside it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graph.planner.arguments import Extraction

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

# What a citation may carry around the words themselves: quotes and closing punctuation.
_WRAPPING = " \t\r\n\"'“”‘’`.,;:!?"
_SHOWN_CITATION = 80


@dataclass(frozen=True)
class _Normalised:
    """Text folded for comparison, with the position in the original of each folded character."""

    text: str
    positions: tuple[int, ...]

    @classmethod
    def of(cls, original: str) -> _Normalised:
        folded: list[str] = []
        positions: list[int] = []
        previous_space = True  # leading whitespace is dropped
        for index, char in enumerate(original):
            for piece in unicodedata.normalize("NFKC", char).casefold():
                if piece.isspace():
                    if previous_space:
                        continue
                    piece, previous_space = " ", True
                else:
                    previous_space = False
                folded.append(piece)
                positions.append(index)
        while folded and folded[-1] == " ":
            folded.pop()
            positions.pop()
        return cls("".join(folded), tuple(positions))


def _fold(text: str) -> str:
    return _Normalised.of(text).text


def find_citation(citation: str, text: str) -> str | None:
    """The words of ``text`` the citation quotes (case and whitespace aside), as ``text`` has
    them; None when they are not there."""
    wanted = _fold(citation.strip(_WRAPPING))
    if not wanted:
        return None
    haystack = _Normalised.of(text)
    start = haystack.text.find(wanted)
    if start < 0:
        return None
    end = start + len(wanted) - 1
    return text[haystack.positions[start] : haystack.positions[end] + 1]


def _stated(value: Any, text: str) -> bool:
    """Whether the value, written out, is itself in the text (not only the words it came from)."""
    shown = value if isinstance(value, str) else str(value)
    return bool(shown.strip()) and _fold(shown) in _fold(text)


def _clipped(citation: str) -> str:
    return citation if len(citation) <= _SHOWN_CITATION else citation[: _SHOWN_CITATION - 1] + "…"


@dataclass
class Verified:
    """The arguments that stand, and what was left out that is not an argument at all."""

    extraction: Extraction
    # Names the model set that the capability does not take (dropped; kept for the trace).
    unknown: list[str]


def verify_arguments(
    capability: Capability, arguments: dict[str, Any], citations: dict[str, Any], said: str
) -> Verified:
    """Keep each proposed argument whose citation is in ``said`` (the request and the operator's
    replies); the rest, and every required argument not proposed, are missing."""
    result = Extraction()
    declared = capability.properties
    unknown: list[str] = []
    dropped: list[str] = []
    for name, value in arguments.items():
        if value is None:
            continue  # the model leaving an argument unset, spelled as null
        if declared and name not in declared:
            unknown.append(name)
            continue
        cited = citations.get(name)
        found = find_citation(cited, said) if isinstance(cited, str) else None
        if found is None:
            dropped.append(name)
            result.sources[name] = (
                f"dropped: the model's citation '{_clipped(cited)}' is not in the request or your replies"
                if isinstance(cited, str) and cited.strip()
                else "dropped: the model cited no words of the request for it"
            )
            continue
        result.arguments[name] = value
        result.evidence[name] = found
        result.sources[name] = (
            "stated in the request (cited by the language model)"
            if _stated(value, said)
            else f"derived by the language model from '{_clipped(found)}'"
        )
    required = [name for name in capability.required_arguments if name not in result.arguments]
    result.missing = [*dropped, *(name for name in required if name not in dropped)]
    return Verified(extraction=result, unknown=unknown)
