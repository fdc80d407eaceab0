"""What the chat formats (slack_message.py, teams_message.py) show of a notification, before
either gives it its shape: a headline in Gatehouse's own words, the sentence, the details as
(label, value) pairs, the context line, the link, and the Slack-escaped line for places that
only take text.

Every value here that a requester or a server chose (capability, requester, reviewer, review
and thread ids, flags) is one line of visible characters (webhook_message.one_line), cut to
VALUE_CHARS: the formats put such values only where the chat shows text as it is, never where
it reads markup, and a long one must not push a message past the chat's limits (Slack refuses
a whole message whose section text passes 3,000 characters).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gatehouse.notifications.webhook_message import one_line, review_link, sentence, text_line

# The most characters of one value a chat message shows; the review's page shows it all.
VALUE_CHARS = 200

# Gatehouse's own words for each event: the only text a format may put where markup is read.
HEADLINES = {
    "review_opened": "Review waiting for a decision",
    "review_decided:approved": "Request approved",
    "review_decided:rejected": "Request rejected",
    "review_expired": "Request expired undecided",
    "review_cancelled": "Request withdrawn",
}
UNKNOWN_HEADLINE = "Review updated"
BUTTON_TITLE = "Open the review"


def shown_value(text: object) -> str:
    """A value from a requester or a server as a chat shows it: one visible line, cut."""
    line = one_line(text)
    return line if len(line) <= VALUE_CHARS else line[: VALUE_CHARS - 1] + "\u2026"


@dataclass(frozen=True)
class ChatCard:
    # Gatehouse's words only (HEADLINES).
    headline: str
    # Who asked for what and what became of it, values as shown_value writes them.
    sentence: str
    # (label, value): labels are Gatehouse's words, values shown_value's.
    details: list[tuple[str, str]]
    # The review's id and when it happened, for a small line under the details.
    context: str
    # The review on the Reviews page; None without GATEHOUSE_PUBLIC_URL.
    link: str | None
    # The whole notification as one line escaped for Slack's mrkdwn (text_line).
    fallback: str
    # Whether the review waits for a reviewer (a chat may make its button stand out).
    waiting: bool


def headline(fields: dict[str, Any]) -> str:
    event = str(fields.get("event"))
    if event == "review_decided":
        event += ":rejected" if fields.get("status") == "rejected" else ":approved"
    return HEADLINES.get(event, UNKNOWN_HEADLINE)


def chat_card(fields: dict[str, Any], public_url: str | None) -> ChatCard:
    link = review_link(public_url, str(fields.get("review_id") or ""))
    flags = [str(code) for code in fields.get("flags") or []]
    details = [
        ("Capability", shown_value(fields.get("capability") or "unknown")),
        ("Requester", shown_value(fields.get("requester") or "unknown")),
    ]
    if fields.get("decided_by"):
        details.append(("Decided by", shown_value(fields["decided_by"])))
    details.append(("Flags", shown_value(", ".join(flags)) if flags else "none"))
    when = f" \u00b7 {shown_value(fields['at'])}" if fields.get("at") else ""
    return ChatCard(
        headline=headline(fields),
        sentence=sentence(fields, shown_value),
        details=details,
        context=f"Review {shown_value(fields.get('review_id') or '')}{when}",
        link=link,
        fallback=text_line(fields, link),
        waiting=fields.get("event") == "review_opened",
    )
