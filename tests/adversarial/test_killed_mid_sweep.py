"""Attack: kill -9 `gatehouse reviews sweep` while it works through many expired reviews, then
run it again.

Two hundred reviews are past their deadline: three of them wait in real threads (an operator's
request for an e-mail), the rest are queue rows of requests whose threads are gone. The sweep
expires them all in one transaction, then resumes each thread to end ``expired``; the test
kills it (SIGKILL) once some, not all, are carried out, tries to approve a review the dead
sweep expired, and sweeps again. Expected: every review expired exactly once, one
``review_expired`` event each, nothing approved, every thread ended ``expired`` once, the audit
chain intact (SQLite file and PostgreSQL).

First tried: held. The expiry and its events are one transaction, so the kill leaves no review
half-expired; the second sweep finishes the threads the first left (their decider, the dead
sweep, is gone) and expires nothing again; the approval is refused as expired.
"""

from __future__ import annotations

import signal
import uuid
from collections import Counter
from pathlib import Path

import pytest

from graph.runner import pending_interrupt, thread_config
from reviews.ledger import ReviewLedger
from reviews.service import ReviewExpiredError
from storage.transactions import one_transaction
from tests.reviews.review_support import (
    EMAIL_REQUEST,
    TEST_DB_URL,
    email_review,
    email_servers,
    finish,
    run_sql,
    services_for,
    settings_for,
    start_gatehouse,
)
from tests.support import wait_until

pytestmark = pytest.mark.processes

# Enough that the sweep is still running when the test sees its first expiry and kills it: with
# 200, a test process kept off the CPU for a moment (a loaded 2-core machine) saw all done.
REVIEWS = 600
THREADS = 3  # of them, waiting in real threads


@pytest.fixture(autouse=True)
def _storage_backend(backend: str | Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both backends, as tests/reviews does."""
    if isinstance(backend, str):
        monkeypatch.setenv(TEST_DB_URL, backend)
    else:
        monkeypatch.delenv(TEST_DB_URL, raising=False)


def _overdue_reviews(data: Path, servers: Path) -> tuple[list[str], list[str]]:
    """REVIEWS pending reviews, all past their deadline: the ids, and the real threads'."""
    with services_for(data, servers=servers) as services:
        threads = []
        for _ in range(THREADS):
            paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
            assert paused.final_output.review is not None
            threads.append(paused.final_output.thread_id)
        # The rest in one transaction: opening them one by one would cost the test seconds.
        with one_transaction(services.ledger.database):
            for _ in range(REVIEWS - THREADS):
                thread = uuid.uuid4().hex
                services.ledger.open_review(email_review(f"{thread}-r1", thread, {"to": "bob@example.com"}))
        ids = [review.id for review in services.ledger.queue("pending")]
    run_sql(data, "UPDATE reviews SET expires_at = '2000-01-01T00:00:00.000+00:00'")
    assert len(ids) == REVIEWS
    return ids, threads


def _carried_out(ledger: ReviewLedger) -> int:
    with ledger.database.read() as conn:
        row = conn.execute("SELECT COUNT(*) AS n FROM reviews WHERE carried_out_at IS NOT NULL").fetchone()
    return int(row["n"])


def test_a_sweep_killed_halfway_and_run_again_expires_each_review_once_and_approves_none(
    data_dir: Path,
) -> None:
    servers = email_servers(data_dir)
    ids, threads = _overdue_reviews(data_dir, servers)

    sweeper = start_gatehouse(data_dir, "reviews", "sweep", "--json", "--servers", str(servers))
    ledger = ReviewLedger(settings_for(data_dir).open_database())
    try:
        wait_until(
            lambda: _carried_out(ledger) > 0 or sweeper.poll() is not None,
            timeout=60,
            what="the sweep to carry out its first expiry",
        )
        sweeper.send_signal(signal.SIGKILL)
        finish(sweeper, timeout=30)
        carried = _carried_out(ledger)
    finally:
        ledger.close()
    assert sweeper.returncode == -signal.SIGKILL, "the sweep ended before it could be killed"
    assert 0 < carried < REVIEWS, carried

    with services_for(data_dir, servers=servers) as services:
        assert Counter(r.status for r in services.ledger.queue()) == {"expired": REVIEWS}
        # A reviewer acting on a review the dead sweep expired, before anything finishes it.
        left = [i for i in ids if services.ledger.require(i).carried_out_at is None]
        with pytest.raises(ReviewExpiredError):
            services.reviews.decide(left[0], reviewer="reviewer", approve=True)

        swept = services.reviews.sweep()

        assert swept["expired"] == [] and swept["outcome_unknown"] == []
        assert sorted(swept["resumed"]) == sorted(left)
        assert services.reviews.sweep() == {"expired": [], "outcome_unknown": [], "resumed": []}
        rows = services.ledger.queue()
        assert Counter(r.status for r in rows) == {"expired": REVIEWS}
        assert all(r.carried_out_at is not None and r.decisions == [] for r in rows)
        events = services.audit.events()
        expired = Counter(e.review_id for e in events if e.kind == "review_expired")
        assert expired == dict.fromkeys(ids, 1)
        assert not [e for e in events if e.kind in {"decision", "execution_started"}]
        for thread in threads:
            assert pending_interrupt(services.graph, thread) is None
            final = services.graph.get_state(thread_config(thread)).values["final_output"]
            assert final["status"] == "expired"
            answers = [m for m in services.conversations.messages(thread) if m.role == "gatehouse"]
            assert [(m.output or {}).get("status") for m in answers] == ["needs_review", "expired"]
        assert services.audit.verify().ok
