"""Beside each proposed argument, where its value came from: the operator's words (stated), a
planner's making (derived), or a reviewer's edit, with the words it came from.

The badge is Gatehouse's own fact (graph/planner/provenance.py decided it); the argument's
name and how a value was read may quote a server, so they go through gatehouse/literal.py, and
the words themselves are the requester's (or what a model cited): plain text, never Markdown.
Secrets are hidden by the caller's ``hide``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gatehouse.literal import markdown_literal, name_literal

# Not green: a green badge reads as "approved", which is no planner's to say.
_BADGES = {
    "stated": ":blue-badge[stated]",
    "derived": ":orange-badge[derived]",
    "edited": ":violet-badge[set by a reviewer]",
}
_SHOWN_WORDS = 200


@dataclass(frozen=True)
class ProvenanceLine:
    """One argument's provenance: a line of Markdown (Gatehouse's words, with the name as a
    literal), then the operator's words it came from, shown as plain text (st.text), never
    parsed; None when there are none to show."""

    markdown: str
    words: str | None


def _quoted(words: str, hide: Callable[[str], str]) -> str | None:
    shown = " ".join(hide(words).split())
    if not shown:
        return None
    return f"“{shown if len(shown) <= _SHOWN_WORDS else shown[: _SHOWN_WORDS - 1] + '…'}”"


def provenance_line(
    name: str, provenance: Mapping[str, Any] | None, hide: Callable[[str], str]
) -> ProvenanceLine:
    """One argument's provenance, for the Reviews page."""
    label = name_literal(hide(name))
    if not isinstance(provenance, Mapping):
        # A review stored before Gatehouse kept provenance: say so rather than guess.
        return ProvenanceLine(
            f"{label} :gray-badge[not recorded] (proposed before Gatehouse recorded where values came from)",
            None,
        )
    kind = str(provenance.get("kind") or "")
    how = str(provenance.get("how") or "")
    badge = _BADGES.get(kind) or markdown_literal(kind or "unknown")
    if kind == "edited":
        return ProvenanceLine(f"{label} {badge} {markdown_literal(hide(how))}", None)
    words = _quoted(str(provenance.get("words") or ""), hide)
    if kind == "derived":
        said = "derived from these words, not the operator's own: check it against the request"
        return ProvenanceLine(f"{label} {badge} {said}" if words else f"{label} {badge} from no words", words)
    detail = f" ({markdown_literal(hide(how))})" if how and how != "as written" else ""
    return ProvenanceLine(f"{label} {badge} the operator's words{detail}", words)


def provenance_lines(
    arguments: Mapping[str, Any], provenance: Mapping[str, Any] | None, hide: Callable[[str], str]
) -> list[ProvenanceLine]:
    """Each argument's line, in the arguments' order."""
    found = provenance if isinstance(provenance, Mapping) else {}
    return [provenance_line(name, found.get(name), hide) for name in arguments]
