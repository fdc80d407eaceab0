"""Rank discovered capabilities against a request, with reasons a reviewer can read.

The score adds evidence: the capability's name parts matching the request's concepts weigh
most, then its server's name, parameters and enum values the request states, and words of
its description. A capability of the wrong kind (a prompt when nobody asked for one), a
broad listing with no filters, or required arguments the request does not state count
against it. Preferred servers get a bonus, never a free pass: a weak match stays weak.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from graph.planner.arguments import extract_arguments, property_shape
from graph.planner.text import (
    ACTION_CONCEPTS,
    STOPWORDS,
    concepts,
    concepts_of_words,
    split_identifier,
    words,
)

if TYPE_CHECKING:
    from mcp_host.manifest import Capability

NAME_WEIGHT = 3.0
SERVER_WEIGHT = 1.5
PARAMETER_WEIGHT = 1.0
ENUM_WEIGHT = 1.0
DESCRIPTION_WEIGHT = 0.5
DESCRIPTION_CAP = 3.0
KIND_MATCH = 2.0
KIND_MISMATCH = -1.0
UNREQUESTED_PROMPT = -4.0
PREFERRED_SERVER = 2.5
UNBOUNDED_LISTING = -2.0
STATED_ARGUMENT = 1.5
URI_MATCH = 5.0
ACTION_MISMATCH = -4.0
UNMATCHED_NAME_WORD = -1.5
MISSING_ARGUMENT = -0.5

_KIND_OF_TYPE = {"tool": "tool", "resource": "resource", "resource_template": "resource", "prompt": "prompt"}
_UNBOUNDED_WORDS = re.compile(
    r"\b(legacy|every|no filters?|no paging|unpaginated|all records)\b", re.IGNORECASE
)


@dataclass
class ScoredCapability:
    capability: Capability
    score: float
    reasons: list[str] = field(default_factory=list)


def is_unbounded_listing(capability: Capability) -> bool:
    """A tool that can only return everything: no parameters to filter or page with."""
    if capability.type != "tool" or capability.properties:
        return False
    name_words = set(split_identifier(capability.name))
    return bool(name_words & {"all", "every", "dump", "export"}) or bool(
        _UNBOUNDED_WORDS.search(capability.description)
    )


def _uri_matches(capability: Capability, text: str) -> bool:
    if capability.uri and capability.uri in text:
        return True
    if capability.uri_template:
        prefix = capability.uri_template.split("{", 1)[0]
        return bool(prefix) and prefix in text
    return False


def score_capability(
    capability: Capability, text: str, operation_type: str, preferences: list[str]
) -> ScoredCapability:
    wanted = _concepts_of_request(text)
    scored = ScoredCapability(capability, 0.0)

    def add(points: float, reason: str) -> None:
        scored.score += points
        scored.reasons.append(f"{points:+g} {reason}")

    name_words = [w for w in split_identifier(capability.name) if w not in STOPWORDS]
    name_concepts = concepts_of_words(name_words)
    name_hits = sorted(name_concepts & wanted)
    if name_hits:
        add(NAME_WEIGHT * len(name_hits), f"name matches {', '.join(name_hits)}")
        # A name that says more than the request asked for is a narrower fit:
        # "list files" is list_directory, not list_allowed_directories.
        unmatched = [w for w in name_words if not concepts_of_words([w]) & wanted]
        if unmatched:
            add(UNMATCHED_NAME_WORD * len(unmatched), f"name also says {', '.join(unmatched)}")
    if concepts_of_words(split_identifier(capability.server)) & wanted:
        add(SERVER_WEIGHT, f"server {capability.server} named")
    param_hits = sorted(n for n in capability.properties if concepts_of_words(split_identifier(n)) & wanted)
    if param_hits:
        add(PARAMETER_WEIGHT * min(len(param_hits), 3), f"parameters {', '.join(param_hits)} named")
    enum_hits = _stated_enum_values(capability, wanted)
    if enum_hits:
        add(ENUM_WEIGHT * min(len(enum_hits), 3), f"values {', '.join(enum_hits)} stated")
    description_hits = _concepts_of_description(capability.description) & wanted
    if description_hits:
        add(min(DESCRIPTION_WEIGHT * len(description_hits), DESCRIPTION_CAP), "description matches")
    if _uri_matches(capability, text):
        add(URI_MATCH, "URI named in the request")

    # Bonuses below (kind, preference, stated arguments) only rank capabilities the request
    # is about; without a word pointing at this one they must not lift it over the threshold.
    topical = bool(scored.reasons)
    kind = _KIND_OF_TYPE[capability.type]
    if operation_type == kind:
        add(KIND_MATCH, f"a {kind} was asked for")
    elif kind == "prompt":
        add(UNREQUESTED_PROMPT, "a prompt, but none was asked for")
    elif operation_type in {"tool", "resource"}:
        add(KIND_MISMATCH, f"a {kind}, but a {operation_type} was asked for")
    acts = name_concepts & ACTION_CONCEPTS
    asked = wanted & ACTION_CONCEPTS
    if acts and not acts & asked:
        add(ACTION_MISMATCH, f"it would {', '.join(sorted(acts))}, which the request does not ask for")
    elif asked and not acts & asked:
        add(ACTION_MISMATCH, f"the request asks to {', '.join(sorted(asked))}, which it does not do")
    if capability.server in preferences:
        add(PREFERRED_SERVER, f"server {capability.server} preferred")
    if is_unbounded_listing(capability):
        add(UNBOUNDED_LISTING, "returns everything, with no filters or paging")

    extraction = extract_arguments(capability.input_schema, text)
    stated_required = [n for n in capability.required_arguments if n in extraction.arguments]
    if stated_required:
        add(STATED_ARGUMENT * len(stated_required), f"request states {', '.join(stated_required)}")
    if extraction.missing:
        add(MISSING_ARGUMENT * len(extraction.missing), f"request lacks {', '.join(extraction.missing)}")
    if not topical and scored.score > 0:
        scored.reasons.append(f"capped at 0: nothing in the request refers to {capability.key}")
        scored.score = 0.0
    scored.score = round(scored.score, 2)
    return scored


# Both are asked for once per capability per request; the answers never change for a text.
@lru_cache(maxsize=256)
def _concepts_of_request(text: str) -> frozenset[str]:
    return frozenset(concepts(text))


@lru_cache(maxsize=4096)
def _concepts_of_description(description: str) -> frozenset[str]:
    return frozenset(concepts_of_words(words(description)))


def _stated_enum_values(capability: Capability, wanted: frozenset[str]) -> list[str]:
    hits: list[str] = []
    for schema in capability.properties.values():
        enum = property_shape(schema).get("enum")
        if isinstance(enum, list):
            hits.extend(str(v) for v in enum if concepts_of_words([str(v).lower()]) & wanted)
    return hits


def rank(
    capabilities: list[Capability],
    text: str,
    operation_type: str,
    preferences: list[str],
    exclude: set[str] | None = None,
) -> list[ScoredCapability]:
    """Every capability not excluded, best first; ties broken by key so the order is stable."""
    excluded = exclude or set()
    scored = [
        score_capability(capability, text, operation_type, preferences)
        for capability in capabilities
        if capability.key not in excluded
    ]
    return sorted(scored, key=lambda s: (-s.score, s.capability.key))
