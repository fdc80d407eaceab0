"""How a review ended, in words a person reads: who decided, when, why, and what they changed.

Read from final_output's ``review`` (the output contract): ``decision`` (approve, reject,
expire, cancel), ``decided_by``, ``decided_at`` (ISO, UTC), ``reason`` and ``changes`` (the
arguments a reviewer edited: ``{"proposed": {name: value}, "approved": {name: value}}``, an
absent name meaning "not set"). Used by the chat and by the command line's text output. The
reason and the values are other people's text: the callers show them literally.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

from gatehouse.display.reader_time import readable_time
from graph.results_view import as_text

NOT_SET = "(not set)"


@dataclass(frozen=True)
class ArgumentChange:
    name: str
    proposed: str  # the value as text ("(not set)" when the proposal had no such argument)
    approved: str

    @property
    def diff(self) -> str:
        """``- proposed`` / ``+ approved`` lines; a multi-line value as a line-by-line diff."""
        before, after = self.proposed.splitlines() or [""], self.approved.splitlines() or [""]
        if len(before) == 1 and len(after) == 1:
            return f"- {before[0]}\n+ {after[0]}"
        lines = difflib.unified_diff(before, after, lineterm="", n=2)
        return "\n".join(line for line in lines if not line.startswith(("---", "+++")))


@dataclass(frozen=True)
class Outcome:
    headline: str  # "Approved by reviewer2 at 14:33 UTC"
    reason: str | None = None
    changes: list[ArgumentChange] = field(default_factory=list)


def argument_changes(changes: Mapping[str, Any] | None) -> list[ArgumentChange]:
    if not changes:
        return []
    proposed: Mapping[str, Any] = changes.get("proposed") or {}
    approved: Mapping[str, Any] = changes.get("approved") or {}
    return [
        ArgumentChange(
            name=name,
            proposed=as_text(proposed[name]) if name in proposed else NOT_SET,
            approved=as_text(approved[name]) if name in approved else NOT_SET,
        )
        for name in sorted(set(proposed) | set(approved))
    ]


_VERBS = {
    # (decision, stage) -> what happened; the stage tells an approval to run from a release.
    ("approve", "untrusted_output"): "Output released",
    ("approve", "after_failure"): "Retry approved",
    ("approve", None): "Approved",
    ("reject", "untrusted_output"): "Output rejected",
    ("reject", None): "Rejected",
    ("cancel", None): "Withdrawn",
}


def outcome_of(
    review: Mapping[str, Any] | None, *, zone: tzinfo | None = None, now: datetime | None = None
) -> Outcome | None:
    """The outcome of a decided review, or None (still waiting, a clarification, or an output
    written before decisions were recorded in it)."""
    if not review:
        return None
    decision = review.get("decision")
    at = review.get("decided_at")
    when = f" at {readable_time(at, zone=zone, now=now)}" if at else ""
    if decision == "expire":
        return Outcome(headline=f"Expired{when}: nobody decided in time")
    stage = review.get("stage")
    verb = _VERBS.get((str(decision), str(stage))) or _VERBS.get((str(decision), None))
    if verb is None:
        return None
    by = review.get("decided_by") or "someone"
    return Outcome(
        headline=f"{verb} by {by}{when}",
        reason=review.get("reason") or None,
        changes=argument_changes(review.get("changes")),
    )
