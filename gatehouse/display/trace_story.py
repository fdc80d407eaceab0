"""A thread's trace told for someone watching a demo: the steps numbered in the order they ran
(a step run twice has two numbers), each named in the chat's plain words
(gatehouse/display/step_labels.py), its inputs and outputs as short readable lines, and what a
person decided as a sentence with the arguments they edited.

Reads the steps of graph/trace.py trace_steps (secrets already hidden). The values are other
people's text: the callers show them literally."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from gatehouse.display.outcome import ArgumentChange, outcome_of
from gatehouse.display.step_labels import step_label
from graph.results_view import as_text, clip

# How much of one value a line shows (the raw JSON beside it has all of it).
VALUE_CHARS = 160
# How many entries of a list or a mapping are shown before "and N more".
ENTRIES_SHOWN = 8
# The least room a nested value gets.
_LEAST_CHARS = 40
# Words a field name spells in capitals.
_ACRONYMS = {"mcp": "MCP", "id": "id"}


@dataclass(frozen=True)
class Decision:
    """What a person decided when the thread waited for them."""

    sentence: str  # "Approved by alice at 14:33 UTC, with edits to body: not to the whole list."
    action: str  # approve, reject, expire, cancel, answer
    changes: list[ArgumentChange] = field(default_factory=list)


@dataclass(frozen=True)
class StoryStep:
    """One step as shown: ``number`` from 1 in the order the steps ran (None for the time a
    thread waited for a person, which is no step of the graph)."""

    number: int | None
    node: str | None
    label: str
    request: int
    raw: dict[str, Any]
    inputs: list[str] = field(default_factory=list)  # lines (panel)
    outputs: list[str] = field(default_factory=list)
    paused: str | None = None  # "waiting for a person (before execution)": it waits now
    decision: Decision | None = None


def field_label(name: str) -> str:
    """A state field as words: ``selected_capability`` -> "Selected capability"."""
    words = [_ACRONYMS.get(word, word) for word in name.split("_")]
    first = words[0] if words[0].isupper() else words[0].capitalize()
    return " ".join([first, *words[1:]])


def readable(value: Any, limit: int = VALUE_CHARS) -> str:
    """A value on one line: text as it is, a mapping as ``key: value · ...``, a list as its
    items ``a; b``, nested ones the same way in less room, clipped to ``limit``; nothing
    becomes "(none)"."""
    if _empty(value):
        return "(none)"
    inner = max(limit // 2, _LEAST_CHARS)
    if isinstance(value, Mapping):
        entries = [f"{key}: {readable(item, inner)}" for key, item in list(value.items())[:ENTRIES_SHOWN]]
        return clip(" · ".join(entries) + _more(len(value)), limit)
    if isinstance(value, list):
        return clip(
            "; ".join(readable(item, inner) for item in value[:ENTRIES_SHOWN]) + _more(len(value)), limit
        )
    return clip(" ".join(as_text(value).split()), limit)


def _empty(value: Any) -> bool:
    return value is None or value == {} or value == [] or value == ""


def _more(count: int) -> str:
    return f" and {count - ENTRIES_SHOWN} more" if count > ENTRIES_SHOWN else ""


def panel(values: Mapping[str, Any], *, skip_empty: bool = False) -> list[str]:
    """Fields as lines a person reads: ``Field: value``, or for a mapping ``Field:`` and one
    indented line per entry."""
    lines: list[str] = []
    for name, value in values.items():
        if skip_empty and _empty(value):
            continue
        if not isinstance(value, Mapping) or not value:
            lines.append(f"{field_label(name)}: {readable(value)}")
            continue
        lines.append(f"{field_label(name)}:")
        lines += [f"    {key}: {readable(item)}" for key, item in list(value.items())[:ENTRIES_SHOWN]]
        if len(value) > ENTRIES_SHOWN:
            lines.append(f"    and {len(value) - ENTRIES_SHOWN} more")
    return lines


def decision_of(step: Mapping[str, Any], *, zone: tzinfo | None = None) -> Decision | None:
    """A step's decision as a sentence (the chat's outcome words, gatehouse/display/outcome.py),
    with the arguments a reviewer edited; None when the step got none."""
    decided = step.get("decision")
    if not decided:
        return None
    review = (step.get("values") or {}).get("review") or {}
    action, by = str(decided.get("action")), str(decided.get("by") or "someone")
    if action == "answer":
        return Decision(
            f"{by} answered the question: {clip(str(decided.get('text') or ''), VALUE_CHARS)}", action
        )
    outcome = outcome_of(
        {
            "decision": action,
            "decided_by": by,
            "decided_at": decided.get("at"),
            "stage": review.get("stage"),
            "reason": decided.get("reason"),
            "changes": review.get("changes"),
        },
        zone=zone,
    )
    if outcome is None:
        return Decision(f"{by} decided: {action}", action)
    # Only what the reviewer changed: an argument left as proposed is no edit.
    edits = [change for change in outcome.changes if change.proposed != change.approved]
    sentence = outcome.headline
    if edits:
        sentence += ", with edits to " + ", ".join(change.name for change in edits)
    if outcome.reason:
        sentence += f": {outcome.reason}"
    return Decision(sentence, action, edits)


def _waited(step: Mapping[str, Any]) -> str:
    stage = str(step.get("waiting") or "review").replace("_", " ")
    took = step.get("duration_s")
    return (
        f"Waited {took:.1f} s for a person ({stage})"
        if took is not None
        else f"Waited for a person ({stage})"
    )


def story(steps: list[dict[str, Any]], *, zone: tzinfo | None = None) -> list[StoryStep]:
    """The steps as shown, numbered in the order they ran."""
    told: list[StoryStep] = []
    number = 0
    for step in steps:
        node = step.get("node")
        if node is None:
            # The wait itself: who ended it is told on the step that read the decision.
            told.append(StoryStep(None, None, _waited(step), int(step["request"]), step))
            continue
        number += 1
        interrupt = step.get("interrupt")
        paused = None
        if interrupt:
            stage = (
                str(interrupt.get("stage") or "review").replace("_", " ")
                if isinstance(interrupt, dict)
                else "review"
            )
            paused = f"Waiting for a person now ({stage})"
        told.append(
            StoryStep(
                number,
                str(node),
                step_label(str(node)),
                int(step["request"]),
                step,
                # What it read, the empty fields left out; all it wrote, emptied ones too.
                inputs=panel(step.get("inputs") or {}, skip_empty=True),
                outputs=panel(step.get("values") or {}),
                paused=paused,
                decision=decision_of(step, zone=zone),
            )
        )
    return told


def executed(told: list[StoryStep]) -> list[str]:
    """The nodes in the order they ran: the route the diagram highlights and numbers."""
    return [step.node for step in told if step.node is not None]
