"""Turning review notifications against the network they are posted from, or replaying them.

The webhook's address is the administrator's own configuration (GATEHOUSE_WEBHOOK_URL): one
that points at an internal address is their choice, not an attack. The attacks are what others
control: a receiver that answers with a redirect to an internal address (127.0.0.1 on another
port, a cloud metadata address), text a requester or a server chose that lands in a
notification (a thread id a requester passes to ``ask --thread``, a capability's name, a flag
holding a URL), and the same post arriving twice (two senders, a lease that ran out while a
post was under way, a sender killed after its post) or captured and replayed by someone else.

First tried, the redirect was never followed, the body carried every text as JSON data only,
and every post of one row had the same body and ``Idempotency-Key``. One defect was found,
now fixed: the notification's id (the review id, so the requester's thread id) went into the
``Idempotency-Key`` header as it was, and a CR or LF in it made Python's HTTP client refuse
the whole post with a ValueError the sender did not expect: that row was never sent nor given
up, and every notification queued behind it waited for ever. The key is now percent-encoded.
Replays by someone else: posts are signed when GATEHOUSE_WEBHOOK_SECRET is set
(``Gatehouse-Signature: t=<unix>,v1=<HMAC-SHA256 of "<t>.<body>">``), and a receiver that
checks it refuses a forged or an old post.
"""

from __future__ import annotations

import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from gatehouse.notifications.webhook import (
    SIGNATURE_HEADER,
    WebhookSender,
    header_key,
    post_json,
    verify_signature,
)
from gatehouse.settings import Settings
from reviews.notifications import Outbox, RetryPolicy, notification_id
from tests.reviews.review_support import StillClock
from tests.reviews.webhook_receiver import Receiver, webhook_receiver
from tests.support import SHUTDOWN_POLL_SECONDS

SECRET = "whsec-9f8e7d6c5b4a"
# Text a requester or a server chose, as it reaches a notification's fields.
CRLF_THREAD = "t\r\nX-Injected: 1\r\nHost: 169.254.169.254"


def fields(review_id: str = "t1-r1", **more: Any) -> dict[str, Any]:
    return {
        "event": "review_opened",
        "review_id": review_id,
        "thread_id": review_id.rsplit("-r", 1)[0],
        "capability": "email__send_email",
        "requester": "operator",
        "decided_by": None,
        "status": "pending",
        "at": "2026-01-05T09:00:00+00:00",
        "stage": "policy",
        "flags": [],
    } | more


@pytest.fixture
def clock() -> StillClock:
    return StillClock()


@pytest.fixture
def outbox(tmp_path: Path, clock: StillClock) -> Iterator[Outbox]:
    box = Outbox(tmp_path / "gatehouse.db", clock=clock, retry=RetryPolicy(lease=60))
    yield box
    box.close()


def queued(outbox: Outbox, review_id: str = "t1-r1", **more: Any) -> str:
    key = notification_id(review_id, "review_opened")
    assert outbox.add(key, fields(review_id, **more))
    return key


@contextmanager
def redirecting_to(location: str, code: int) -> Iterator[str]:
    """A receiver that answers every post with ``code`` and ``Location: location``."""

    class Redirect(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(code)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    server.daemon_threads = True
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL_SECONDS}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hooks/T0KEN"
    finally:
        server.shutdown()
        server.server_close()


# -- redirects -------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_receiver_redirecting_to_an_internal_address_is_never_followed(outbox: Outbox, code: int) -> None:
    with webhook_receiver() as internal, redirecting_to(internal.url, code) as receiver:
        key = queued(outbox)

        report = WebhookSender(outbox, receiver).deliver_due()

        assert internal.received == [], "the internal listener got the post"
        assert (report.delivered, report.retrying) == (0, 1)
        row = outbox.get(key)
        assert row is not None
        assert (row.status, row.last_error) == ("pending", f"HTTP {code}")


# -- text others chose -----------------------------------------------------------------------


def test_text_from_requesters_and_servers_cannot_change_where_a_post_goes_or_add_a_header(
    outbox: Outbox,
) -> None:
    review = f"{CRLF_THREAD}-r1"
    chosen = {
        "capability": "email__send\r\nLocation: http://169.254.169.254/",
        "requester": "eve\r\nX-Injected: yes",
        "flags": ["http://169.254.169.254/latest/meta-data/"],
        "url": "http://127.0.0.1:9/elsewhere",
    }
    poisoned = queued(outbox, review, **chosen)
    ordinary = queued(outbox, "t2-r1")

    with webhook_receiver() as receiver:
        report = WebhookSender(outbox, receiver.url).deliver_due()
        posts = receiver.wait_for(2)

    assert (report.delivered, report.retrying, report.failed) == (2, 0, 0)
    assert {post.path for post in posts} == {urllib.parse.urlsplit(receiver.url).path}
    for post in posts:
        assert "X-Injected" not in post.headers
        assert post.headers["Host"] == urllib.parse.urlsplit(receiver.url).netloc
        assert "\r" not in "".join(post.headers.values()) and "\n" not in "".join(post.headers.values())
    first, second = posts
    assert first.headers["Idempotency-Key"] == header_key(poisoned)
    assert urllib.parse.unquote(first.headers["Idempotency-Key"]) == poisoned
    assert second.headers["Idempotency-Key"] == ordinary == "t2-r1:review_opened"
    # The chosen text is data in the body, as it was; the link is Gatehouse's own (none here).
    assert (first.body["review_id"], first.body["capability"], first.body["requester"]) == (
        review,
        chosen["capability"],
        chosen["requester"],
    )
    assert first.body["url"] is None


