"""Connecting a remote server behind OAuth from the app: an administrator presses Connect on
the Servers page, signs in on the authorization server's page (a real one on 127.0.0.1, which
approves at once), comes back to the app, and the server is connected for everyone; the
operator's requests can then choose its tool, and the database holds no token in the clear."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from playwright.sync_api import Browser, expect

from tests.browser.harness import AppServer, no_exception, open_page, running_app, send_chat, wait_for_app
from tests.http_servers import serving


@pytest.fixture
def app_with_remote_server(tmp_path: Path) -> Iterator[AppServer]:
    with serving("tests.oauth_server") as port:
        remote = {"notes": {"type": "http", "url": f"http://127.0.0.1:{port}/mcp"}}
        secret = {"GATEHOUSE_SECRET_KEY": Fernet.generate_key().decode()}
        with running_app(tmp_path / "app", remote_servers=remote, extra_env=secret) as app:
            yield app


def test_an_admin_connects_a_remote_server_and_the_operator_uses_it(
    browser: Browser, app_with_remote_server: AppServer
) -> None:
    app = app_with_remote_server
    operator = open_page(browser, app.page_url("servers?as=operator"))
    notes = operator.locator(".st-key-server-notes")
    expect(notes.get_by_text("needs sign-in")).to_be_visible()
    expect(notes.get_by_role("button", name="Connect")).to_have_count(0)  # not the operator's to do

    admin = open_page(browser, app.page_url("servers?as=admin"))
    row = admin.locator(".st-key-server-notes")
    row.get_by_role("button", name="Connect").click()
    with admin.context.expect_page() as opened:
        row.get_by_role("link", name="Open the sign-in page").click()
    returned = opened.value
    # The authorization server sends the browser straight back to the Servers page.
    returned.wait_for_url(f"{app.url}/servers*")
    wait_for_app(returned)
    expect(returned.get_by_text("Back from signing in to notes")).to_be_visible()

    expect(row.get_by_text("connected · 1 tool, 0 prompts, 0 resources")).to_be_visible(timeout=30_000)
    expect(row.get_by_text("Connected by admin")).to_be_visible()
    expect(notes.get_by_text("connected · 1 tool, 0 prompts, 0 resources")).to_be_visible(timeout=30_000)
    no_exception(admin)

    operator.goto(app.page_url("?as=operator"))
    wait_for_app(operator)
    send_chat(operator, "whoami on notes")
    # The new server's tool is offered like any other: chosen, and (a tool the policy does not
    # know) waiting for a reviewer.
    expect(operator.get_by_text("notes__whoami").first).to_be_visible(timeout=30_000)
    expect(
        operator.get_by_placeholder("Waiting for a reviewer: start a new thread to ask something else")
    ).to_be_visible()

    database = b"".join(path.read_bytes() for path in app.data.glob("gatehouse.db*"))
    assert b"access_token" not in database and b"refresh_token" not in database
