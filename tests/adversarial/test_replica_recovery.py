"""Attack: a second replica recovers a call another replica started.

Replica A (a `gatehouse reviews decide` process) approves a review and starts the call; the
server (tests/held_server.py's mail server) records the effect and holds the answer. Replica B,
on the same database (SQLite file and PostgreSQL), sweeps as `gatehouse reviews sweep` does and
as the app does when it starts. B must neither run the call a second time nor declare A's live
call lost while A is alive and the call is within its time limit; once A dies mid-call (kill -9),
exactly one sweeper marks it ``outcome_unknown``, the operator is told it may have run, and
nobody runs it again: the effect happens once.

First tried: a sweep while A was alive and the call young left it alone, and once A died two
sweepers at once marked it ``outcome_unknown`` exactly once (held). The defect: a sweep ten
minutes after the decision took A's decision over although A was alive (the same host, its
process checkable) and its call within a time limit of an hour: B continued the thread, its
re-run invoke step found the start recorded and no result, and asked a reviewer again flagged
``outcome_unknown`` about a call that was still running (and A, answering later, wrote over
the thread). Now a decision whose call has started is left to the call's own rule: lost once
its process is gone, or once its time limit (recorded with its start) is well past when the
process cannot be checked.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graph.runner import pending_interrupt
from mcp_host.sdk_client import SdkMcpClient
from reviews.errors import AlreadyDecidedError
from reviews.ledger import ReviewLedger
from tests.held_server import Hold, entry, mail_server
from tests.processes import alive
from tests.reviews.review_support import (
    TEST_DB_URL,
    StillClock,
    finish,
    json_lines,
    later_reviews,
    run_sql,
    services_for,
    settings_for,
    start_gatehouse,
)
from tests.support import wait_until

SEND = "Send a message to bob@example.com saying hi"
CALL_TIME_LIMIT = 3600.0  # the server's "timeout": the call may take an hour
NOTHING: dict[str, list[str]] = {"expired": [], "outcome_unknown": [], "resumed": []}


@pytest.fixture(autouse=True)
def _storage_backend(backend: str | Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both backends, as tests/reviews does: the replicas share a SQLite file or PostgreSQL."""
    if isinstance(backend, str):
        monkeypatch.setenv(TEST_DB_URL, backend)
    else:
        monkeypatch.delenv(TEST_DB_URL, raising=False)


class HeldCall:
    """The held mail server's files: one line per send in ``effects``; ``release`` lets it answer."""

    def __init__(self, data: Path) -> None:
        self.effects = data / "effects.jsonl"
        self.release = data / "release"
        server = entry("mail", Hold(60, self.release), effects=self.effects) | {"timeout": CALL_TIME_LIMIT}
        self.servers = data / "held-servers.json"
        self.servers.write_text(json.dumps({"mcpServers": {"slow": server}}), encoding="utf-8")

    def sends(self) -> list[dict[str, Any]]:
        return json_lines(self.effects)


@pytest.fixture
def held(data_dir: Path) -> HeldCall:
    return HeldCall(data_dir)


def _paused_send(data: Path, held: HeldCall) -> tuple[str, str]:
    with services_for(data, servers=held.servers) as services:
        paused = services.requests.ask(SEND, requester="operator")
    assert paused.final_output.status == "needs_review"
    assert paused.final_output.review is not None
    return paused.final_output.review.id, paused.final_output.thread_id


