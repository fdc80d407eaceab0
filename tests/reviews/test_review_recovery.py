"""A review outlives the process that opened it, and a call whose process died is never run
again by itself. Real processes, killed for real."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from gatehouse.wiring import Services
from graph.runner import pending_interrupt, thread_config
from reviews.ledger import ReviewLedger
from tests.processes import alive
from tests.reviews.review_support import (
    EMAIL_REQUEST,
    REPO,
    email_servers,
    finish,
    gatehouse_process,
    json_lines,
    outbox,
    run_sql,
    services_for,
    settings_for,
    slow_servers,
    start_gatehouse,
)
from tests.support import wait_until


@pytest.mark.processes
def test_a_review_opened_by_one_process_is_approved_by_another_and_the_call_runs_once(
    data_dir: Path,
) -> None:
    servers = email_servers(data_dir)

    asked = gatehouse_process(data_dir, "ask", "--json", "--servers", str(servers), EMAIL_REQUEST)
    assert asked.returncode == 0, asked.stderr
    paused = json.loads(asked.stdout)
    assert paused["status"] == "needs_review"
    review_id, thread_id = paused["review"]["id"], paused["thread_id"]
    assert outbox(data_dir) == []

    decided = gatehouse_process(
        data_dir, "reviews", "decide", review_id, "--approve", "--reviewer", "reviewer",
        "--servers", str(servers), "--json",
    )  # fmt: skip
    assert decided.returncode == 0, decided.stderr
    report = json.loads(decided.stdout)
    assert report["review"]["status"] == "executed"
    assert report["review"]["decided_by"] == "reviewer"
    assert report["final_output"]["status"] == "ok"

    assert [(m["to"], m["body"]) for m in outbox(data_dir)] == [("bob@example.com", "hi")]
    with services_for(data_dir, servers=servers) as services:
        final = services.graph.get_state(thread_config(thread_id)).values["final_output"]
        assert final["status"] == "ok"
        assert final["review"]["decided_by"] == "reviewer"
        assert pending_interrupt(services.graph, thread_id) is None
        kinds = [e.kind for e in services.audit.events(thread_id=thread_id)]
        assert kinds.count("execution_started") == 1
        assert kinds.count("execution_result") == 1
        assert services.audit.verify().ok


@pytest.mark.processes
def test_a_call_whose_process_was_killed_mid_call_becomes_outcome_unknown_and_is_not_run_again(
    data_dir: Path,
) -> None:
    effects = data_dir / "effects.jsonl"
    servers = slow_servers(data_dir, effects, delay=60)
    with services_for(data_dir, servers=servers) as services:
        paused = services.requests.ask("Send a message to bob@example.com saying hi", requester="operator")
    assert paused.final_output.status == "needs_review"
    assert paused.final_output.selected_capability is not None
    assert paused.final_output.selected_capability.name == "send_message"
    assert paused.final_output.review is not None
    review_id, thread_id = paused.final_output.review.id, paused.final_output.thread_id

    # The approving process starts the call and hangs in it (the server answers after 60 s).
    decider = start_gatehouse(
        data_dir, "reviews", "decide", review_id, "--approve", "--reviewer", "reviewer",
        "--servers", str(servers),
        new_session=True,
    )  # fmt: skip
    ledger = ReviewLedger(settings_for(data_dir).open_database())

    def started_and_hanging() -> bool:
        assert decider.poll() is None, f"the deciding process ended early: {decider.communicate()}"
        return len(json_lines(effects)) == 1 and [
            r.id for r in ledger.unfinished_executions(only_lost=False)
        ] == [review_id]

    try:
        wait_until(
            started_and_hanging,
            timeout=60,
            what="the approved call to take effect with its start recorded",
        )
    finally:
        ledger.close()
        # The host dies mid-call: its whole process group, then the server it started (the
        # SDK starts stdio servers in a session of their own, so the group does not reach it).
        os.killpg(decider.pid, signal.SIGKILL)
        finish(decider, timeout=30)
    server_pid = int(json_lines(effects)[0]["pid"])
    with contextlib.suppress(ProcessLookupError):
        os.kill(server_pid, signal.SIGKILL)
    wait_until(lambda: not alive(server_pid), timeout=30, what="the killed server to be gone")

    with services_for(data_dir, servers=servers) as services:
        swept = services.reviews.sweep()

        assert swept == {"expired": [], "outcome_unknown": [review_id], "resumed": []}
        assert services.ledger.require(review_id).status == "outcome_unknown"
        waiting = pending_interrupt(services.graph, thread_id)
        assert waiting is not None
        assert waiting["stage"] == "after_failure"
        assert waiting["review_id"] == f"{thread_id}-r2"
        assert "outcome_unknown" in [flag["code"] for flag in waiting["flags"]]
        follow_up = services.ledger.latest_for_thread(thread_id)
        assert follow_up is not None
        assert (follow_up.id, follow_up.status, follow_up.stage) == (
            f"{thread_id}-r2",
            "pending",
            "after_failure",
        )
        kinds = [e.kind for e in services.audit.events(thread_id=thread_id)]
        assert kinds.count("execution_started") == 1
        assert "execution_refused" in kinds
        assert "outcome_unknown" in kinds
        assert "execution_result" not in kinds
        assert services.audit.verify().ok

        rows = [r.model_dump() for r in services.ledger.queue()]
        events = len(services.audit.events())
        assert services.reviews.sweep() == {"expired": [], "outcome_unknown": [], "resumed": []}
        assert [r.model_dump() for r in services.ledger.queue()] == rows
        assert len(services.audit.events()) == events
    assert len(json_lines(effects)) == 1


@pytest.mark.processes
@pytest.mark.parametrize(
    ("point", "status_after_crash", "status_after_sweep", "sent", "thread_status"),
    [
        pytest.param("before_start", "approved", "executed", 1, "ok", id="after-the-decision"),
        pytest.param("after_steps", "approved", "executed", 1, "ok", id="after-the-steps"),
        pytest.param("after_start", "approved", "outcome_unknown", 0, "needs_review", id="after-the-start"),
        pytest.param("after_result", "executed", "executed", 1, "ok", id="after-the-result"),
    ],
)
def test_a_decision_whose_process_died_is_carried_out_by_the_sweep_exactly_once(
    data_dir: Path,
    point: str,
    status_after_crash: str,
    status_after_sweep: str,
    sent: int,
    thread_status: str,
) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
    assert paused.final_output.review is not None
    review_id, thread_id = paused.final_output.review.id, paused.final_output.thread_id

    crashed = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.reviews.crashing_decider",
            str(data_dir),
            str(servers),
            review_id,
            point,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert crashed.returncode == 86, crashed.stderr

    with services_for(data_dir, servers=servers) as services:
        assert services.ledger.require(review_id).status == status_after_crash

        swept = services.reviews.sweep()

        assert review_id in swept["resumed"] + swept["outcome_unknown"]
        assert services.ledger.require(review_id).status == status_after_sweep
        final = services.graph.get_state(thread_config(thread_id)).values["final_output"]
        waiting = pending_interrupt(services.graph, thread_id)
        if thread_status == "ok":
            assert waiting is None
            assert final["status"] == "ok"
        else:
            # It may have run: a person decides, told so; it is never run again by itself.
            assert waiting is not None and waiting["stage"] == "after_failure"
            assert "outcome_unknown" in [flag["code"] for flag in waiting["flags"]]
        kinds = [e.kind for e in services.audit.events(thread_id=thread_id)]
        assert kinds.count("execution_started") == 1
        assert services.audit.verify().ok

        # A second sweep (or the app starting again) finds nothing left to do.
        events = len(services.audit.events())
        assert services.reviews.sweep() == {"expired": [], "outcome_unknown": [], "resumed": []}
        assert len(services.audit.events()) == events
    assert len(outbox(data_dir)) == sent


def _approved_not_carried_out(services: Services) -> str:
    """An e-mail review approved in the ledger by this process, its decision not carried out."""
    paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
    assert paused.final_output.review is not None
    review_id = paused.final_output.review.id
    services.ledger.record_decision(
        review_id, reviewer="reviewer", action="approve", reason=None, arguments=None
    )
    return review_id


@pytest.mark.usefixtures("bundled_in_process")
def test_a_decision_still_being_carried_out_by_a_live_process_is_left_to_it(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        # Recorded by this (live) process, not yet carried out: a sweep must not take it over.
        review_id = _approved_not_carried_out(services)

        assert services.reviews.sweep()["resumed"] == []
        assert services.ledger.require(review_id).status == "approved"
    assert outbox(data_dir) == []


@pytest.mark.processes
def test_a_review_another_live_sweeper_has_just_claimed_is_not_claimed_again(data_dir: Path) -> None:
    # Found as two restarting replicas that both marked one call outcome_unknown: the second
    # read the row after the first had claimed it, and compared against what it read.
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        review_id = _approved_not_carried_out(services)
        other_sweeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            run_sql(
                data_dir,
                f"UPDATE reviews SET decider_host = '{socket.gethostname()}', decider_pid = {other_sweeper.pid}"
                f" WHERE id = '{review_id}'",
            )
            as_read_after_its_claim = services.ledger.require(review_id)

            assert not services.ledger.claim(as_read_after_its_claim)
            assert services.ledger.require(review_id).decider_pid == other_sweeper.pid
        finally:
            other_sweeper.kill()
            other_sweeper.wait()
        # Once that process is gone, the review is there to be taken over.
        assert services.ledger.claim(services.ledger.require(review_id))


@pytest.mark.usefixtures("bundled_in_process")
def test_an_approval_whose_thread_ended_without_the_call_is_closed_as_not_run(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None
        review_id, thread_id = paused.final_output.review.id, paused.final_output.thread_id
        services.reviews.withdraw(thread_id, by="operator")
    # An approval recorded by a process that died, on a thread that ended without the call:
    # continuing it runs nothing, and the review must not stay "approved" for ever.
    run_sql(
        data_dir,
        "UPDATE reviews SET status = 'approved', decided_by = 'reviewer', decider_host = NULL,"
        f" decider_pid = NULL, carried_out_at = NULL WHERE id = '{review_id}'",
    )
    with services_for(data_dir, servers=servers) as services:
        assert services.reviews.sweep()["resumed"] == [review_id]
        assert services.ledger.require(review_id).status == "not_run"
        kinds = [e.kind for e in services.audit.events(thread_id=thread_id)]
        assert kinds[-1] == "review_not_run"
        assert services.reviews.sweep()["resumed"] == []
    assert outbox(data_dir) == []


class _KilledBeforeTheAnswer(Exception):
    """Stands for a kill -9 between the thread going on and its answer being recorded."""


@pytest.mark.usefixtures("bundled_in_process")
def test_a_sweep_killed_after_a_thread_ended_and_before_its_answer_was_recorded_records_it_next_time(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None
        review_id, thread_id = paused.final_output.review.id, paused.final_output.thread_id
    run_sql(
        data_dir, f"UPDATE reviews SET expires_at = '2000-01-01T00:00:00.000+00:00' WHERE id = '{review_id}'"
    )
    with services_for(data_dir, servers=servers) as services:

        def killed(*args: object, **kwargs: object) -> None:
            raise _KilledBeforeTheAnswer

        monkeypatch.setattr(services.reviews, "_record_answer", killed)
        with pytest.raises(_KilledBeforeTheAnswer):
            services.reviews.sweep()
        # The thread went on to its end; its answer and the review's carrying out never committed.
        assert (
            services.graph.get_state(thread_config(thread_id)).values["final_output"]["status"] == "expired"
        )
        assert services.ledger.require(review_id).carried_out_at is None
    run_sql(data_dir, f"UPDATE reviews SET decider_host = NULL, decider_pid = NULL WHERE id = '{review_id}'")

    with services_for(data_dir, servers=servers) as services:
        assert services.reviews.sweep()["resumed"] == [review_id]
        answers = [m for m in services.conversations.messages(thread_id) if m.role == "gatehouse"]
        assert [(m.output or {}).get("status") for m in answers] == ["needs_review", "expired"]
        assert services.reviews.sweep()["resumed"] == []
        answers_again = [m for m in services.conversations.messages(thread_id) if m.role == "gatehouse"]
        assert len(answers_again) == 2
