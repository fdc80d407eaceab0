"""The notification outbox: what happened to a review, kept in the database until it is sent.

A review that is opened, decided (approved or rejected), expired or cancelled (withdrawn by its
requester) adds one row here, right after the ledger change it reports. A sender (see
gatehouse/notifications/webhook.py) posts the rows that are due, at least once: each row's id is the same on
every attempt (the receiver gets it as ``Idempotency-Key``), a failed attempt is retried after a
doubling pause, and after ``RetryPolicy.max_attempts`` the row is ``failed`` with the receiver's
last error. Nothing here talks to the network, so a slow or failing receiver can never hold up
a request or a decision: they only write a row.

Several senders (the app, CLI commands, replicas) may share one outbox. A sender claims a row
before it posts (a compare-and-set on its attempt count, leased for ``RetryPolicy.lease``
seconds), so two senders do not post the same attempt; a sender that dies mid-post leaves the
row to be posted again once the lease runs out.

Withdrawing a request (ReviewService.withdraw) reports ``review_cancelled``, by whoever withdrew it.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from policies.secrets import DEFAULT_REDACTOR, SecretRedactor
from reviews.clock import Clock, iso, utc_now
from reviews.ledger import Review
from storage import Database, open_database
from storage.database import migrate

NotificationEvent = Literal["review_opened", "review_decided", "review_expired", "review_cancelled"]
DeliveryStatus = Literal["pending", "delivered", "failed"]

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS notification_outbox (
        id TEXT PRIMARY KEY,
        event TEXT NOT NULL,
        review_id TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        next_attempt_at TEXT NOT NULL,
        last_attempt_at TEXT,
        delivered_at TEXT,
        last_error TEXT)""",
        "CREATE INDEX IF NOT EXISTS notification_outbox_due ON notification_outbox (status, next_attempt_at)",
        "CREATE INDEX IF NOT EXISTS notification_outbox_recent ON notification_outbox (created_at)",
    ),
)
# A receiver's error is kept for the Reviews page, not in full.
_ERROR_CHARS = 300


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a notification is posted."""

    max_attempts: int = 8
    # Seconds before the second attempt; each further pause doubles, up to max_delay
    # (5 s, 10 s, 20 s, ... 640 s: about 21 minutes from the first attempt to the last).
    first_delay: float = 5.0
    max_delay: float = 1800.0
    # A claimed attempt that reports nothing for this long (its process died) is due again.
    lease: float = 60.0

    def pause_after(self, attempts: int) -> float:
        return float(min(self.first_delay * 2 ** max(attempts - 1, 0), self.max_delay))


class Notification(BaseModel):
    id: str
    event: str
    review_id: str
    body: dict[str, Any]
    status: DeliveryStatus
    attempts: int
    created_at: str
    next_attempt_at: str
    last_attempt_at: str | None = None
    delivered_at: str | None = None
    last_error: str | None = None


class Notifier(Protocol):
    """Where the review hooks and the review service report a review's events."""

    def review_event(
        self, event: NotificationEvent, review: Review, *, by: str | None = None, at: str | None = None
    ) -> None: ...


class NoNotifications:
    """Notifications are off (no webhook configured): nothing is kept."""

    def review_event(
        self, event: NotificationEvent, review: Review, *, by: str | None = None, at: str | None = None
    ) -> None:
        return None


def notification_id(review_id: str, event: NotificationEvent) -> str:
    """One id per review and event: reporting the same event twice keeps one row."""
    return f"{review_id}:{event}"


def event_fields(
    event: NotificationEvent, review: Review, *, by: str | None = None, at: str | None = None
) -> dict[str, Any]:
    """The structured part of a notification: what happened to which review, who, when."""
    capability = review.capability_key or "__".join(
        str(review.capability.get(part) or "") for part in ("server", "name")
    )
    when = at or (review.created_at if event == "review_opened" else review.decided_at or review.created_at)
    return {
        "event": event,
        "review_id": review.id,
        "thread_id": review.thread_id,
        "capability": capability,
        "requester": review.requester,
        "decided_by": by or (review.decided_by if event == "review_decided" else None),
        "status": "cancelled" if event == "review_cancelled" else review.status,
        "at": when,
        "stage": review.stage,
        "flags": [str(flag.get("code")) for flag in review.flags if flag.get("code")],
    }


