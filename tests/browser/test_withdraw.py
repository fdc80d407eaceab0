"""Withdraw, in two browsers: the operator takes back an e-mail that waits for a reviewer; the
reviewer's open page counts it gone by itself, and their approval from the page opened before
is refused; the thread ends cancelled and nothing was sent."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from gatehouse.display.status_words import STATUS_WORDS
from tests.browser.harness import (
    ROOT,
    AppServer,
    OpenApp,
    expect_waiting_for_a_reviewer,
    go_to,
    no_exception,
    pick_identity,
    selectbox,
    send_chat,
    sidebar,
    wait_for_app,
)
from tests.browser.test_review_flow import EMAIL, outbox

# The sidebar's pending count refreshes every 5 s; allow a few rounds on a busy machine.
REFRESH_TIMEOUT_MS = 20_000


def cli(server: AppServer, *args: str) -> Any:
    """``gatehouse ... --json`` on the app's own database and servers, as an admin would run it."""
    env = os.environ | {
        "GATEHOUSE_DATA": str(server.data),
        "GATEHOUSE_SERVERS": str(server.data.parent / "servers.json"),
    }
    env.pop("GATEHOUSE_DB", None)
    env.pop("GATEHOUSE_POLICY", None)
    done = subprocess.run(
        [str(Path(sys.executable).parent / "gatehouse"), *args, "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_requester_withdraws_a_waiting_request_and_it_leaves_the_reviewers_queue(
    app_server: AppServer, open_app: OpenApp
) -> None:
    operator = open_app()
    send_chat(operator, EMAIL)
    expect_waiting_for_a_reviewer(operator)

    reviewer = open_app()
    pick_identity(reviewer, "reviewer")
    go_to(reviewer, "Reviews")
    expect(reviewer.get_by_text("Pending (1)")).to_be_visible()
    pending_count = sidebar(reviewer).get_by_test_id("stMetricValue")
    expect(pending_count).to_have_text("1")
    approve = reviewer.get_by_role("button", name="Approve", exact=True)
    expect(approve).to_be_enabled()

    operator.get_by_role("button", name="Withdraw this request").click()
    answer = operator.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("withdrawn", exact=True)).to_be_visible()
    expect(answer.get_by_text("operator withdrew the request")).to_be_visible()
    expect(operator.get_by_role("button", name="Withdraw this request")).to_have_count(0)
    expect(operator.get_by_test_id("stChatInputTextArea")).to_be_enabled()
    wait_for_app(operator)
    no_exception(operator)

    # The reviewer's page, opened before: the count drops by itself, no click, no reload.
    expect(pending_count).to_have_text("0", timeout=REFRESH_TIMEOUT_MS)
    # The open review says by itself who withdrew it, and its buttons go (the Reviews page is
    # live; a click from a page that is not is refused: test_what_you_see_runs.py).
    expect(reviewer.get_by_text(re.compile(r"was withdrawn by operator at .* \(cancelled\)"))).to_be_visible(
        timeout=REFRESH_TIMEOUT_MS
    )
    expect(approve).to_have_count(0)
    expect(reviewer.get_by_text("Pending (0)")).to_be_visible()
    wait_for_app(reviewer)
    no_exception(reviewer)

    # The thread's final status, as the operator's thread list and the trace record it.
    # The picker says it in the chat's words (status_words: cancelled is "withdrawn").
    expect(selectbox(operator, "Your threads")).to_have_value(
        re.compile(rf" · {STATUS_WORDS['cancelled']} · ")
    )
    [review] = cli(app_server, "reviews", "list")["reviews"]
    assert (review["status"], review["decided_by"]) == ("cancelled", "operator")
    steps = cli(app_server, "trace", review["thread_id"])["steps"]
    outputs = [step["values"]["final_output"] for step in steps if step.get("values", {}).get("final_output")]
    assert outputs[-1]["status"] == "cancelled"
    assert outbox(app_server.data) == []