# -- the same row posted twice ---------------------------------------------------------------


def test_a_row_posted_again_after_its_lease_ran_out_mid_post_has_the_same_key_and_body(
    outbox: Outbox, clock: StillClock
) -> None:
    key = queued(outbox)
    with webhook_receiver("hang", hang_seconds=20) as receiver:
        slow = WebhookSender(outbox, receiver.url, timeout=20)
        first = threading.Thread(target=slow.deliver_due)
        first.start()
        assert receiver.hanging.wait(20), "the first post never arrived"
        clock.advance(61)  # its lease ran out while the receiver held the post

        WebhookSender(outbox, receiver.url).deliver_due()
        receiver.released.set()
        first.join(20)
        a, b = receiver.wait_for(2)

    assert a.headers["Idempotency-Key"] == b.headers["Idempotency-Key"] == key
    assert a.raw == b.raw
    row = outbox.get(key)
    assert row is not None and (row.status, row.attempts) == ("delivered", 2)


class Killed(BaseException):
    """The sender's process ends between its post and recording it (a fault injected here)."""


def test_a_row_posted_by_a_sender_killed_before_recording_it_is_posted_again_the_same(
    outbox: Outbox, clock: StillClock
) -> None:
    key = queued(outbox)

    def post_then_die(*args: Any, **kwargs: Any) -> None:
        post_json(*args, **kwargs)
        raise Killed

    with webhook_receiver() as receiver:
        with pytest.raises(Killed):
            WebhookSender(outbox, receiver.url, post=post_then_die).deliver_due()
        assert WebhookSender(outbox, receiver.url).deliver_due().delivered == 0, "still leased"
        clock.advance(61)
        assert WebhookSender(outbox, receiver.url).deliver_due().delivered == 1
        a, b = receiver.wait_for(2)

    assert a.headers["Idempotency-Key"] == b.headers["Idempotency-Key"] == key
    assert a.raw == b.raw


# -- replays by someone else -----------------------------------------------------------------


def verified(
    receiver: Receiver, secret: str, *, now: float | None = None, body: bytes | None = None
) -> list[str | None]:
    """What a receiver that checks the signature says of each post it got."""
    return [
        verify_signature(
            secret, post.raw if body is None else body, post.headers.get(SIGNATURE_HEADER), now=now
        )
        for post in receiver.received
    ]


def test_a_signed_post_verifies_and_a_forged_or_replayed_one_does_not(outbox: Outbox) -> None:
    queued(outbox)
    with webhook_receiver() as receiver:
        WebhookSender(outbox, receiver.url, secret=SECRET).deliver_due()
        [post] = receiver.wait_for(1)

    assert verified(receiver, SECRET) == [None]
    signed_at = int(post.headers[SIGNATURE_HEADER].split(",")[0].removeprefix("t="))
    # Replayed by someone who captured it, an hour later.
    assert verified(receiver, SECRET, now=signed_at + 3600) == [
        f"signed at {signed_at}, more than 300 s ago or ahead: a replay, or a wrong clock"
    ]
    # A body changed on the way (approved for rejected), or signed with another key.
    forged = post.raw.replace(b'"pending"', b'"approved"')
    assert forged != post.raw
    assert verified(receiver, SECRET, body=forged) == ["the signature does not match the body"]
    assert verified(receiver, "another-secret") == ["the signature does not match the body"]
    assert verify_signature(SECRET, post.raw, None) == f"no {SIGNATURE_HEADER} header"
    assert verify_signature(SECRET, post.raw, "v1=abc") == f"{SIGNATURE_HEADER} has no t=<unix time>"


def test_posts_are_signed_only_with_a_configured_secret(outbox: Outbox) -> None:
    queued(outbox)
    with webhook_receiver() as receiver:
        WebhookSender(outbox, receiver.url).deliver_due()
        [post] = receiver.wait_for(1)

    assert SIGNATURE_HEADER not in post.headers
    assert Settings.resolve(environ={"GATEHOUSE_WEBHOOK_SECRET": f" {SECRET} "}).webhook_secret == SECRET
    assert Settings.resolve(environ={"GATEHOUSE_WEBHOOK_SECRET": ""}).webhook_secret is None
