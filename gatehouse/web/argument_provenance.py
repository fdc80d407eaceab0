"""Beside each proposed argument, where its value came from: the operator's words (stated), a
planner's making (derived), or a reviewer's edit, with the words it came from.

The badge is Gatehouse's own fact (graph/planner/provenance.py decided it); the argument's
name and how a value was read may quote a server, so they go through gatehouse/web/literal.py, and
the words themselves are the requester's (or what a model cited): plain text, never Markdown.
Secrets are hidden by the caller's ``hide``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gatehouse.web.literal import markdown_literal, name_literal

_SHOWN_WORDS = 200


def _badge(kind: str) -> str:
    # Not green: a green badge reads as "approved", which is no planner's to say.
    if kind == "stated":
        return ":blue-badge[stated]"
    if kind == "derived":
        return ":orange-badge[derived]"
    if kind == "edited":
        return ":violet-badge[set by a reviewer]"
    return markdown_literal(kind or "unknown")


def _quoted(words: str, hide: Callable[[str], str]) -> str | None:
    shown = " ".join(hide(words).split())
    if not shown:
        return None
    return f"“{shown if len(shown) <= _SHOWN_WORDS else shown[: _SHOWN_WORDS - 1] + '…'}”"


def provenance_markdown(name: str, provenance: Any, hide: Callable[[str], str]) -> str:
    """One argument's provenance line for the Reviews page: Gatehouse's words, in Markdown,
    with the argument's name as a literal."""
    label = name_literal(hide(name))
    if not isinstance(provenance, Mapping):
        # A review stored before Gatehouse kept provenance: say so rather than guess.
        return (
            f"{label} :gray-badge[not recorded] (proposed before Gatehouse recorded where values came from)"
        )
    kind = str(provenance.get("kind") or "")
    how = str(provenance.get("how") or "")
    badge = _badge(kind)
    if kind == "edited":
        return f"{label} {badge} {markdown_literal(hide(how))}"
    if kind == "derived":
        if provenance_words(provenance, hide) is None:
            return f"{label} {badge} from no words"
        return (
            f"{label} {badge} derived from these words, not the operator's own: check it against the request"
        )
    detail = f" ({markdown_literal(hide(how))})" if how and how != "as written" else ""
    return f"{label} {badge} the operator's words{detail}"


def provenance_words(provenance: Any, hide: Callable[[str], str]) -> str | None:
    """The words an argument's value came from, quoted, to be shown as plain text (never
    parsed); None when there are none to show (a reviewer's edit, an old review)."""
    if not isinstance(provenance, Mapping) or provenance.get("kind") == "edited":
        return None
    return _quoted(str(provenance.get("words") or ""), hide)
