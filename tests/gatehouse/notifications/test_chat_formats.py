"""Notifications as Slack and Microsoft Teams take them: a Block Kit message that slack_sdk's
models accept and an Adaptive Card that the Adaptive Cards schema accepts, each with a button
to the review, and nothing a requester or a server wrote that the chat would read as a link, a
mention or markup."""

from __future__ import annotations

from typing import Any

import pytest
from slack_sdk.models.blocks import ActionsBlock, ButtonElement, ContextBlock, HeaderBlock, SectionBlock

from gatehouse.errors import ConfigurationError
from gatehouse.notifications.chat_card import HEADLINES, VALUE_CHARS
from gatehouse.notifications.message_formats import MESSAGE_BUILDERS
from gatehouse.notifications.slack_message import slack_body
from gatehouse.notifications.teams_message import adaptive_card, teams_body
from gatehouse.notifications.webhook_message import review_link, text_line
from gatehouse.settings import WEBHOOK_FORMATS, Settings
from tests.gatehouse.notifications.chat_checks import (
    adaptive_card_schema,
    checked_slack_blocks,
    checked_teams_card,
    walk,
)

PUBLIC_URL = "https://gatehouse.example.com/"


def _fields(event: str = "review_opened", **changes: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "event": event,
        "review_id": "t1-r1",
        "thread_id": "t1",
        "capability": "email__send_email",
        "requester": "operator",
        "decided_by": None,
        "status": "pending",
        "at": "2026-11-23T17:02:11.402+00:00",
        "stage": "before_execution",
        "flags": ["sends_messages", "open_world"],
    }
    return fields | changes


EVENTS = {
    "opened": _fields(),
    "approved": _fields("review_decided", status="approved", decided_by="reviewer"),
    "rejected": _fields("review_decided", status="rejected", decided_by="reviewer"),
    "expired": _fields("review_expired", status="expired"),
    "cancelled": _fields("review_cancelled", status="cancelled", decided_by="operator"),
}

# What a requester (a thread id, their name) or a server (a tool's name) could put in a
# notification to make Slack or Teams link somewhere, ping everyone, or dress text up as
# Gatehouse's own.
HOSTILE = _fields(
    "review_decided",
    status="approved",
    review_id="<!channel>-[open](https://evil.example/r)-r1",
    capability="evil__<!here>_<https://evil.example|Approve here>_[click](https://evil.example)",
    requester="@channel <@U0123> **mallory**\nApproved by security: no review needed",
    decided_by="<!everyone> <at>Everyone</at> # heading",
    flags=["<https://evil.example|ok>", "- [ ] list"],
)


# -- Slack ----------------------------------------------------------------------------------


@pytest.mark.parametrize("event", sorted(EVENTS))
def test_a_slack_message_is_block_kit_slack_sdk_accepts_with_a_button_to_the_review(event: str) -> None:
    fields = EVENTS[event]
    body = slack_body(fields, PUBLIC_URL)

    header, section, context, actions = checked_slack_blocks(body)

    link = review_link(PUBLIC_URL, "t1-r1")
    assert link == "https://gatehouse.example.com/reviews?review=t1-r1"
    assert isinstance(header, HeaderBlock) and header.text is not None
    assert header.text.text in HEADLINES.values()
    assert isinstance(section, SectionBlock) and section.text is not None and "t1-r1" in section.text.text
    assert section.fields is not None
    assert "Capability: email__send_email" in [field.text for field in section.fields]
    assert isinstance(context, ContextBlock)
    assert isinstance(actions, ActionsBlock)
    (button,) = actions.elements
    assert isinstance(button, ButtonElement) and button.url == link
    assert body["text"] == text_line(fields, link), "the fallback is the generic message's text"


def test_each_slack_headline_says_what_happened() -> None:
    headers = [slack_body(EVENTS[event], PUBLIC_URL)["blocks"][0]["text"]["text"] for event in EVENTS]

    assert headers == [
        "Review waiting for a decision",
        "Request approved",
        "Request rejected",
        "Request expired undecided",
        "Request withdrawn",
    ]


def test_slack_is_given_text_from_requesters_and_servers_only_as_plain_text_or_escaped() -> None:
    body = slack_body(HOSTILE, PUBLIC_URL)
    checked_slack_blocks(body)

    objects = list(walk(body["blocks"]))
    texts = [item for item in objects if item.get("type") in ("plain_text", "mrkdwn")]
    assert texts and all(item["type"] == "plain_text" for item in texts), "Slack reads no markup in any block"
    shown = " ".join(item["text"] for item in texts)
    assert "evil__<!here>_<https://evil.example|Approve here>" in shown, "shown as it is, not acted on"
    assert "\n" not in shown and "mallory**\\u000aApproved by security" in shown, "no line of its own"
    # The fallback is mrkdwn: no < or > reaches it, so no <url|label> link and no <!here>.
    assert "<" not in body["text"] and ">" not in body["text"]
    assert "&lt;!channel&gt;" in body["text"] and "&lt;!everyone&gt;" in body["text"]
    (button,) = [item for item in objects if item.get("type") == "button"]
    assert button["url"] == review_link(PUBLIC_URL, HOSTILE["review_id"])
    assert button["url"].startswith(PUBLIC_URL + "reviews?review=%3C%21channel%3E")