class Outbox:
    """Notifications waiting to be sent, and what became of those that were."""

    def __init__(
        self,
        db: Database | Path | str,
        *,
        clock: Clock = utc_now,
        secrets: SecretRedactor = DEFAULT_REDACTOR,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._db = open_database(db)
        self._clock = clock
        self._secrets = secrets
        self.retry = retry or RetryPolicy()
        # Set when a row is added, so a sender in this process posts it at once instead of at
        # its next look at the table.
        self.added = threading.Event()
        migrate(self._db, "notifications", _MIGRATIONS)

    def close(self) -> None:
        self._db.close()

    def now(self) -> datetime:
        return self._clock()

    # -- adding ------------------------------------------------------------------------------

    def review_event(
        self, event: NotificationEvent, review: Review, *, by: str | None = None, at: str | None = None
    ) -> None:
        self.add(notification_id(review.id, event), event_fields(event, review, by=by, at=at))

    def add(self, notification: str, fields: dict[str, Any]) -> bool:
        """Keep a notification to send (secrets hidden); False if it was kept before."""
        now = iso(self._clock())
        with self._db.write() as conn:
            added = conn.execute(
                "INSERT INTO notification_outbox (id, event, review_id, body, status, attempts, created_at,"
                " next_attempt_at) VALUES (?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT (id) DO NOTHING",
                (
                    notification,
                    fields["event"],
                    fields["review_id"],
                    json.dumps(self._secrets.value(fields), ensure_ascii=False),
                    now,
                    now,
                ),
            ).rowcount
        self.added.set()
        return bool(added)

    # -- sending -----------------------------------------------------------------------------

    def due(self, *, limit: int = 20) -> list[Notification]:
        """Pending notifications whose time has come, oldest first."""
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM notification_outbox WHERE status = 'pending' AND next_attempt_at <= ?"
                " ORDER BY next_attempt_at, created_at LIMIT ?",
                (iso(self._clock()), limit),
            ).fetchall()
        return [_notification(row) for row in rows]

    def next_due(self) -> datetime | None:
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT MIN(next_attempt_at) AS due FROM notification_outbox WHERE status = 'pending'"
            ).fetchone()
        return datetime.fromisoformat(row["due"]) if row is not None and row["due"] else None

    def claim(self, notification: Notification) -> bool:
        """Take one attempt at a due notification: a compare-and-set on its attempt count, so
        of several senders one posts it; leased, so a sender that dies leaves it due again."""
        now = self._clock()
        with self._db.write() as conn:
            return (
                conn.execute(
                    "UPDATE notification_outbox SET attempts = attempts + 1, last_attempt_at = ?,"
                    " next_attempt_at = ? WHERE id = ? AND status = 'pending' AND attempts = ?"
                    " AND next_attempt_at <= ?",
                    (
                        iso(now),
                        iso(now + timedelta(seconds=self.retry.lease)),
                        notification.id,
                        notification.attempts,
                        iso(now),
                    ),
                ).rowcount
                == 1
            )

    def mark_delivered(self, notification_id: str) -> None:
        with self._db.write() as conn:
            conn.execute(
                "UPDATE notification_outbox SET status = 'delivered', delivered_at = ?, last_error = NULL"
                " WHERE id = ? AND status != 'delivered'",
                (iso(self._clock()), notification_id),
            )

    def mark_failed_attempt(
        self, notification: Notification, error: str, *, give_up: bool = False, wait: float | None = None
    ) -> DeliveryStatus:
        """Record an attempt that failed: due again after the doubling pause (or ``wait``, if
        the receiver asked for longer), or ``failed`` for good after the last attempt."""
        attempts = notification.attempts + 1
        final = give_up or attempts >= self.retry.max_attempts
        pause = max(self.retry.pause_after(attempts), min(wait or 0.0, self.retry.max_delay))
        status: DeliveryStatus = "failed" if final else "pending"
        with self._db.write() as conn:
            conn.execute(
                "UPDATE notification_outbox SET status = ?, next_attempt_at = ?, last_error = ?"
                " WHERE id = ? AND status = 'pending' AND attempts = ?",
                (
                    status,
                    iso(self._clock() + timedelta(seconds=pause)),
                    self._secrets.text(error)[:_ERROR_CHARS],
                    notification.id,
                    attempts,
                ),
            )
        return status

    # -- reading -----------------------------------------------------------------------------

    def get(self, notification: str) -> Notification | None:
        with self._db.read() as conn:
            row = conn.execute("SELECT * FROM notification_outbox WHERE id = ?", (notification,)).fetchone()
        return _notification(row) if row is not None else None

    def recent(self, *, limit: int = 10, status: DeliveryStatus | None = None) -> list[Notification]:
        """The newest notifications first (of one status, if given)."""
        where, params = (" WHERE status = ?", (status,)) if status else ("", ())
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT * FROM notification_outbox{where} ORDER BY created_at DESC, id DESC LIMIT ?",
                (*params, limit),
            ).fetchall()
        return [_notification(row) for row in rows]

    def counts(self) -> dict[str, int]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT status, COUNT(*) AS n FROM notification_outbox GROUP BY status"
            ).fetchall()
        return {"pending": 0, "delivered": 0, "failed": 0} | {row["status"]: int(row["n"]) for row in rows}


def _notification(row: Any) -> Notification:
    data = dict(row)
    data["body"] = json.loads(data["body"])
    return Notification.model_validate(data)
