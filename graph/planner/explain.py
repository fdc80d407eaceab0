"""One sentence a person understands for why a capability was chosen."""

from __future__ import annotations

import re

from graph.planner.scoring import ScoredCapability

_POINTS = re.compile(r"^[+-]\d+(?:\.\d+)?\s+")


def explanation(chosen: ScoredCapability) -> str:
    """ "Chose filesystem's list_directory: its name matches list and file; the request states
    path." The evidence for it, in the order it was weighed; what counted against it is left to
    the trace (the candidates' reasons)."""
    capability = chosen.capability
    for_it = [_POINTS.sub("", reason) for reason in chosen.reasons if reason.startswith("+")]
    kept = [
        reason for reason in for_it if not reason.startswith(("a tool was", "a resource was", "a prompt was"))
    ]
    title = f"{capability.server}'s {capability.name}"
    if not kept:
        return f"Chose {title}, the only capability that fits."
    return f"Chose {title}: {'; '.join(kept)}."
