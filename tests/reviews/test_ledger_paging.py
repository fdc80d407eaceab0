"""Paging the review ledger: the queue oldest first, the history newest decision first, counts
that agree with the lists, and every review carrying its own decisions (read in one batch)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from graph.state import ReviewPayload
from reviews.ledger import Review, ReviewLedger
from tests.reviews.review_support import EMAIL_TERMS, Clock, email_review


def payload(review_id: str, *, required_approvals: int = 1, expiry_minutes: int = 30) -> ReviewPayload:
    return email_review(
        review_id,
        f"thread-{review_id}",
        {"to": "bob@example.com", "body": f"message {review_id}"},
        terms=EMAIL_TERMS | {"expiry_minutes": expiry_minutes, "required_approvals": required_approvals},
    )


Action = Literal["approve", "reject"]


def scrambled_ids(count: int) -> list[str]:
    """Ids in an order unlike their sort order (37 is coprime with the counts used here)."""
    return [f"r{(n * 37) % count:04d}" for n in range(count)]


def open_all(ledger: ReviewLedger, ids: list[str], **terms: int) -> None:
    for review_id in ids:
        ledger.open_review(payload(review_id, **terms))


def decide(
    ledger: ReviewLedger,
    review_id: str,
    reviewer: str,
    action: Action,
    reason: str | None = None,
) -> None:
    arguments = ledger.require(review_id).arguments if action == "approve" else None
    ledger.record_decision(review_id, reviewer=reviewer, action=action, reason=reason, arguments=arguments)


def pages(read: Callable[[int, int], list[Review]], size: int) -> list[list[str]]:
    """Every page of ``read(limit, offset)`` until an empty one."""
    found: list[list[str]] = []
    while page := read(size, len(found) * size):
        assert len(page) <= size
        found.append([r.id for r in page])
        assert len(found) < 1000, "paging does not end"
    return found


# -- the queue -------------------------------------------------------------------------------------


def test_the_queue_pages_oldest_first_without_overlap_or_gaps(ledger: ReviewLedger) -> None:
    ids = scrambled_ids(120)
    open_all(ledger, ids)

    found = pages(lambda limit, offset: ledger.queue(limit=limit, offset=offset), 25)

    assert [len(page) for page in found] == [25, 25, 25, 25, 20]
    assert [review_id for page in found for review_id in page] == ids
    assert ledger.queue(limit=25, offset=120) == []
    assert [r.id for r in ledger.queue()] == ids


def test_the_queue_of_one_status_pages_over_that_status_only(ledger: ReviewLedger) -> None:
    ids = scrambled_ids(120)
    open_all(ledger, ids)
    rejected = ids[::3]
    for review_id in rejected:
        decide(ledger, review_id, "reviewer", "reject", "not now")
    pending = [review_id for review_id in ids if review_id not in rejected]

    found = pages(lambda limit, offset: ledger.queue("pending", limit=limit, offset=offset), 30)

    assert [review_id for page in found for review_id in page] == pending
    assert [len(page) for page in found] == [30, 30, 20]
    assert [r.id for r in ledger.queue("rejected", limit=10, offset=35)] == rejected[35:]
    assert {r.status for r in ledger.queue("pending", limit=200)} == {"pending"}


def test_counts_agree_with_the_lists(ledger: ReviewLedger, clock: Clock) -> None:
    ids = scrambled_ids(60)
    open_all(ledger, ids[:50])
    for review_id in ids[:10]:
        decide(ledger, review_id, "reviewer", "approve")
    for review_id in ids[10:15]:
        decide(ledger, review_id, "reviewer", "reject", "no")
    clock.skip(31)
    expired = ledger.expire_due()
    open_all(ledger, ids[50:])

    assert len(expired) == 35
    for status, expected in [("pending", 10), ("approved", 10), ("rejected", 5), ("expired", 35)]:
        assert ledger.count(status) == len(ledger.queue(status)) == expected, status
    assert ledger.count("executed") == 0
    assert ledger.count() == len(ledger.queue()) == 60
    assert ledger.count_decided() == len(ledger.history()) == 50


# -- the history -----------------------------------------------------------------------------------


def test_history_lists_decided_and_expired_reviews_newest_decision_first(
    ledger: ReviewLedger, clock: Clock
) -> None:
    ledger.open_review(payload("a"))
    ledger.open_review(payload("b"))
    ledger.open_review(payload("c"))
    ledger.open_review(payload("d"))
    ledger.open_review(payload("e", expiry_minutes=5))
    ledger.open_review(payload("f", expiry_minutes=5))
    decide(ledger, "b", "reviewer", "approve")
    decide(ledger, "d", "reviewer", "reject", "wrong recipient")
    clock.skip(10)
    assert sorted(r.id for r in ledger.expire_due()) == ["e", "f"]
    decide(ledger, "a", "reviewer", "approve")
    # What follows an approval (the call ran) keeps the review in the history.
    assert ledger.begin_execution("b", "hash", "thread-b")
    ledger.finish_execution("b", "executed")

    history = ledger.history()

    # e and f expired at the same moment: the later id first.
    assert [(r.id, r.status) for r in history] == [
        ("a", "approved"),
        ("f", "expired"),
        ("e", "expired"),
        ("d", "rejected"),
        ("b", "executed"),
    ]
    decided_at = [r.decided_at or "" for r in history]
    assert "" not in decided_at
    assert decided_at == sorted(decided_at, reverse=True)
    assert [r.id for r in ledger.history(limit=2, offset=1)] == ["f", "e"]
    assert [r.id for r in ledger.history(limit=10, offset=4)] == ["b"]
    assert ledger.count_decided() == 5
    assert [r.id for r in ledger.queue("pending")] == ["c"]


def test_history_pages_without_overlap_or_gaps(ledger: ReviewLedger) -> None:
    ids = scrambled_ids(120)
    open_all(ledger, ids)
    # Decided in an order unlike both the ids' and the reviews' creation order.
    decided_order = [ids[(n * 53) % 120] for n in range(120)]
    assert decided_order not in (ids, sorted(ids), sorted(ids, reverse=True))
    for n, review_id in enumerate(decided_order):
        decide(ledger, review_id, "reviewer", "approve" if n % 2 else "reject", "no")

    found = pages(lambda limit, offset: ledger.history(limit=limit, offset=offset), 25)

    assert [review_id for page in found for review_id in page] == decided_order[::-1]
    assert [len(page) for page in found] == [25, 25, 25, 25, 20]
    assert ledger.count_decided() == 120


# -- decisions on their reviews --------------------------------------------------------------------


def expected_decisions(review_id: str, n: int) -> list[tuple[str, Action, str | None]]:
    """What the scenario below records on the n-th review: nothing, one approval, two, a rejection."""
    scenarios: list[list[tuple[str, Action, str | None]]] = [
        [],
        [(f"alice-{review_id}", "approve", None)],
        [(f"alice-{review_id}", "approve", None), (f"bob-{review_id}", "approve", "fine")],
        [(f"carol-{review_id}", "reject", f"not {review_id}")],
    ]
    return scenarios[n % 4]


def test_every_review_on_a_page_carries_its_own_decisions(ledger: ReviewLedger) -> None:
    ids = scrambled_ids(40)
    open_all(ledger, ids, required_approvals=2)
    for n, review_id in enumerate(ids):
        for reviewer, action, reason in expected_decisions(review_id, n):
            decide(ledger, review_id, reviewer, action, reason)
    expected = {review_id: expected_decisions(review_id, n) for n, review_id in enumerate(ids)}

    listed: list[Review] = []
    for offset in range(0, 40, 7):
        listed += ledger.queue(limit=7, offset=offset)
    listed_history = ledger.history(limit=9, offset=3) + ledger.history(limit=100, offset=12)

    assert [r.id for r in listed] == ids
    for review in [*listed, *listed_history]:
        assert [(d.reviewer, d.action, d.reason) for d in review.decisions] == expected[review.id], review.id
        for d in review.approvals():
            assert d.arguments == review.arguments
    assert {r.id: r.status for r in listed} == {
        review_id: ["pending", "pending", "approved", "rejected"][n % 4] for n, review_id in enumerate(ids)
    }
    assert len(listed_history) == 17
    assert [r.id for r in listed_history] == [r.id for r in ledger.history()][3:]


def test_decisions_stay_with_their_reviews_across_hundreds_of_reviews_in_one_list(
    ledger: ReviewLedger,
) -> None:
    # More reviews than one query binds ids for: the decisions are read in several batches.
    ids = scrambled_ids(1001)
    open_all(ledger, ids)
    decided = {ids[0]: "first", ids[499]: "last of a batch", ids[500]: "first of the next", ids[-1]: "last"}
    for review_id, reason in decided.items():
        decide(ledger, review_id, f"reviewer-{review_id}", "reject", reason)

    everything = ledger.queue()

    assert [r.id for r in everything] == ids
    with_decisions = {r.id: [(d.reviewer, d.reason) for d in r.decisions] for r in everything if r.decisions}
    assert with_decisions == {
        review_id: [(f"reviewer-{review_id}", reason)] for review_id, reason in decided.items()
    }


def test_an_offset_without_a_limit_skips_that_many_reviews(ledger: ReviewLedger) -> None:
    ids = scrambled_ids(120)
    open_all(ledger, ids)

    assert [r.id for r in ledger.queue(offset=100)] == ids[100:]