@contextlib.contextmanager
def replica_a_in_the_call(data: Path, held: HeldCall, review_id: str) -> Iterator[subprocess.Popen[str]]:
    """Replica A approves ``review_id`` and is inside the call (its start recorded, the effect
    done, the answer held) when this yields. Whatever happens, A and its server are gone after."""
    decider = start_gatehouse(
        data, "reviews", "decide", review_id, "--approve", "--reviewer", "reviewer",
        "--servers", str(held.servers), "--json",
        new_session=True,
    )  # fmt: skip
    ledger = ReviewLedger(settings_for(data).open_database())

    def in_the_call() -> bool:
        assert decider.poll() is None, f"replica A ended early: {decider.communicate()}"
        started = [r.id for r in ledger.unfinished_executions(only_lost=False)]
        return len(held.sends()) == 1 and started == [review_id]

    try:
        wait_until(in_the_call, timeout=60, what="replica A to be inside the approved call")
        ledger.close()
        yield decider
    finally:
        ledger.close()
        held.release.touch()
        if decider.poll() is None:
            finish(decider, timeout=60)
        for send in held.sends():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(send["pid"]), signal.SIGKILL)


def _kill_mid_call(decider: subprocess.Popen[str], held: HeldCall) -> None:
    """kill -9 replica A's process group, then the server it started (the SDK starts stdio
    servers in a session of their own, so the group does not reach it)."""
    os.killpg(decider.pid, signal.SIGKILL)
    finish(decider, timeout=30)
    server = int(held.sends()[0]["pid"])
    with contextlib.suppress(ProcessLookupError):
        os.kill(server, signal.SIGKILL)
    wait_until(lambda: not alive(server), timeout=30, what="the killed server to be gone")


def _sweep(data: Path, held: HeldCall) -> subprocess.Popen[str]:
    return start_gatehouse(data, "reviews", "sweep", "--json", "--servers", str(held.servers))


def _swept(process: subprocess.Popen[str]) -> dict[str, Any]:
    code, out, err = finish(process, timeout=60)
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    report.pop("notifications", None)
    return report


@pytest.mark.processes
def test_a_replica_sweeping_while_another_runs_the_approved_call_leaves_it_alone_and_it_runs_once(
    data_dir: Path, held: HeldCall
) -> None:
    review_id, thread_id = _paused_send(data_dir, held)

    with replica_a_in_the_call(data_dir, held, review_id) as replica_a:
        # Replica B sweeps (cron, or B starting) while A waits for the answer...
        assert _swept(_sweep(data_dir, held)) == NOTHING
        with services_for(data_dir, servers=held.servers) as services:
            # ...and again eleven minutes after the decision: A is alive and its call is within
            # its hour. Then as if A were on another host, whose process nobody here can check.
            later = StillClock(datetime.now(UTC) + timedelta(minutes=11))
            with later_reviews(services, later) as replica_b:
                assert replica_b.sweep() == NOTHING
                run_sql(data_dir, *_on_another_host(review_id))
                assert replica_b.sweep() == NOTHING
            assert services.ledger.require(review_id).status == "approved"
            assert pending_interrupt(services.graph, thread_id) is None
        held.release.touch()
        code, out, err = finish(replica_a, timeout=60)

    assert code == 0, err
    assert json.loads(out)["review"]["status"] == "executed"
    assert len(held.sends()) == 1
    with services_for(data_dir, servers=held.servers) as services:
        kinds = [e.kind for e in services.audit.events(thread_id=thread_id)]
        assert kinds.count("execution_started") == 1
        assert kinds.count("execution_result") == 1
        assert "outcome_unknown" not in kinds and "execution_refused" not in kinds
        assert [r.id for r in services.ledger.queue() if r.thread_id == thread_id] == [review_id]
        assert services.audit.verify().ok


