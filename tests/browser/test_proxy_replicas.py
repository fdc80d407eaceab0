"""Two app replicas behind one address: HAProxy with sticky sessions (deploy/haproxy.cfg, run as
docs/replicas.md shows), both replicas on one SQLite file with the same secrets. An operator
files a request through the proxy on one replica; a reviewer, through the same address, lands on
the other and decides it; the operator's page shows the outcome; the review is decided once and
its call ran once, on the reviewer's replica.

Without HAProxy the test is skipped with the reason, or fails under GATEHOUSE_REQUIRE_BROWSER=1
(CI installs it: .ci/run; tests/browser/proxy.py runs it)."""

from __future__ import annotations

import re
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import ExitStack, closing
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from playwright.sync_api import Browser, Page, expect

from tests.browser.harness import (
    AppServer,
    expect_waiting_for_a_reviewer,
    go_to,
    new_page,
    no_exception,
    pick_identity,
    running_app,
    send_chat,
    visit,
    wait_for_app,
)
from tests.browser.proxy import REPLICAS, replica_of, running_proxy
from tests.browser.test_review_flow import outbox

EMAIL = "Send an email to bob@example.com saying hi through the proxy"
# The operator's page follows a waiting thread every 3 s; a few rounds on a busy machine.
FOLLOW_TIMEOUT_MS = 20_000


@dataclass(frozen=True)
class Proxied:
    url: str  # the one address people use
    replicas: dict[str, AppServer]  # by the server name in deploy/haproxy.cfg


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[Proxied]:
    database = tmp_path / "shared" / "gatehouse.db"
    database.parent.mkdir()
    # The secrets every replica shares (docs/replicas.md), made for this test.
    shared = {
        "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_urlsafe(32),
        "GATEHOUSE_SECRET_KEY": Fernet.generate_key().decode(),
    }
    with ExitStack() as stack:
        replicas = {
            name: stack.enter_context(running_app(tmp_path / name, db_url=str(database), extra_env=shared))
            for name in REPLICAS
        }
        url = stack.enter_context(running_proxy(tmp_path, replicas))
        yield Proxied(url, replicas)


def _open_on_another_replica(browser: Browser, url: str, taken: str, pages: list[Page]) -> Page:
    """A new person at the proxy's address, on a replica other than ``taken`` (the proxy hands
    new browsers out in turn, so the next one already is)."""
    for _ in range(3):
        page = new_page(browser)
        pages.append(page)
        visit(page, url)
        if replica_of(page) != taken:
            return page
    raise AssertionError(f"the proxy sent three new browsers to {taken}: no balancing")


def _decisions(database: Path) -> list[tuple[str, int]]:
    with closing(sqlite3.connect(database)) as conn:
        rows = conn.execute(
            "SELECT r.status, (SELECT COUNT(*) FROM review_decisions d WHERE d.review_id = r.id) FROM reviews r"
        ).fetchall()
    return [(str(status), int(count)) for status, count in rows]


def test_behind_the_proxy_a_request_filed_on_one_replica_is_decided_on_the_other_and_its_outcome_reaches_the_operator(
    browser: Browser, proxied: Proxied, tmp_path: Path
) -> None:
    pages: list[Page] = []
    try:
        operator = new_page(browser)
        pages.append(operator)
        visit(operator, proxied.url)
        filed_on = replica_of(operator)
        send_chat(operator, EMAIL)
        expect_waiting_for_a_reviewer(operator)

        reviewer = _open_on_another_replica(browser, proxied.url, filed_on, pages)
        decided_on = replica_of(reviewer)
        pick_identity(reviewer, "reviewer")
        go_to(reviewer, "Reviews")
        expect(reviewer.get_by_text("Pending (1)")).to_be_visible()  # the one queue
        expect(reviewer.get_by_text(EMAIL).first).to_be_visible()
        reviewer.get_by_role("button", name="Approve", exact=True).click()
        expect(reviewer.get_by_text(re.compile(r"Outcome: ok"))).to_be_visible()
        wait_for_app(reviewer)

        # The operator, untouched, on the other replica: the outcome shows by itself.
        answer = operator.get_by_test_id("stChatMessage").last
        expect(answer.get_by_text("done")).to_be_visible(timeout=FOLLOW_TIMEOUT_MS)
        # Sticky: each browser stayed on its replica throughout (its WebSocket included).
        assert (replica_of(operator), replica_of(reviewer)) == (filed_on, decided_on)
        for page in pages:
            no_exception(page)
    finally:
        for page in pages:
            page.context.close()

    # No review lost or doubled: one review, decided once; its call ran once, on the replica
    # whose reviewer approved it (each replica runs its own demo servers, in its own folder).
    assert _decisions(tmp_path / "shared" / "gatehouse.db") == [("executed", 1)]
    sent = {name: [m["body"] for m in outbox(server.data)] for name, server in proxied.replicas.items()}
    assert sent[decided_on] == ["hi through the proxy"]
    assert sent[filed_on] == []
