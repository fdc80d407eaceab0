"""Two people, two browsers: an operator's e-mail waits for a reviewer, who approves it in
another browser context; the operator's page shows it sent, and it was sent exactly once."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import expect

from tests.browser.harness import (
    AppServer,
    OpenApp,
    go_to,
    no_exception,
    reviewer_on_reviews,
    screenshot,
    send_chat,
    wait_for_app,
)

EMAIL = "Send an email to bob@example.com saying hi"
# The operator's page follows a waiting thread every 3 s; allow a few rounds on a busy machine.
FOLLOW_TIMEOUT_MS = 20_000


def outbox(data: Path) -> list[dict[str, object]]:
    path = data / "demo" / "outbox.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_a_reviewer_in_another_browser_approves_and_the_operator_sees_it_sent(
    app_server: AppServer, open_app: OpenApp
) -> None:
    operator = open_app(height=1100)
    send_chat(operator, EMAIL)
    answer = operator.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("waiting for a reviewer")).to_be_visible()
    expect(answer.get_by_text("sends_messages")).to_be_visible()
    expect(operator.get_by_test_id("stChatInputTextArea")).to_be_disabled()
    no_exception(operator)
    screenshot(operator, "chat")
    assert outbox(app_server.data) == []

    reviewer = reviewer_on_reviews(open_app)
    expect(reviewer.get_by_text("Pending (1)")).to_be_visible()
    expect(reviewer.get_by_text("bob@example.com").first).to_be_visible()
    expect(reviewer.get_by_text(EMAIL).first).to_be_visible()
    # The argument form, built from the tool's input schema, holds the proposed arguments.
    expect(reviewer.get_by_role("textbox", name="to *", exact=True)).to_have_value("bob@example.com")
    expect(reviewer.get_by_role("textbox", name="body *", exact=True)).to_have_value("hi")
    # Streamlit loads some element kinds lazily: wait until they are drawn before the picture.
    expect(reviewer.get_by_text("read_only_hint")).to_be_visible()
    expect(reviewer.get_by_role("radio", name="Form")).to_be_visible()
    # The queue's table is folded under the picker (the decision keeps the first screen): open it.
    reviewer.get_by_text(re.compile(r"^The queue as a table")).click()
    for table in reviewer.get_by_test_id("stDataFrame").all():
        expect(table.locator("canvas").first).to_be_visible()
    no_exception(reviewer)
    screenshot(reviewer, "reviews")

    reviewer.get_by_role("button", name="Approve", exact=True).click()
    expect(reviewer.get_by_text(re.compile(r"Outcome: ok"))).to_be_visible()
    expect(reviewer.get_by_text("Pending (0)")).to_be_visible()
    wait_for_app(reviewer)
    no_exception(reviewer)

    # The operator's page updates by itself: no reload, no click.
    done = operator.get_by_test_id("stChatMessage").last
    expect(done.get_by_text("done")).to_be_visible(timeout=FOLLOW_TIMEOUT_MS)
    expect(operator.get_by_test_id("stChatInputTextArea")).to_be_enabled()
    no_exception(operator)

    [sent] = outbox(app_server.data)
    assert sent["to"] in (["bob@example.com"], "bob@example.com")

    go_to(operator, "Traces")
    expect(operator.get_by_text(re.compile(r"^Approved by reviewer at "))).to_be_visible()
    expect(operator.get_by_test_id("stGraphVizChart")).to_be_visible()
    no_exception(operator)
    screenshot(operator, "traces")
    assert len(outbox(app_server.data)) == 1
