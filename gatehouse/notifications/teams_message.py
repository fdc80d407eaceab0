"""A notification as a Microsoft Teams workflow takes it ("When a Teams webhook request is
received", then post the card): a message whose one attachment is an Adaptive Card 1.5, with
an Action.OpenUrl to the review.

Teams reads a TextBlock's text (and a Fact's) as Markdown: ``[label](url)`` is a link, ``**``
bold, a line starting ``-`` a list. Only Gatehouse's own words go in a TextBlock here; every
value a requester or a server chose goes in a TextRun of a RichTextBlock, whose text the
Adaptive Cards schema says is never Markdown, so it shows as it is. (Backslash escapes in
TextBlocks are drawn differently by Teams' desktop and mobile clients; TextRuns need none.)
"""

from __future__ import annotations

from typing import Any

from gatehouse.notifications.chat_card import BUTTON_TITLE, chat_card

ADAPTIVE_CARD_TYPE = "application/vnd.microsoft.card.adaptive"
# 1.5: the newest version Teams draws in channels and chats.
ADAPTIVE_CARD_VERSION = "1.5"
ADAPTIVE_CARD_SCHEMA = "http://adaptivecards.io/schemas/adaptive-card.json"


def _run(text: str, **style: Any) -> dict[str, Any]:
    return {"type": "TextRun", "text": text, **style}


def _runs(*inlines: dict[str, Any], **block: Any) -> dict[str, Any]:
    return {"type": "RichTextBlock", "inlines": list(inlines), **block}


def adaptive_card(fields: dict[str, Any], public_url: str | None) -> dict[str, Any]:
    """The Adaptive Card for one notification."""
    card = chat_card(fields, public_url)
    body: list[dict[str, Any]] = [
        {
            "type": "TextBlock",
            "text": card.headline,
            "style": "heading",
            "size": "Medium",
            "weight": "Bolder",
            "wrap": True,
        },
        _runs(_run(card.sentence)),
        *(
            _runs(_run(f"{label}: ", weight="Bolder"), _run(value), spacing="Small")
            for label, value in card.details
        ),
        _runs(_run(card.context, isSubtle=True, size="Small")),
    ]
    content: dict[str, Any] = {
        "$schema": ADAPTIVE_CARD_SCHEMA,
        "type": "AdaptiveCard",
        "version": ADAPTIVE_CARD_VERSION,
        "body": body,
    }
    if card.link:
        action: dict[str, Any] = {"type": "Action.OpenUrl", "title": BUTTON_TITLE, "url": card.link}
        if card.waiting:
            action["style"] = "positive"
        content["actions"] = [action]
    return content


def teams_body(fields: dict[str, Any], public_url: str | None) -> dict[str, Any]:
    """The JSON posted to a Teams workflow's webhook for one notification."""
    return {
        "type": "message",
        "attachments": [
            {
                "contentType": ADAPTIVE_CARD_TYPE,
                "contentUrl": None,
                "content": adaptive_card(fields, public_url),
            }
        ],
    }
