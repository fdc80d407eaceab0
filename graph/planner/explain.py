"""One sentence a person understands for why a capability was chosen."""

from __future__ import annotations

import re

from graph.planner.scoring import ScoredCapability

_POINTS = re.compile(r"^[+-]\d+(?:\.\d+)?\s*")


# A sentence, not a ledger: the strongest few reasons; the rest are in the trace.
REASONS_SHOWN = 3


def explanation(chosen: ScoredCapability) -> str:
    """ "Chose filesystem's list_directory: its name matches list and file; the request states
    path." The strongest evidence for it, strongest first; what counted against it, and the
    smaller reasons, are left to the trace (the candidates' reasons)."""
    capability = chosen.capability
    weighed = [
        (float(match.group(0)), reason[match.end() :])
        for reason in chosen.reasons
        if (match := _POINTS.match(reason)) and reason.startswith("+")
    ]
    kept = [
        (points, reason)
        for points, reason in weighed
        if not reason.startswith(("a tool was", "a resource was", "a prompt was"))
    ]
    strongest = [reason for _, reason in sorted(kept, key=lambda item: -item[0])[:REASONS_SHOWN]]
    title = f"{capability.server}'s {capability.name}"
    if not strongest:
        return f"Chose {title}, the only capability that fits."
    return f"Chose {title}: {'; '.join(strongest)}."
