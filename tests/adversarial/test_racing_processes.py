"""A decision, a withdrawal and a sweep racing each other in separate processes on PostgreSQL.

The attack: the requester withdraws while a reviewer approves and ``reviews sweep`` (cron, or
another replica starting) runs, each a ``gatehouse`` process of its own on one PostgreSQL
database: once for a review that is still in time, once for one past its deadline (the sweep
and the decider's own sweep both try to expire it while the withdrawal tries to cancel it). A
race lost in the wrong way would run the call twice, run it after a withdrawal, end a thread
one way and its review another, or leave the audit log telling two stories.

First tried: held. Exactly one outcome per review (compare-and-set), the losers exit 3, the
e-mail is sent at most once and only for an approval, the thread ends as its review did, and
the audit chain verifies with one settling event per review. Kept as a regression test.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from graph.runner import thread_config
from tests.backends import postgres_schema
from tests.reviews.review_support import (
    EMAIL_REQUEST,
    TEST_DB_URL,
    email_servers,
    finish_all,
    outbox,
    run_sql,
    services_for,
    start_gatehouse,
)

# Several interpreters start at once on two shared cores: generous, a hang still fails.
PROCESS_TIMEOUT = 300
# What settles a review, in the audit log: one of these per review, never two.
SETTLING = {"decision", "review_cancelled", "review_expired"}
# The thread's final status for each way the review ended.
THREAD_STATUS = {"executed": "ok", "cancelled": "cancelled", "expired": "expired"}

pytestmark = pytest.mark.processes


@pytest.fixture
def on_postgres(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with postgres_schema() as url:
        monkeypatch.setenv(TEST_DB_URL, url)
        yield url


def _paused(data: Path, servers: Path, count: int) -> list[tuple[str, str]]:
    """``count`` e-mail requests waiting for a reviewer: (review id, thread id) each."""
    waiting = []
    with services_for(data, servers=servers) as services:
        for n in range(count):
            run = services.requests.ask(f"{EMAIL_REQUEST} {n}", requester="operator")
            assert run.final_output.review is not None
            waiting.append((run.final_output.review.id, run.final_output.thread_id))
    return waiting


def test_a_decision_a_withdrawal_and_a_sweep_in_separate_processes_settle_each_review_once(
    data_dir: Path, on_postgres: str
) -> None:
    servers = email_servers(data_dir)
    (in_time, in_time_thread), (overdue, overdue_thread) = _paused(data_dir, servers, 2)
    run_sql(
        data_dir, f"UPDATE reviews SET expires_at = '2000-01-01T00:00:00.000+00:00' WHERE id = '{overdue}'"
    )

    def decide(review: str) -> list[str]:
        return ["reviews", "decide", review, "--approve", "--reviewer", "reviewer", "--servers", str(servers)]

    def withdraw(review: str) -> list[str]:
        return ["reviews", "withdraw", review, "--user", "operator"]

    commands = [
        decide(in_time),
        withdraw(in_time),
        decide(overdue),
        withdraw(overdue),
        ["reviews", "sweep", "--servers", str(servers)],
    ]
    started = [start_gatehouse(data_dir, *command) for command in commands]
    results = finish_all(started, timeout=PROCESS_TIMEOUT)
    codes = [code for code, _, _ in results]
    errors = [err for _, _, err in results]

    assert "Traceback" not in "".join(errors), errors
    assert codes[4] == 0, errors[4]  # the sweep
    with services_for(data_dir, servers=servers) as services:
        statuses = {review: services.ledger.require(review).status for review in (in_time, overdue)}
        events = services.audit.events()
        assert services.audit.verify().ok
        assert services.ledger.count("pending") == 0
        assert services.ledger.unfinished_executions(only_lost=False) == []
        threads = {
            review: services.graph.get_state(thread_config(thread)).values["final_output"]["status"]
            for review, thread in ((in_time, in_time_thread), (overdue, overdue_thread))
        }

    # In time: the decision or the withdrawal won, and the other was told it lost (exit 3).
    assert statuses[in_time] in {"executed", "cancelled"}
    assert sorted(codes[0:2]) == [0, 3], errors[0:2]
    assert codes[0 if statuses[in_time] == "executed" else 1] == 0
    # Overdue: expired by a sweep, or withdrawn first; never approved, never sent.
    assert statuses[overdue] in {"expired", "cancelled"}
    assert codes[2] != 0, errors[2]
    assert codes[3] == (0 if statuses[overdue] == "cancelled" else 3), errors[3]

    for review, status in statuses.items():
        kinds = Counter(e.kind for e in events if e.review_id == review)
        assert sum(kinds[kind] for kind in SETTLING) == 1, (review, kinds)
        assert kinds["execution_started"] == (1 if status == "executed" else 0), (review, kinds)
        assert threads[review] == THREAD_STATUS[status], (review, status, threads[review])
    sent = [message["body"] for message in outbox(data_dir)]
    assert sent == (["hi 0"] if statuses[in_time] == "executed" else [])
