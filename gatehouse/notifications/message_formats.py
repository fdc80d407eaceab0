"""Which body each webhook format posts (GATEHOUSE_WEBHOOK_FORMAT, gatehouse/settings.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gatehouse.notifications.slack_message import slack_body
from gatehouse.notifications.teams_message import teams_body
from gatehouse.notifications.webhook_message import webhook_body
from gatehouse.settings import WebhookFormat

# (a notification's fields, the app's public address) -> the JSON posted.
MessageBuilder = Callable[[dict[str, Any], str | None], dict[str, Any]]

MESSAGE_BUILDERS: dict[WebhookFormat, MessageBuilder] = {
    "generic": webhook_body,
    "slack": slack_body,
    "teams": teams_body,
}
