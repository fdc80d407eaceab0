"""A language model's proposed arguments, kept only where the operator's own words back them.

The model must cite, for each argument, the words of the request (or of the operator's replies
to Gatehouse's questions) the value came from. A citation is looked for in that text with case
and whitespace normalised; an argument without one, or whose citation is not there, is dropped
and counted as missing, so Gatehouse asks the operator instead of running an invented value.

A citation found is not yet a stated value: the value must be the cited words themselves, or a
normalisation of them graph/planner/provenance.py can show ("Tokyo" as Asia/Tokyo). A value its
citation does not state ("Paris ghp_..." citing "Paris", notes.md citing "sample.txt") is kept
as *derived*: the policy flags it and a reviewer reads it beside the words it came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graph.planner.arguments import Extraction
from graph.planner.provenance import classify, locate

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

# What a citation may carry around the words themselves: quotes and closing punctuation.
_WRAPPING = " \t\r\n\"'“”‘’`.,;:!?"
_SHOWN_CITATION = 80


def find_citation(citation: str, text: str) -> str | None:
    """The words of ``text`` the citation quotes (case and whitespace aside), as ``text`` has
    them; None when they are not there."""
    span = locate(citation.strip(_WRAPPING), text)
    return text[span[0] : span[1]] if span else None


def _clipped(citation: str) -> str:
    return citation if len(citation) <= _SHOWN_CITATION else citation[: _SHOWN_CITATION - 1] + "…"


@dataclass
class Verified:
    """The arguments that stand, and what was left out that is not an argument at all."""

    extraction: Extraction
    # Names the model set that the capability does not take (dropped; kept for the trace).
    unknown: list[str]


def verify_arguments(
    capability: Capability,
    arguments: dict[str, Any],
    citations: dict[str, Any],
    said: str,
    roots: Sequence[str] = (),
) -> Verified:
    """Keep each proposed argument whose citation is in ``said`` (the request and the operator's
    replies), stated or derived; the rest, and every required argument not proposed, are
    missing. ``roots``: the folders the capability's server was configured with (a path named
    relative to one is stated when joined to it)."""
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
        span = locate(cited.strip(_WRAPPING), said) if isinstance(cited, str) else None
        if span is None:
            dropped.append(name)
            result.sources[name] = (
                f"dropped: the model's citation '{_clipped(cited)}' is not in the request or your replies"
                if isinstance(cited, str) and cited.strip()
                else "dropped: the model cited no words of the request for it"
            )
            continue
        found = said[span[0] : span[1]]
        provenance = classify(
            value,
            said,
            span,
            name=name,
            schema=declared.get(name) or {},
            roots=roots,
            derived_from=found,
            derived_how=f"derived by the language model from '{_clipped(found)}'",
        )
        result.arguments[name] = value
        result.provenance[name] = provenance
        result.evidence[name] = provenance.words
        result.sources[name] = (
            provenance.how
            if provenance.kind == "derived"
            else "stated in the request (cited by the language model)"
            if provenance.how == "as written"
            else f"stated in the request: {provenance.how} (cited by the language model)"
        )
    required = [name for name in capability.required_arguments if name not in result.arguments]
    result.missing = [*dropped, *(name for name in required if name not in dropped)]
    return Verified(extraction=result, unknown=unknown)
