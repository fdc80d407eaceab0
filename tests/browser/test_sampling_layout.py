"""A server's request for a model completion, reviewed in a real browser as a tool call is
(tests/browser/test_review_layout.py): on a laptop (1280x800) and on a phone (390x844) the
request's messages and both buttons are on the first screen, without scrolling, long messages
scrolling inside their own box; who may not decide reads why before the messages and gets no
button; and while an approval is carried out (the configured model writes the answer) both
buttons are disabled and the page says what runs, so a second click or key decides nothing.

The request comes from tests/mcp_host/sampling_server.py, called by this test's own process
for the operator's request on the app's database (a request for a completion waits on the
ledger, whichever process's call it is). The model is an OpenAI-compatible endpoint on
127.0.0.1 that answers only once the test lets it. Each test leaves no request pending."""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from gatehouse.settings import Settings
from gatehouse.wiring import Services, open_services
from mcp_host.results import McpResult
from reviews.ledger import Review
from tests.browser.harness import (
    ROOT,
    RUN_TIMEOUT_MS,
    AppServer,
    no_exception,
    running_app,
    wait_for_app,
)
from tests.browser.layout import (
    LAPTOP,
    PHONE,
    approve_button,
    box,
    messages_box,
    on_screen,
    reject_button,
    reviews_at,
    scrolled,
    settle,
)
from tests.reviews.test_sampling_reviews import operators_call, pending_request, text_of

MODEL = "openai:gpt-4.1-mini"
MODEL_ANSWER = "Monday at noon suits me."
# The messages box's bound (gatehouse/web/decision_style.py: 38% of the window), with a margin.
BOX_SHARE = 0.40
# Pixels of the messages' box on the first screen: its heading, the role, two lines of the message.
SHOWN_AT_LEAST = 120
LONG_MESSAGE = "a long message the server wants answered " * 60
# How long the held model waits for the test at most: a test that fails early leaves no thread.
HOLD_SECONDS = 60.0


@dataclass
class HeldModel:
    """The model endpoint: the requests it got, and the switch that lets it answer."""

    url: str
    release: threading.Event = field(default_factory=threading.Event)
    requests: list[dict[str, Any]] = field(default_factory=list)


