"""What the Reviews page (and the sidebar) read every few seconds, and when what a page shows of
the open review is out of date.

A refresh is cheap by construction: the pending count, one page of the queue and the open
review (when it is not on that page), each an indexed read; expiring what is overdue is a read
too until something is due (ReviewService.expire_overdue). The page counts every pending
review, whoever may decide it; the sidebar counts those waiting on the person at the browser
(gatehouse/web/waiting_on_you.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reviews.ledger import Review, ReviewLedger
from reviews.service import ReviewService

# Every 3 s: a review opened or decided elsewhere shows within a breath, and the window in
# which a stale tab still offers buttons (its decision is then refused by the service) stays
# short. Each tick costs a small fragment rerun per open tab, and a few indexed reads per
# process and second, shared by every tab (gatehouse/web/live_view.py; their cost grows with
# the queue, as the COUNT does: docs/benchmark.md, queue_scale). Faster gains little for people and
# keeps a page busy redrawing; slower lets a tab, and its two counts, lag for longer.
REFRESH_SECONDS = 3


def expire_overdue_and_count_pending(reviews: ReviewService) -> int:
    """Every review waiting for a decision, whoever may decide it, with those past their
    deadline expired first (the Reviews page's "Pending (N)")."""
    reviews.expire_overdue()
    return reviews.ledger.count("pending")


def page_count(pending: int, size: int) -> int:
    """How many pages of ``size`` the queue of ``pending`` reviews fills (at least one)."""
    return max(1, -(-pending // size))


def review_to_show(ledger: ReviewLedger, opened: str | None, queue: Sequence[Review]) -> Review | None:
    """The review a page shows: the one its session opened, whatever became of it since (a
    page says who decided it rather than move on), else the oldest on the queue page shown.
    Read from ``queue`` when it is there; only a review off that page is read on its own."""
    if opened is not None:
        found = next((review for review in queue if review.id == opened), None) or ledger.get(opened)
        if found is not None:
            return found
    return queue[0] if queue else None


@dataclass(frozen=True)
class Shown:
    """What a page drew of a review: the facts whose change makes the drawing wrong (it was
    decided or expired, its proposal changed, another approval of several came in)."""

    review_id: str
    status: str
    call_hash: str
    decisions: int


def shown(review: Review | None) -> Shown | None:
    if review is None:
        return None
    return Shown(review.id, review.status, review.call_hash, len(review.decisions))


@dataclass(frozen=True)
class Drawn:
    """The review a page's full run drew (None: none), and which run that was."""

    run: int
    review: Shown | None


def follow(drawn: Drawn | None, run: int, now: Review | None) -> tuple[Drawn, bool]:
    """What to keep as drawn, and whether the page must be drawn again.

    The first refresh of full run ``run`` is that run's own: it records what the run draws.
    A later one (a timed refresh, or a pick in the queue) finds the page out of date when the
    review it would show now is another one, or the same one changed."""
    current = shown(now)
    if drawn is None or drawn.run != run:
        return Drawn(run, current), False
    return drawn, drawn.review != current
