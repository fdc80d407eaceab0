"""What the Reviews page reads every few seconds (gatehouse/web/live_queue.py): a count that expires
what is overdue first without writing when nothing is, the review a page shows, and when a
page's drawing of it is out of date."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from gatehouse.web.live_queue import (
    Drawn,
    expire_overdue_and_count_pending,
    follow,
    page_count,
    review_to_show,
    shown,
)
from reviews.ledger import ReviewLedger
from tests.reviews.review_support import (
    EMAIL_REQUEST,
    Clock,
    StillClock,
    email_servers,
    later_reviews,
    services_for,
)
from tests.reviews.test_ledger_paging import decide, open_all

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")


def test_a_review_is_due_only_once_pending_past_its_deadline(ledger: ReviewLedger, clock: Clock) -> None:
    open_all(ledger, ["r1", "r2"], expiry_minutes=30)
    assert not ledger.any_due()
    decide(ledger, "r1", "reviewer", "reject", "no")
    clock.skip(31)
    assert ledger.any_due()
    assert [r.id for r in ledger.expire_due()] == ["r2"]
    assert not ledger.any_due()  # r1 was decided in time, r2 is expired now


def test_the_review_shown_is_the_one_opened_whatever_became_of_it_else_the_oldest_on_the_page(
    ledger: ReviewLedger,
) -> None:
    open_all(ledger, ["r1", "r2", "r3"])
    decide(ledger, "r1", "reviewer2", "approve")
    queue = ledger.queue("pending", limit=10)
    assert [r.id for r in queue] == ["r2", "r3"]

    assert review_to_show(ledger, "r3", queue) is queue[1]  # from the page, not read again
    decided = review_to_show(ledger, "r1", queue)  # off the page: read on its own
    assert decided is not None and (decided.id, decided.decided_by) == ("r1", "reviewer2")
    assert review_to_show(ledger, None, queue) is queue[0]
    assert review_to_show(ledger, "gone", queue) is queue[0]
    assert review_to_show(ledger, None, []) is None


def test_pages_of_the_queue_are_at_least_one() -> None:
    assert [page_count(n, 50) for n in (0, 1, 50, 51, 100, 101)] == [1, 1, 1, 2, 2, 3]


def test_a_drawing_is_out_of_date_when_its_review_changes_or_another_is_to_be_shown(
    ledger: ReviewLedger,
) -> None:
    open_all(ledger, ["r1", "r2"], required_approvals=2)
    first = ledger.require("r1")

    # The full run's own refresh records what it draws; refreshes after it compare.
    drawn, redraw = follow(None, 1, first)
    assert drawn == Drawn(1, shown(first)) and not redraw
    assert follow(drawn, 1, ledger.require("r1")) == (drawn, False)
    assert follow(drawn, 1, ledger.require("r2"))[1]  # another review picked
    assert follow(drawn, 1, None)[1]

    decide(ledger, "r1", "reviewer", "approve")  # one approval of two: still pending
    assert follow(drawn, 1, ledger.require("r1"))[1]
    decide(ledger, "r1", "reviewer2", "approve")
    assert follow(drawn, 1, ledger.require("r1"))[1]
    # The next full run draws the review as it is now.
    assert follow(drawn, 2, ledger.require("r1")) == (Drawn(2, shown(ledger.require("r1"))), False)

    nothing, _ = follow(None, 3, None)
    assert follow(nothing, 3, ledger.require("r2"))[1]  # a review arrived on an empty page


def test_the_pending_count_expires_what_is_overdue_first_and_only_then_writes(data_dir: Path) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None
        review = services.ledger.require(paused.final_output.review.id)
        clock = StillClock(datetime.fromisoformat(review.expires_at) - timedelta(seconds=1))
        with later_reviews(services, clock) as later:
            swept: list[bool] = []
            sweep = later.sweep

            def counted_sweep(*, recover: bool = True) -> dict[str, list[str]]:
                swept.append(recover)
                return sweep(recover=recover)

            later.sweep = counted_sweep  # type: ignore[method-assign]

            assert expire_overdue_and_count_pending(later) == 1
            assert swept == []  # nothing due: no sweep, no write
            clock.now = datetime.fromisoformat(review.expires_at)
            assert expire_overdue_and_count_pending(later) == 0
            assert swept == [False]  # expiring needs no server: nothing is recovered
            assert later.ledger.require(review.id).status == "expired"
            assert expire_overdue_and_count_pending(later) == 0 and swept == [False]
