"""An agent outside Gatehouse, built on the TypeScript SDK's client from npm, sends an e-mail
through `gatehouse serve` and follows the task it gets; a reviewer approves it on the Reviews
page in Chromium, in the app on the same database; the client receives the result once, and
the e-mail is sent once (issue 35, "Proven by outsiders").

The client is tests/gatehouse/ts_client/gateway_client.mjs (tests/gatehouse/npm_clients.py
runs it); without the npm peers the test skips, or fails under GATEHOUSE_REQUIRE_PEERS=1."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect

from tests.browser.harness import AppServer, OpenApp, no_exception, reviewer_on_reviews, wait_for_app
from tests.gatehouse.gateway_support import Gateway, gatehouse_serve, issue_token
from tests.gatehouse.npm_clients import typescript_client

BODY = "approved in Chromium while the TypeScript client follows its task"


def test_a_reviewer_approves_in_chromium_while_the_typescript_client_waits_on_its_task(
    app_server: AppServer, open_app: OpenApp, tmp_path: Path
) -> None:
    # The app's own servers file and data folder: the endpoint opens its reviews in the app's
    # database, and both send through the same demo outbox.
    data, servers = app_server.data, app_server.data.parent / "servers.json"
    data.mkdir(exist_ok=True)  # the app makes it on its first page; the endpoint's log goes there
    with gatehouse_serve(data, servers, "--wait", "60") as url:
        gateway = Gateway(data, servers, url, url, {"operator": issue_token(data, servers, "operator")})
        with typescript_client(url, gateway.tokens["operator"], BODY, tmp_path) as agent:
            for event in ("connected", "tools", "allowed"):
                agent.expect(event)
            handle = agent.expect("task")["task"]
            assert handle["status"] == "working"

            reviewer = reviewer_on_reviews(open_app)
            expect(reviewer.get_by_text("Pending (1)")).to_be_visible()
            expect(reviewer.get_by_role("textbox", name="body *", exact=True)).to_have_value(BODY)
            assert gateway.sent(BODY) == 0
            reviewer.get_by_role("button", name="Approve", exact=True).click()
            expect(reviewer.get_by_text(re.compile(r"Outcome: ok"))).to_be_visible()
            wait_for_app(reviewer)
            no_exception(reviewer)

            agent.finish()
    polled = [line["task"] for line in agent.seen if line["event"] == "task"]
    assert {task["taskId"] for task in polled} == {handle["taskId"]}
    assert polled[-1]["status"] == "completed"
    [result] = [line for line in agent.seen if line["event"] == "result"]
    assert (result["kind"], result["result"]["isError"]) == ("task", False)
    assert result["result"]["structuredContent"]["queued"] is True
    assert gateway.sent(BODY) == 1