def _handler(model: HeldModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            model.requests.append(json.loads(self.rfile.read(length) or b"{}"))
            model.release.wait(HOLD_SECONDS)
            body = json.dumps(
                {
                    "id": "chatcmpl-held",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "gpt-4.1-mini",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": MODEL_ANSWER},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler


@pytest.fixture(scope="module")
def held_model() -> Iterator[HeldModel]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    model = HeldModel(url=f"http://127.0.0.1:{server.server_address[1]}/v1")
    server.RequestHandlerClass = _handler(model)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield model
    finally:
        model.release.set()
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory, held_model: HeldModel) -> Iterator[AppServer]:
    """The app with the held model configured: it answers approved requests left without text."""
    model_env = {
        "GATEHOUSE_MODEL": MODEL,
        "OPENAI_API_KEY": "sk-test-0000000000000000000000000000",
        "OPENAI_BASE_URL": held_model.url,
        "NO_PROXY": "127.0.0.1",
    }
    with running_app(tmp_path_factory.mktemp("gatehouse-app"), extra_env=model_env) as server:
        yield server


@pytest.fixture(scope="module")
def writer_calls(app_server: AppServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    """This process's services on the app's database, with the sampling server as ``writer``."""
    servers = tmp_path_factory.mktemp("writer") / "servers.json"
    entry = {"command": sys.executable, "args": ["-m", "tests.mcp_host.sampling_server"], "cwd": str(ROOT)}
    servers.write_text(json.dumps({"mcpServers": {"writer": entry}}), encoding="utf-8")
    settings = Settings.resolve(servers=str(servers), environ={"GATEHOUSE_DATA": str(app_server.data)})
    with open_services(settings) as services:
        yield services


@pytest.fixture
def calls(writer_calls: Services) -> Iterator[ThreadPoolExecutor]:
    """A thread for the writer's call, which waits for its review. A request a failed test left
    pending is rejected before the thread is waited for, so no call stays waiting."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        try:
            yield pool
        finally:
            for review in writer_calls.ledger.queue("pending"):
                writer_calls.reviews.decide(
                    review.id, reviewer="reviewer2", approve=False, reason="test over"
                )


def ask(services: Services, calls: ThreadPoolExecutor, message: str) -> tuple[Future[McpResult], Review]:
    """The writer's tool called for the operator's request: its request for a completion waits."""
    call = calls.submit(operators_call, services.mcp, "writer", message)
    [review] = pending_request(services.ledger)
    return call, review


def reject(page: Page, reason: str) -> None:
    expect(reject_button(page)).to_be_enabled(timeout=RUN_TIMEOUT_MS)
    field_ = page.get_by_role("textbox", name=re.compile(r"^Reason"))
    field_.fill(reason)
    field_.press("Enter")
    wait_for_app(page)
    reject_button(page).click()
    expect(page.get_by_text(re.compile(r"writer gets an error saying a reviewer declined"))).to_be_visible()
    wait_for_app(page)


def test_on_a_laptop_and_a_phone_the_messages_and_both_buttons_share_the_first_screen(
    browser: Browser, app_server: AppServer, writer_calls: Services, calls: ThreadPoolExecutor
) -> None:
    call, _ = ask(writer_calls, calls, LONG_MESSAGE)
    for size in (LAPTOP, PHONE):
        reviewer = reviews_at(browser, app_server, size)
        try:
            approve, reject_ = approve_button(reviewer), reject_button(reviewer)
            expect(approve).to_be_visible(timeout=RUN_TIMEOUT_MS)
            expect(approve).to_have_accessible_name(f"Approve: {MODEL} answers")
            messages = messages_box(reviewer)
            expect(messages.get_by_text(re.compile(r"^Draft a reply to: a long message"))).to_be_visible()
            wait_for_app(reviewer)
            assert scrolled(reviewer) == 0
            settle(reviewer, messages, approve, reject_)
            # The messages, in a box of their own that scrolls by itself, and both buttons.
            place = box(messages)
            # The box begins on the first screen, its heading and the message's first lines in it.
            assert place["y"] >= 0 and place["y"] + SHOWN_AT_LEAST <= size["height"], (
                f"{size}: the messages are off the first screen at {place}"
            )
            assert place["height"] <= BOX_SHARE * size["height"], place
            assert messages.evaluate("e => e.scrollHeight > e.clientHeight + 50"), (
                "the messages are not longer than their box"
            )
            assert on_screen(reviewer, approve), f"{size}: Approve is off the first screen at {box(approve)}"
            assert on_screen(reviewer, reject_), f"{size}: Reject is off the first screen at {box(reject_)}"
            # The decision first, then what is decided.
            assert box(approve)["y"] < box(messages)["y"]
            # The rest is on the page, below or beside: the limits and the flags.
            expect(reviewer.get_by_text(re.compile(r"^Maximum tokens: 120"))).to_have_count(1)
            expect(reviewer.get_by_text(re.compile(r"^Validation flags"))).to_have_count(1)
            no_exception(reviewer)
        finally:
            reviewer.context.close()

    # Who may not decide (the operator, whose request the call is for) reads why, before the
    # messages, and gets no button.
    operator = reviews_at(browser, app_server, LAPTOP, user="operator")
    try:
        why = operator.get_by_test_id("stAlert").filter(has_text="You cannot decide this review")
        expect(why).to_be_visible()
        expect(messages_box(operator)).to_be_visible()
        assert box(why)["y"] < box(messages_box(operator))["y"]
        expect(approve_button(operator)).to_have_count(0)
        expect(reject_button(operator)).to_have_count(0)
    finally:
        operator.context.close()

    reviewer = reviews_at(browser, app_server, LAPTOP)
    try:
        reject(reviewer, "not today")
    finally:
        reviewer.context.close()
    # Rejected: the server's call gets no answer (a 2026-07-28 server's call fails at the host).
    assert not call.result(timeout=30).success


def test_while_the_model_writes_the_approved_answer_the_buttons_are_disabled_and_say_what_runs(
    browser: Browser,
    app_server: AppServer,
    writer_calls: Services,
    calls: ThreadPoolExecutor,
    held_model: HeldModel,
) -> None:
    call, review = ask(writer_calls, calls, "Lunch on Monday?")
    reviewer = reviews_at(browser, app_server, LAPTOP)
    try:
        approve = approve_button(reviewer)
        expect(approve).to_have_accessible_name(f"Approve: {MODEL} answers", timeout=RUN_TIMEOUT_MS)
        expect(approve).to_be_enabled()
        wait_for_app(reviewer)
        approve.click()

        # While the model writes: what runs, and no live button.
        expect(reviewer.get_by_text(re.compile(r"writes the answer for writer"))).to_be_visible()
        expect(approve_button(reviewer)).to_be_disabled()
        expect(reject_button(reviewer)).to_be_disabled()
        expect(reviewer.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "running")
        # A second click, or the key, decides nothing more.
        approve_button(reviewer).click(force=True)
        reviewer.keyboard.press("a")
        held_model.release.set()

        expect(reviewer.get_by_text(re.compile(r"writer gets the answer"))).to_be_visible()
        wait_for_app(reviewer)
        no_exception(reviewer)
    finally:
        reviewer.context.close()
    result = call.result(timeout=30)
    assert text_of(result) == f"draft by gpt-4.1-mini: {MODEL_ANSWER}"
    assert len(held_model.requests) == 1, "the model was asked more than once"
    assert writer_calls.ledger.require(review.id).status == "executed"
