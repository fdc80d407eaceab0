"""The capabilities a language model is shown: a bounded shortlist, not the whole offer.

A server with thousands of tools cannot be put in one prompt, and a model shown fewer, better
candidates chooses better. The shortlist is the union, best first, of what the deterministic
planner's scores rank highest (words, arguments, kinds, servers named) and what is closest in
meaning (graph/planner/similarity.py), read through the glossary for requests in another
language, plus every capability the request names by its name or key, whatever its rank.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain, zip_longest
from typing import TYPE_CHECKING

from graph.planner.languages import read
from graph.planner.scoring import rank
from graph.planner.similarity import similarities
from graph.planner.text import compiled

if TYPE_CHECKING:
    from graph.planner.protocol import PlanningRequest
    from mcp_host.manifest import Capability

SHORTLIST = 25
# A name shorter than this ("ls", "get") is a word of the request more often than a name.
_NAMED_LENGTH = 4


def _named(capability: Capability, text: str) -> bool:
    """Whether the request names ``capability`` by its key or its (distinctive) name."""
    for name in (capability.key, capability.name):
        if len(name) >= _NAMED_LENGTH and compiled(rf"(?<![\w-]){re.escape(name)}(?![\w-])").search(text):
            return True
    return False


def shortlist(
    request: PlanningRequest, capabilities: Sequence[Capability], limit: int = SHORTLIST
) -> list[Capability]:
    """At most ``limit`` capabilities (and any the request names), best first; all of them
    when there are no more than ``limit``."""
    offered = list(capabilities)
    if len(offered) <= limit:
        return offered
    text = read(request.full_text).text.replace("\n", " ")
    by_score = [
        s.capability
        for s in rank(
            offered, text, request.operation_type, list(request.preferences), folders=request.folders
        )
    ]
    closeness = similarities(text, offered)
    by_meaning = [offered[i] for i in sorted(range(len(offered)), key=lambda i: -closeness[i])]
    named = [c for c in offered if _named(c, request.full_text)]
    chosen: dict[str, Capability] = {c.key: c for c in named}
    for capability in chain.from_iterable(zip_longest(by_score, by_meaning)):
        if len(chosen) >= limit + len(named):
            break
        if capability is not None:
            chosen.setdefault(capability.key, capability)
    return list(chosen.values())
