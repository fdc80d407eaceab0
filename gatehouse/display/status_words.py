"""A thread's or an answer's status (final_output's ``status``) in the words the chat's badges
use, for places that show it as plain text: the thread picker's labels."""

from __future__ import annotations

STATUS_WORDS = {
    "ok": "done",
    "answered_without_mcp": "answered without a server",
    "needs_clarification": "needs your answer",
    "needs_review": "waiting for a reviewer",
    "rejected": "rejected",
    "expired": "expired",
    "cancelled": "withdrawn",
    "error": "error",
}


def status_words(status: str | None) -> str:
    """The words for ``status``; an unknown one as it is, underscores as spaces; "" for none."""
    if not status:
        return ""
    return STATUS_WORDS.get(status, status.replace("_", " "))
