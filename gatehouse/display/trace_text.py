"""`gatehouse trace` as text a person reads: told as the Traces page tells it
(gatehouse/display/trace_story.py), the steps numbered in the order they ran (a step run twice,
in a loop, has two numbers) and named in the chat's plain words, the waits for a person, and
each decision as a sentence with the arguments a reviewer edited. The graph's node names stay
in `--json`, for machines.

The values are other people's text (a reviewer's reason, an edited argument): a line break in
one continues indented, never as a line of its own."""

from __future__ import annotations

from typing import Any

from gatehouse.display.trace_story import Decision, StoryStep, story
from gatehouse.display.visible_text import continued
from graph.trace import summarise_changes

# Where a step's number ends and what belongs to it (a wait, a decision) is written.
_NUMBER_WIDTH = 4
_UNDER_STEP = " " * (_NUMBER_WIDTH + 4)


def _offset(step: StoryStep) -> str:
    offset = step.raw.get("offset_s")
    return f"+{offset:.2f} s" if offset is not None else ""


def _took(step: StoryStep) -> str:
    duration = step.raw.get("duration_s")
    return f"{duration * 1000:.0f} ms" if duration is not None else ""


def _decision_lines(decision: Decision) -> list[str]:
    """The sentence, then each edited argument as ``- proposed`` / ``+ approved``."""
    lines = [_UNDER_STEP + continued(decision.sentence, len(_UNDER_STEP))]
    edit_indent = len(_UNDER_STEP) + 2
    for change in decision.changes:
        lines.append(f"{_UNDER_STEP}  Edited {change.name}:")
        lines.append(" " * edit_indent + continued(change.diff, edit_indent))
    return lines


def _step_lines(step: StoryStep, label_width: int) -> list[str]:
    if step.number is None:
        # The wait itself: who ended it is told by the decision of the step that read it.
        return [f"{_UNDER_STEP}{step.label} at {_offset(step)}"]
    # Told in the page's order: the decision that ended a wait, then the step that read it.
    lines = _decision_lines(step.decision) if step.decision is not None else []
    changed = step.raw.get("changed") or []
    lines.append(
        f"{step.number:>{_NUMBER_WIDTH}}. {step.label:<{label_width}}  {_offset(step):>8} {_took(step):>7}"
        f"  changed: {summarise_changes(changed)}"
    )
    if step.paused:
        lines.append(_UNDER_STEP + step.paused)
    return lines


def render_trace(report: dict[str, Any]) -> str:
    """The thread, then each of its requests with its steps: number, plain label, time from the
    thread's start, duration and the state it changed; waits, decisions and a wait still open
    on lines of their own under the step."""
    told = story(report["steps"])
    label_width = max((len(step.label) for step in told if step.number is not None), default=0)
    lines = [f"thread {report['thread_id']}"]
    request = None
    for step in told:
        if step.request != request:
            request = step.request
            lines.append(f"Request {request}")
        lines += _step_lines(step, label_width)
    return "\n".join(lines)
