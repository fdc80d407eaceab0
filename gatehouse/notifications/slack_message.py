"""A notification as a Slack incoming webhook takes it: a Block Kit message (a header, the
sentence with the details as fields, a context line, a button to the review) and ``text``, the
line Slack shows in notifications and where blocks cannot be drawn.

Slack reads mrkdwn (links ``<url|label>``, mentions ``<!here>``, ``<@U123>``) in ``mrkdwn``
text objects and in ``text``. Here every block's text is ``plain_text``, which Slack shows as
it is, and ``text`` has ``&``, ``<`` and ``>`` escaped (webhook_message.slack_literal): a
capability name, requester or id cannot make a link or a mention. Block Kit's limits are kept
(chat_card.VALUE_CHARS cuts long values), since Slack refuses a whole message that breaks one.
"""

from __future__ import annotations

from typing import Any

from gatehouse.notifications.chat_card import BUTTON_TITLE, chat_card

# Slack's limit on a button's url; a longer link (a huge review id) stays in ``text`` only.
BUTTON_URL_CHARS = 3000


def _plain(text: str) -> dict[str, Any]:
    # emoji off: ":name:" in a requester's text stays those characters.
    return {"type": "plain_text", "text": text, "emoji": False}


def slack_body(fields: dict[str, Any], public_url: str | None) -> dict[str, Any]:
    """The JSON posted to a Slack incoming webhook for one notification."""
    card = chat_card(fields, public_url)
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": _plain(card.headline)},
        {
            "type": "section",
            "text": _plain(card.sentence),
            "fields": [_plain(f"{label}: {value}") for label, value in card.details],
        },
        {"type": "context", "elements": [_plain(card.context)]},
    ]
    if card.link and len(card.link) <= BUTTON_URL_CHARS:
        button: dict[str, Any] = {
            "type": "button",
            "text": _plain(BUTTON_TITLE),
            "url": card.link,
            "action_id": "open_review",
        }
        if card.waiting:
            button["style"] = "primary"
        blocks.append({"type": "actions", "elements": [button]})
    # unfurl off: the link is to Gatehouse, whose preview would be its sign-in page.
    return {"text": card.fallback, "blocks": blocks, "unfurl_links": False, "unfurl_media": False}