@pytest.mark.processes
def test_once_the_replica_running_the_call_dies_one_sweeper_marks_it_outcome_unknown_and_nobody_runs_it_again(
    data_dir: Path, held: HeldCall
) -> None:
    review_id, thread_id = _paused_send(data_dir, held)

    with replica_a_in_the_call(data_dir, held, review_id) as replica_a:
        _kill_mid_call(replica_a, held)
        # Two replicas restart (each sweeps as it starts) at once.
        reports = [_swept(process) for process in [_sweep(data_dir, held), _sweep(data_dir, held)]]

    assert sorted(report["outcome_unknown"] for report in reports) == [[], [review_id]]
    assert all(report["resumed"] == [] for report in reports)
    assert len(held.sends()) == 1  # the effect happened once: nobody ran the call again
    with services_for(data_dir, servers=held.servers) as services:
        assert services.reviews.sweep() == NOTHING  # and again: nothing left to do
        assert services.ledger.require(review_id).status == "outcome_unknown"
        waiting = pending_interrupt(services.graph, thread_id)
        assert waiting is not None and waiting["stage"] == "after_failure"
        assert waiting["review_id"] == f"{thread_id}-r2"
        assert "outcome_unknown" in [flag["code"] for flag in waiting["flags"]]
        kinds = [e.kind for e in services.audit.events(thread_id=thread_id)]
        assert kinds.count("execution_started") == 1
        assert kinds.count("outcome_unknown") == 1
        assert "execution_result" not in kinds
        assert services.audit.verify().ok
        # The operator's thread says the call may have run.
        told = (services.conversations.messages(thread_id)[-1].output or {}).get("response") or ""
        assert "may have run" in told, told
        # The first review is settled: approving it again is refused and runs nothing.
        with pytest.raises(AlreadyDecidedError):
            services.reviews.decide(review_id, reviewer="reviewer2", approve=True)
    assert len(held.sends()) == 1


def test_a_call_on_a_replica_nobody_can_check_is_taken_as_lost_only_once_its_time_limit_and_ten_minutes_are_past(
    data_dir: Path, tmp_path: Path
) -> None:
    effects, release = tmp_path / "effects.jsonl", tmp_path / "release"
    with (
        SdkMcpClient({"slow": mail_server(effects, Hold(60, release))}, call_timeout=120) as pool,
        services_for(data_dir, mcp=pool) as services,
    ):
        paused = services.requests.ask(SEND, requester="operator")
        assert paused.final_output.review is not None
        review_id = paused.final_output.review.id
        replica_a = threading.Thread(
            target=lambda: services.reviews.decide(review_id, reviewer="reviewer", approve=True)
        )
        replica_a.start()
        try:
            wait_until(
                lambda: (
                    json_lines(effects) != []
                    and [r.id for r in services.ledger.unfinished_executions(only_lost=False)] == [review_id]
                ),
                timeout=30,
                what="the approved call to start",
            )
            run_sql(data_dir, *_on_another_host(review_id))
            started = datetime.fromisoformat(_started_at(data_dir, review_id))
            later = StillClock(started + timedelta(seconds=120) + timedelta(minutes=9))
            with later_reviews(services, later) as replica_b:
                assert replica_b.sweep() == NOTHING  # within its time limit and the grace
                later.advance(2 * 60)
                assert replica_b.sweep() == NOTHING | {"outcome_unknown": [review_id]}
                assert replica_b.sweep() == NOTHING
        finally:
            release.touch()
            replica_a.join(timeout=30)
        assert not replica_a.is_alive()
        # The answer that came after the verdict does not rewrite it.
        assert services.ledger.require(review_id).status == "outcome_unknown"
        kinds = [e.kind for e in services.audit.events()]
        assert kinds.count("outcome_unknown") == 1
    assert len(json_lines(effects)) == 1


def _on_another_host(review_id: str) -> tuple[str, str]:
    """A's rows as a replica on another host would have written them: its process cannot be
    checked from here."""
    return (
        f"UPDATE review_executions SET owner_host = 'replica-elsewhere' WHERE review_id = '{review_id}'",
        f"UPDATE reviews SET decider_host = 'replica-elsewhere' WHERE id = '{review_id}'",
    )


def _started_at(data: Path, review_id: str) -> str:
    ledger = ReviewLedger(settings_for(data).open_database())
    try:
        with ledger.database.read() as conn:
            row = conn.execute(
                "SELECT started_at FROM review_executions WHERE review_id = ?", (review_id,)
            ).fetchone()
    finally:
        ledger.close()
    return str(row["started_at"])