def test_a_slack_message_keeps_block_kits_limits_whatever_the_length_of_a_name() -> None:
    huge = _fields(
        capability="x" * 5000, requester="r" * 3000, review_id="t" * 3100 + "-r1", flags=["f" * 2500]
    )

    body = slack_body(huge, PUBLIC_URL)

    blocks = checked_slack_blocks(body)
    assert [block.type for block in blocks] == ["header", "section", "context"], (
        "a link longer than a button takes stays in the text only"
    )
    assert body["text"].endswith(str(review_link(PUBLIC_URL, huge["review_id"])))
    section = body["blocks"][1]
    assert f"Capability: {'x' * (VALUE_CHARS - 1)}\u2026" in [field["text"] for field in section["fields"]]


def test_without_a_public_address_a_slack_message_has_no_button() -> None:
    body = slack_body(EVENTS["opened"], None)

    assert [block.type for block in checked_slack_blocks(body)] == ["header", "section", "context"]


# -- Teams ----------------------------------------------------------------------------------


@pytest.mark.parametrize("event", sorted(EVENTS))
def test_a_teams_message_is_an_adaptive_card_the_schema_accepts_with_a_button_to_the_review(
    event: str,
) -> None:
    body = teams_body(EVENTS[event], PUBLIC_URL)

    card = checked_teams_card(body)

    (action,) = card["actions"]
    assert action == {
        "type": "Action.OpenUrl",
        "title": "Open the review",
        "url": "https://gatehouse.example.com/reviews?review=t1-r1",
        **({"style": "positive"} if event == "opened" else {}),
    }
    runs = " ".join(run["text"] for run in walk(card["body"]) if run.get("type") == "TextRun")
    assert "email__send_email" in runs and "t1-r1" in runs


def test_the_schema_refuses_a_card_teams_would_not_draw() -> None:
    """The check is not vacuous: an element with a property the schema does not define, or
    without one it requires, fails it."""
    schema = adaptive_card_schema()
    card = adaptive_card(EVENTS["opened"], PUBLIC_URL)
    assert schema.is_valid(card)

    card["body"][1]["inlines"][0]["markdown"] = True
    assert not schema.is_valid(card)
    assert not schema.is_valid({"type": "AdaptiveCard", "version": "1.5", "body": [{"type": "TextBlock"}]})
    assert not schema.is_valid(
        {"type": "AdaptiveCard", "version": "1.5", "actions": [{"type": "Action.OpenUrl"}]}
    )


def test_teams_reads_markdown_only_in_gatehouses_own_words_and_shows_the_rest_as_it_is() -> None:
    card = checked_teams_card(teams_body(HOSTILE, PUBLIC_URL))

    objects = list(walk(card))
    assert not [item for item in objects if item.get("type") in ("FactSet", "Fact")], (
        "a Fact's value is Markdown"
    )
    blocks = [item["text"] for item in objects if item.get("type") == "TextBlock"]
    assert blocks == ["Request approved"], "a TextBlock, read as Markdown, holds only Gatehouse's words"
    runs = " ".join(item["text"] for item in objects if item.get("type") == "TextRun")
    assert "[click](https://evil.example)" in runs and "<at>Everyone</at> # heading" in runs
    assert "**mallory**\\u000aApproved by security" in runs and "\n" not in runs
    (action,) = card["actions"]
    assert action["url"] == review_link(PUBLIC_URL, HOSTILE["review_id"])


def test_without_a_public_address_a_teams_card_has_no_action() -> None:
    card = checked_teams_card(teams_body(EVENTS["opened"], None))

    assert "actions" not in card


# -- the setting ----------------------------------------------------------------------------


def test_every_format_the_setting_names_has_a_message() -> None:
    assert sorted(MESSAGE_BUILDERS) == sorted(WEBHOOK_FORMATS) == ["generic", "slack", "teams"]


@pytest.mark.parametrize(
    ("value", "chosen"), [(None, "generic"), ("", "generic"), ("slack", "slack"), (" Teams ", "teams")]
)
def test_the_webhook_format_is_read_from_its_variable(value: str | None, chosen: str) -> None:
    environ = {"GATEHOUSE_WEBHOOK_FORMAT": value} if value is not None else {}

    assert Settings.resolve(environ=environ).webhook_format == chosen


def test_an_unknown_webhook_format_is_refused_naming_the_variable_and_the_choices() -> None:
    with pytest.raises(ConfigurationError) as refused:
        Settings.resolve(environ={"GATEHOUSE_WEBHOOK_FORMAT": "discord"})

    assert str(refused.value) == "GATEHOUSE_WEBHOOK_FORMAT: expected generic, slack or teams, got 'discord'"
