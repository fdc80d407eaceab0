"""What a webhook receiver reads: a sentence a person can read, nothing Slack would act on,
and the webhook's address shown without its token."""

from __future__ import annotations

import pytest

from gatehouse.errors import ConfigurationError
from gatehouse.notifications.webhook_message import review_link, shown_url, webhook_body
from gatehouse.settings import Settings


def test_text_from_requesters_and_servers_cannot_mention_a_channel_or_make_a_link() -> None:
    fields = {
        "event": "review_opened",
        "review_id": "t-r1",
        "capability": "evil__<!channel>_<https://evil.example|click>",
        "requester": "mallory\u202e",
        "flags": ["suspicious_text"],
    }

    body = webhook_body(fields, None)

    assert body["text"] == (
        "mallory\\u202e asked for evil__&lt;!channel&gt;_&lt;https://evil.example|click&gt;:"
        " review t-r1 waits for a reviewer. Flags: suspicious_text."
    )
    assert body["capability"] == fields["capability"], "the structured fields stay exact"
    assert body["url"] is None


@pytest.mark.parametrize(
    ("base", "link"),
    [
        ("https://gatehouse.example.com", "https://gatehouse.example.com/reviews?review=t%2Fx-r1"),
        ("https://gatehouse.example.com/", "https://gatehouse.example.com/reviews?review=t%2Fx-r1"),
        ("https://example.com/gatehouse/", "https://example.com/gatehouse/reviews?review=t%2Fx-r1"),
        ("https://example.com/gatehouse", "https://example.com/gatehouse/reviews?review=t%2Fx-r1"),
    ],
)
def test_the_link_opens_the_review_on_the_apps_public_address(base: str, link: str) -> None:
    assert review_link(base, "t/x-r1") == link


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX",
            "https://hooks.slack.com/***",
        ),
        ("https://user:pa55word@hooks.example.com/in?token=abc123", "https://***@hooks.example.com/***"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
    ],
)
def test_the_webhook_url_is_shown_without_its_path_query_or_password(url: str, shown: str) -> None:
    assert shown_url(url) == shown


def test_a_webhook_url_that_is_not_http_is_refused_naming_the_variable_not_the_token() -> None:
    with pytest.raises(ConfigurationError) as refused:
        Settings.resolve(environ={"GATEHOUSE_WEBHOOK_URL": "hooks.example.com/T0KEN-s3cr3t"})

    assert str(refused.value).startswith("GATEHOUSE_WEBHOOK_URL: expected an http:// or https:// URL")
    assert "T0KEN" not in str(refused.value)
