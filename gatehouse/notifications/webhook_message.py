"""What a generic webhook receiver gets: a Slack-compatible ``text`` a person can read, beside
the structured fields; the sentence and the link the chat formats (slack_message.py,
teams_message.py) build on; and the webhook's address as it may be shown (its token hidden)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from gatehouse.display.visible_text import visible
from gatehouse.settings import REVIEWS_PAGE_PATH
from policies.secrets import DEFAULT_REDACTOR, REDACTED


def shown_url(url: str) -> str:
    """The webhook's address for messages and pages: only its scheme and host (a webhook URL
    often carries its token in the path, where no secret detector can tell it from a name)."""
    parts = urlsplit(url)
    if not parts.netloc:
        return REDACTED
    origin = DEFAULT_REDACTOR.url(f"{parts.scheme}://{parts.netloc}")
    return f"{origin}/{REDACTED}" if parts.path.strip("/") or parts.query else origin


def review_link(public_url: str | None, review_id: str) -> str | None:
    """The Reviews page with ``?review=ID`` on the app's public address, if one is configured.

    The page's own address, not the app's root: the root is the Chat page. (A link to any
    page with ``?review=`` still lands on the review, gatehouse/web/review_link.py, so links
    sent before this one keep working.)"""
    if not public_url:
        return None
    base = public_url if urlsplit(public_url).path.endswith("/") else public_url + "/"
    return urljoin(base, f"{REVIEWS_PAGE_PATH}?review={quote(review_id, safe='')}")


def slack_literal(text: object) -> str:
    """Text from requesters and servers, as Slack shows it literally: control characters
    visible, and no ``<...>`` it would turn into a link or an @channel mention."""
    return visible(str(text)).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def one_line(text: object) -> str:
    """Text from requesters and servers for a place that shows it as it is (Slack's plain_text,
    an Adaptive Card's TextRun): control characters visible, and a line break or tab too, so a
    requester cannot start a line that reads as Gatehouse's own."""
    return visible(str(text)).replace("\n", "\\u000a").replace("\t", "\\u0009")


Quoting = Callable[[object], str]


def sentence(fields: dict[str, Any], literal: Quoting = slack_literal) -> str:
    """Who asked for what and what became of it, each value from a requester or a server
    written with ``literal``."""
    who = literal(fields.get("requester") or "someone")
    capability = literal(fields.get("capability") or "a capability")
    by = literal(fields.get("decided_by") or "someone")
    review = literal(fields.get("review_id"))
    event = fields.get("event")
    if event == "review_opened":
        return f"{who} asked for {capability}: review {review} waits for a reviewer."
    if event == "review_decided":
        verb = "approved" if fields.get("status") != "rejected" else "rejected"
        return f"{by} {verb} {who}'s request for {capability} (review {review})."
    if event == "review_expired":
        return f"{who}'s request for {capability} expired before anyone decided it (review {review})."
    if event == "review_cancelled":
        whose = "their" if fields.get("decided_by") == fields.get("requester") else f"{who}'s"
        return f"{by} withdrew {whose} request for {capability} (review {review})."
    return f"Review {review} of {who}'s request for {capability}: {literal(event)}."


def text_line(fields: dict[str, Any], link: str | None) -> str:
    """The one line a chat shows for a notification: the sentence, the flags' codes and the
    link, escaped for Slack's mrkdwn (the generic body's ``text``, a Slack message's fallback)."""
    flags = [str(code) for code in fields.get("flags") or []]
    text = sentence(fields) + (
        f" Flags: {', '.join(slack_literal(f) for f in flags)}." if flags else " No flags."
    )
    return f"{text} {link}" if link else text


def webhook_body(fields: dict[str, Any], public_url: str | None) -> dict[str, Any]:
    """The JSON posted: ``text`` (who asked for what, the flags' codes, the link) and the fields."""
    link = review_link(public_url, str(fields.get("review_id") or ""))
    return {"text": text_line(fields, link), **fields, "url": link}
