"""How many requests each caller made to the MCP endpoint lately, counted in Gatehouse's
database (SQLite or PostgreSQL), so every `gatehouse serve` on it holds a caller to one limit.

A sliding-window counter: one row per caller and clock minute, and a request is admitted
while the previous minute's count, weighted by how much of it still lies within the last 60
seconds, plus this minute's count stays within the limit. That is the cost of a fixed window
(a caller has at most two rows, and admitting a request is one read and one upsert in one
transaction, and the previous minute's count is read once a minute per caller) without its flaw: a fixed window lets a caller spend its limit at the end of
one minute and again at the start of the next.

The count only moves when a request is admitted, by an upsert that adds one only while the
count is below what the minute may still hold: two replicas admitting at once cannot both
take the last place (PostgreSQL locks the row for the upsert; SQLite's write transaction
holds the database). A caller refused keeps no count, so one who waits as told gets in.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from storage import Database
from storage.database import Connection, migrate

WINDOW_SECONDS = 60
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS gateway_request_counts (
        caller TEXT NOT NULL,
        window_start BIGINT NOT NULL,
        requests INTEGER NOT NULL,
        PRIMARY KEY (caller, window_start))""",
    ),
)


def retry_after(limit: int, previous: int, current: int, elapsed: float) -> float:
    """Seconds until a caller refused now may make one more request, if it makes none meanwhile.

    Args:
        limit: requests a minute.
        previous: the caller's count in the previous clock minute.
        current: its count in this one.
        elapsed: seconds of this minute gone.
    """
    if current + 1 <= limit:
        # This minute has room; the previous one's weight must fall far enough:
        # previous * (1 - t / W) + current + 1 <= limit.
        return WINDOW_SECONDS * (1 - (limit - current - 1) / previous) - elapsed
    # Only in the next minute, once this one's weight has fallen (its count is then the previous).
    return WINDOW_SECONDS - elapsed + WINDOW_SECONDS * (1 - (limit - 1) / current)


class RequestCounts:
    """Admit or refuse each caller's requests against a per-minute limit, on ``db``."""

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self._clock = clock
        self._unlogged_commit = db.dialect.name == "postgresql"
        # (caller, minute) -> the caller's count in the minute before: final once that minute
        # is over (a request counts only in its own minute), so read once per caller and minute.
        self._minute = -1
        self._previous: dict[tuple[str, int], int] = {}
        migrate(db, "gateway_request_counts", _MIGRATIONS)

    def admit(self, caller: str, limit: int) -> float | None:
        """Count a request of ``caller`` when the last minute holds fewer than ``limit`` of
        theirs, and return None; otherwise count nothing and return the seconds until one more
        would be admitted (above 0)."""
        now = self._clock()
        window = math.floor(now / WINDOW_SECONDS)
        elapsed = now - window * WINDOW_SECONDS
        with self._db.write() as conn:
            if self._unlogged_commit:
                # A count lost in a crash lets a caller a few more requests, no more: not worth
                # waiting for the disk on every request (on this machine 7 ms, against 1 ms).
                # Row locks, and so the limit across replicas, are as before.
                conn.execute("SET LOCAL synchronous_commit = off")
            previous = self._previous_count(conn, caller, window)
            # How many this minute may hold beside what of the previous one still counts.
            room = math.floor(limit - previous * (1 - elapsed / WINDOW_SECONDS) + 1e-9)
            if room >= 1:
                counted = conn.execute(
                    "INSERT INTO gateway_request_counts (caller, window_start, requests) VALUES (?, ?, 1) "
                    "ON CONFLICT (caller, window_start) DO UPDATE "
                    "SET requests = gateway_request_counts.requests + 1 "
                    "WHERE gateway_request_counts.requests < ? RETURNING requests",
                    (caller, window, room),
                ).fetchone()
                if counted is not None:
                    if int(counted["requests"]) == 1:
                        # The caller's first request this minute: what is older counts no more.
                        conn.execute(
                            "DELETE FROM gateway_request_counts WHERE caller = ? AND window_start < ?",
                            (caller, window - 1),
                        )
                    return None
            row = conn.execute(
                "SELECT requests FROM gateway_request_counts WHERE caller = ? AND window_start = ?",
                (caller, window),
            ).fetchone()
        current = int(row["requests"]) if row is not None else 0
        return max(retry_after(limit, previous, current, elapsed), 0.001)

    def _previous_count(self, conn: Connection, caller: str, window: int) -> int:
        known = self._previous.get((caller, window))
        if known is None:
            if window > self._minute:
                # A new minute: the counts kept for the one before are asked for no more.
                self._minute = window
                self._previous = {key: n for key, n in self._previous.items() if key[1] >= window}
            row = conn.execute(
                "SELECT requests FROM gateway_request_counts WHERE caller = ? AND window_start = ?",
                (caller, window - 1),
            ).fetchone()
            known = self._previous[caller, window] = int(row["requests"]) if row is not None else 0
        return known
