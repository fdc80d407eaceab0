"""Posting the outbox's notifications to the webhook, on a thread of its own.

The request path only writes outbox rows (reviews/notifications.py); this sender posts them
in the background: one attempt per due row, a timeout on every post, retries with a doubling
pause, ``failed`` after the last attempt. A receiver that hangs or fails delays only the next
notification, never a request or a decision.

The address is the administrator's (GATEHOUSE_WEBHOOK_URL), never taken from a server, a
requester or a review, and a redirect is never followed. What is posted is the administrator's
choice too (GATEHOUSE_WEBHOOK_FORMAT: Gatehouse's JSON, a Slack or a Teams message), built from
the outbox row, whose secrets were hidden when it was written. Every post of one row carries the
same body and the same ``Idempotency-Key`` (the row's id, percent-encoded so that text a
requester chose, such as a thread id, cannot break the header), so a receiver drops a
duplicate. With a secret (GATEHOUSE_WEBHOOK_SECRET) each post is signed: ``Gatehouse-Signature:
t=<unix time>,v1=<hex HMAC-SHA256 of "<t>.<body>">``, the scheme Stripe uses, so a receiver
rejects a forged post and an old one replayed (``verify_signature``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gatehouse.notifications.message_formats import MESSAGE_BUILDERS
from gatehouse.notifications.webhook_message import shown_url
from gatehouse.settings import WebhookFormat
from mcp_host.reported import UnavailableError
from reviews.notifications import Notification, Outbox

log = logging.getLogger(__name__)

# Seconds a receiver has to answer one post.
POST_TIMEOUT = 5.0
# How often the sender looks for rows other processes added (its own wake it at once).
POLL_SECONDS = 5.0
# A CLI command, when it ends, waits this long for a post already under way.
STOP_GRACE_SECONDS = 2.0
# Answers that will not change on a retry; everything else (5xx, 408, 425, 429, timeouts,
# refused connections) is retried.
_RETRYABLE_CLIENT_ERRORS = {408, 425, 429}


class DeliveryError(UnavailableError):
    """A post that did not succeed: what the receiver (or the network) said."""

    def __init__(self, message: str, *, permanent: bool = False, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.permanent = permanent
        self.retry_after = retry_after


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a redirect is an answer to report, not a place to resend the body


_OPENER = urllib.request.build_opener(_NoRedirects)


def _retry_after(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


SIGNATURE_HEADER = "Gatehouse-Signature"
# How old a signed post a receiver should still take (verify_signature's default).
SIGNATURE_TOLERANCE_SECONDS = 300


def header_key(key: str) -> str:
    """A notification id as a header value: percent-encoded but for letters, digits, ``-._~``
    and ``:``, so ``REVIEW_ID:review_opened`` is sent as it is and a CR, LF or any other
    character a requester put in a thread id can neither end the header nor add one."""
    return urllib.parse.quote(key, safe=":")


def signature(secret: str, body: bytes, at: int) -> str:
    """The ``Gatehouse-Signature`` value for ``body`` posted at unix time ``at``."""
    signed = str(at).encode("ascii") + b"." + body
    digest = hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()
    return f"t={at},v1={digest}"


def verify_signature(
    secret: str,
    body: bytes,
    header: str | None,
    *,
    now: float | None = None,
    tolerance: float = SIGNATURE_TOLERANCE_SECONDS,
) -> str | None:
    """What a receiver checks: None when ``header`` signs ``body`` with ``secret`` within
    ``tolerance`` seconds of ``now``, else why not."""
    if not header:
        return f"no {SIGNATURE_HEADER} header"
    parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        at = int(parts["t"])
    except (KeyError, ValueError):
        return f"{SIGNATURE_HEADER} has no t=<unix time>"
    if abs((time.time() if now is None else now) - at) > tolerance:
        return f"signed at {at}, more than {tolerance:g} s ago or ahead: a replay, or a wrong clock"
    if not hmac.compare_digest(signature(secret, body, at), f"t={at},v1={parts.get('v1', '')}"):
        return "the signature does not match the body"
    return None


def post_json(
    url: str,
    body: dict[str, Any],
    *,
    key: str,
    timeout: float = POST_TIMEOUT,
    secret: str | None = None,
) -> None:
    """POST ``body`` with ``Idempotency-Key: key`` (signed with ``secret``, if given); any answer
    but 2xx raises DeliveryError (its message never holds the URL)."""
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    headers = {
        "Content-Type": "application/json",
        "Idempotency-Key": header_key(key),
        "User-Agent": "Gatehouse",
    }
    if secret:
        headers[SIGNATURE_HEADER] = signature(secret, data, int(time.time()))
    request = urllib.request.Request(url, data=data, method="POST", headers=headers)
    try:
        with _OPENER.open(request, timeout=timeout) as answer:
            answer.read(4096)
    except urllib.error.HTTPError as exc:
        said = " ".join(exc.read(300).decode("utf-8", "replace").split())
        raise DeliveryError(
            f"HTTP {exc.code}" + (f": {said}" if said else ""),
            permanent=400 <= exc.code < 500 and exc.code not in _RETRYABLE_CLIENT_ERRORS,
            retry_after=_retry_after(exc.headers.get("Retry-After")),
        ) from None
    except TimeoutError:
        raise DeliveryError(f"no answer within {timeout:g} s") from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            raise DeliveryError(f"no answer within {timeout:g} s") from None
        raise DeliveryError(f"cannot reach the receiver: {reason}") from None
    except OSError as exc:
        raise DeliveryError(f"cannot reach the receiver: {exc}") from None


Post = Callable[..., None]


@dataclass
class DeliveryReport:
    delivered: int = 0
    retrying: int = 0
    failed: int = 0


def notifications_line(report: dict[str, int] | None) -> str:
    """What `reviews sweep` says it posted (nothing without a webhook)."""
    if report is None:
        return ""
    return (
        f"; notifications delivered: {report['delivered']}, to retry: {report['retrying']},"
        f" given up: {report['failed']}"
    )


class WebhookSender:
    """Posts due notifications from an outbox to one webhook URL, in one format (generic JSON,
    a Slack message or a Teams Adaptive Card: message_formats.py)."""

    def __init__(
        self,
        outbox: Outbox,
        url: str,
        *,
        public_url: str | None = None,
        timeout: float = POST_TIMEOUT,
        poll_seconds: float = POLL_SECONDS,
        post: Post = post_json,
        secret: str | None = None,
        message_format: WebhookFormat = "generic",
    ) -> None:
        self.outbox = outbox
        # The same format for every attempt, so each post of a row carries the same body.
        self._message = MESSAGE_BUILDERS[message_format]
        self._secret = secret
        self._url = url
        self.shown_url = shown_url(url)
        self._public_url = public_url
        self._timeout = timeout
        self._poll = poll_seconds
        self._post = post
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def deliver_due(self) -> DeliveryReport:
        """One attempt at every notification that is due now."""
        report = DeliveryReport()
        for notification in self.outbox.due():
            if self.outbox.claim(notification):
                self._attempt(notification, report)
        return report

    def _attempt(self, notification: Notification, report: DeliveryReport) -> None:
        try:
            self._post(
                self._url,
                self._message(notification.body, self._public_url),
                key=notification.id,
                timeout=self._timeout,
                secret=self._secret,
            )
        except DeliveryError as exc:
            status = self.outbox.mark_failed_attempt(
                notification, str(exc), give_up=exc.permanent, wait=exc.retry_after
            )
            log.warning(
                "webhook %s: %s for %s (attempt %d, %s)",
                self.shown_url,
                exc,
                notification.id,
                notification.attempts + 1,
                "given up" if status == "failed" else "will retry",
            )
            if status == "failed":
                report.failed += 1
            else:
                report.retrying += 1
            return
        self.outbox.mark_delivered(notification.id)
        report.delivered += 1

    # -- the background thread ---------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="gatehouse-webhook", daemon=True)
        self._thread.start()

    def stop(self, *, grace: float = STOP_GRACE_SECONDS) -> None:
        """Stop after one last round of what is due (a CLI command's own notifications go out
        before it exits), waiting at most ``grace`` seconds: what is left stays in the outbox
        for the next sender."""
        self._stop.set()
        self.outbox.added.set()
        if self._thread is not None:
            self._thread.join(grace)

    def _run(self) -> None:
        while True:
            self.outbox.added.clear()
            try:
                self.deliver_due()
                wait = self._seconds_to_next()
            except Exception:  # the database went away for a moment: try again later
                log.warning("webhook %s: cannot read the outbox", self.shown_url, exc_info=True)
                wait = self._poll
            if self._stop.is_set():
                return
            self.outbox.added.wait(wait)

    def _seconds_to_next(self) -> float:
        due = self.outbox.next_due()
        if due is None:
            return self._poll
        return min(max((due - self.outbox.now()).total_seconds(), 0.0), self._poll)
