"""final_output as text a person reads in a terminal."""

from __future__ import annotations

from typing import Any

from gatehouse.display.no_call_words import NO_CALL_WORDS
from gatehouse.display.outcome import outcome_of
from gatehouse.display.visible_text import continued

_LABEL_WIDTH = 12
_FLAG_INDENT = 4


def _field(label: str, value: object) -> str:
    """One labelled line; a value with line breaks (tool output) continues indented under it."""
    return f"{label + ':':<{_LABEL_WIDTH}}{continued(str(value), _LABEL_WIDTH)}"


# An effect check's status in one word, for a table cell or a listing's row: a mismatch in
# capitals, so it stands out among "verified" (docs/effects.md).
EFFECT_WORDS = {"verified": "verified", "mismatch": "MISMATCH", "not_verified": "not verified"}


def effect_text(checked: dict[str, Any]) -> str:
    """What a reviewed call's effect read back as (docs/effects.md), in one line's words:
    ``verified: ...``, ``mismatch: ...`` or ``not verified: ...``, with the check's detail."""
    return f"{str(checked['status']).replace('_', ' ')}: {checked['detail']}"


def outcome_lines(output: dict[str, Any]) -> list[str]:
    """Who decided the review and when (this machine's local time), the reason, and each
    argument the reviewer changed as ``- proposed`` / ``+ what ran``."""
    outcome = outcome_of(output.get("review"))
    if outcome is None:
        return []
    lines = [_field("decided", outcome.headline)]
    if outcome.reason and output["status"] == "ok":
        lines.append(_field("reason", outcome.reason))  # otherwise it is in the reason line
    lines.extend(_field("changed", f"{change.name}\n{change.diff}") for change in outcome.changes)
    return lines


def render_text(output: dict[str, Any]) -> str:
    status = output["status"]
    said = NO_CALL_WORDS.get(output.get("no_call_reason") or "")
    # The status as the contract names it, and in words when no server was called (the chat's
    # badge says the same).
    lines = [
        _field("status", f"{status} ({said})" if said else status),
        _field("response", output["response"]),
    ]
    capability = output.get("selected_capability")
    if capability:
        lines.append(
            _field("capability", f"{capability['server']} / {capability['type']} / {capability['name']}")
        )
    summary = output.get("mcp_result_summary")
    if summary:
        state = "success" if summary.get("success") else f"failed ({summary.get('error_kind', 'error')})"
        extra = ", truncated at the size cap" if summary.get("truncated") else ""
        lines.append(_field("result", f"{state}, {summary.get('item_count', 0)} item(s){extra}"))
    # The reason is the machine's (scores and thresholds when nothing fits, kept for --json and
    # the trace): when nothing fits, the response says it in words.
    if output.get("fallback_reason") and status != "ok" and output.get("no_call_reason") != "nothing_fits":
        lines.append(_field("reason", output["fallback_reason"]))
    grant = output.get("grant")
    if grant:
        # Why it ran with no review: a reviewer's remembered approval covered it.
        lines.append(
            _field(
                "grant",
                f"ran without review under {grant['id']}, approved by {grant['by']} for {grant['scope']}"
                f" ({grant['bounds']}) until {grant['expires_at']}",
            )
        )
    checked = output.get("effect_check")
    if checked:
        # What the approved effect read back as after the call (docs/effects.md).
        lines.append(_field("effect", effect_text(checked)))
    review = output.get("review")
    if review:
        who = f", decided by {review['decided_by']}" if review.get("decided_by") else ""
        lines.append(_field("review", f"{review['id']} ({review['stage']}{who})"))
        lines.extend(
            f"  [{f['severity']}] {f['code']}: {continued(f['message'], _FLAG_INDENT)}"
            for f in review.get("flags", [])
        )
        lines.extend(outcome_lines(output))
    choices = (review or {}).get("choices") or []
    if choices:
        lines.append("choose:     " + "; ".join(f"{c['key']} ({c['title']})" for c in choices))
        lines.append(f'answer with: gatehouse ask --thread {output["thread_id"]} "{choices[0]["key"]}"')
    # Only a thread that waits for the operator's answer is offered one (as in the chat): a
    # refused call may lack an argument too, and no answer makes it run.
    if status == "needs_clarification" and output.get("missing_arguments"):
        lines.append(_field("missing", ", ".join(output["missing_arguments"])))
        example = f"{output['missing_arguments'][0]}=..."
        lines.append(f'answer with: gatehouse ask --thread {output["thread_id"]} "{example}"')
    lines.extend(_field("error", error) for error in output.get("errors", []))
    lines.extend(_field("note", note) for note in output.get("server_notes", []))
    lines.append(_field("thread", output["thread_id"]))
    return "\n".join(lines)
