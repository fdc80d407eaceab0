"""Text for `gatehouse reviews ...` and `audit ...` (`trace ...`: trace_text.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from gatehouse.display.render import EFFECT_WORDS, effect_text, outcome_lines
from gatehouse.display.visible_text import continued

if TYPE_CHECKING:
    from reviews.ledger import Review


def review_row(review: Review, now: datetime | None = None) -> dict[str, Any]:
    moment = now or datetime.now(UTC)
    left = (datetime.fromisoformat(review.expires_at) - moment).total_seconds()
    return {
        "id": review.id,
        "status": review.status,
        "stage": review.stage,
        "created_at": review.created_at,
        "expires_at": review.expires_at,
        "seconds_left": max(int(left), 0) if review.status == "pending" else None,
        # Listing writes nothing: a pending review past its deadline waits for a sweep to expire it.
        "overdue": review.status == "pending" and left <= 0,
        "category": review.category,
        "requester": review.requester,
        "server": review.capability.get("server"),
        "capability": review.capability.get("name"),
        # What ran (or will run): a reviewer's edited arguments once approved, else the proposal.
        "arguments": review.approved_arguments() or review.arguments,
        "proposed_arguments": review.arguments,
        "flags": [flag.get("code") for flag in review.flags],
        "approvals": [d.reviewer for d in review.approvals()],
        "required_approvals": review.required_approvals,
        "decided_by": review.decided_by,
        "decided_at": review.decided_at,
        "thread_id": review.thread_id,
        # What the approved call's effect read back as after it ran (None: nothing read back).
        "effect_check": review.effect_check.model_dump() if review.effect_check is not None else None,
        # Where the thread lives when not here ('langgraph-api'): its caller resumes it.
        "served_by": review.served_by,
    }


# How much of a review's arguments its row shows: enough to tell requests apart (a recipient, a
# path, the start of a body) while the row stays one line; `--json` has them whole.
ARGUMENTS_WIDTH = 80


def _arguments(value: Any) -> str:
    """Arguments as compact JSON on one line (a line break in a value is its escape), cut with
    an ellipsis. The row is redacted before it gets here, so a secret is already hidden. Not
    graph.results_view.clip: listing the queue imports nothing of the graph."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= ARGUMENTS_WIDTH else text[: ARGUMENTS_WIDTH - 1] + "…"


def _arguments_cell(row: dict[str, Any]) -> str:
    """What the reviewer decides on: what ran (or will), beside the proposal when an edited
    approval ran instead (docs/cli.md)."""
    cell = f"args: {_arguments(row['arguments'])}"
    if row["proposed_arguments"] != row["arguments"]:
        cell += f"  proposed: {_arguments(row['proposed_arguments'])}"
    return cell


def render_queue(report: dict[str, Any]) -> str:
    rows = report["reviews"]
    if not rows:
        return "no reviews" + (f" with status {report['status']}" if report.get("status") else "")
    lines = []
    for row in rows:
        left = f"{row['seconds_left'] // 60} min left" if row["seconds_left"] is not None else row["status"]
        if row.get("overdue"):
            left = "overdue"
        line = (
            f"{row['id']}  {row['status']:<15} {left:<12} {row['category'] or '-':<16} "
            f"{row['requester']:<10} {row['server']}/{row['capability']}  {_arguments_cell(row)}"
            f"  flags: {', '.join(row['flags']) or '-'}"
        )
        checked = row.get("effect_check")
        if checked:
            # What the approved effect read back as: a mismatch in capitals, and what differs
            # on the line below.
            line += f"  effect: {EFFECT_WORDS.get(checked['status'], checked['status'])}"
        # A capability's name is the server's to choose; a line break in it stays in its row.
        lines.append(continued(line, 2))
        if checked and checked["status"] == "mismatch":
            lines.append(continued(f"  mismatch: {checked['detail']}", 4))
    overdue = sum(1 for row in rows if row.get("overdue"))
    if overdue:
        lines.append(f"{overdue} past the deadline: `gatehouse reviews sweep` expires them")
    return "\n".join(lines)


def render_decision(report: dict[str, Any]) -> str:
    review = report["review"]
    if review["stage"] == "sampling":
        # No thread resumes: the server's call, waiting for this decision, gets it.
        gets = "the answer" if review["status"] in {"approved", "executed"} else "an error"
        return f"review {review['id']}: {review['status']}; {review['server']} gets {gets}"
    if report.get("final_output") is None and review.get("served_by") and review["status"] != "pending":
        # Nothing resumed here: the thread is on the LangGraph API server (docs/langgraph-studio.md).
        return (
            f"review {review['id']}: {review['status']} (recorded); its thread is served by "
            f"{review['served_by']}: resume it with the value `gatehouse reviews resume-value "
            f"{review['id']}` prints"
        )
    if report.get("final_output") is None:
        # Approvals count per exact arguments: an edit starts its own count.
        approvals, required = report.get("approvals", 0), report.get("required", review["required_approvals"])
        return (
            f"review {review['id']}: approval recorded ({approvals} of {required} for these arguments); "
            f"it runs after {required - approvals} more"
        )
    output = report["final_output"]
    grant = report.get("grant")
    remembered = (
        [
            f"remembered as grant {grant['id']} for {grant['scope']} ({grant['bounds']}) until {grant['expires_at']}"
        ]
        if grant
        else []
    )
    # What the approved effect read back as after the call (docs/effects.md).
    checked = output.get("effect_check")
    effect = [f"effect:   {continued(effect_text(checked), len('effect:   '))}"] if checked else []
    return "\n".join(
        [
            f"review {review['id']}: {review['status']}\nstatus:   {output['status']}\n"
            f"response: {continued(output['response'], len('response: '))}",
            *effect,
            *outcome_lines(output),
            *remembered,
        ]
    )


def dumps(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)
