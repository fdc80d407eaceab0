"""Many people deciding one review at once: one decision counts, the call runs once.

Real SQLite files, the real e-mail server over stdio, real threads and real processes.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from mcp_host.sdk_client import SdkMcpClient
from reviews.errors import AlreadyDecidedError
from reviews.ledger import Review
from reviews.service import DecideResult
from tests.held_server import Hold, mail_server
from tests.reviews.review_support import (
    EMAIL_REQUEST,
    email_servers,
    finish_all,
    gatehouse,
    outbox,
    policy_file,
    services_for,
    start_gatehouse,
)
from tests.support import wait_until

DECIDERS = 20
# Processes race through the database's locks, not a barrier: a few more than the machine's two
# cores already reach decide() together (twenty cost 60-170 s of interpreter starts to show no
# more; the twenty threads above cover the many-deciders case).
PROCESS_DECIDERS = 5
NUMBERED_REVIEWERS = {f"r{n}": "reviewer" for n in range(1, DECIDERS + 1)}


def _paused_email_review(data: Path, *, servers: Path, policy: Path | None = None) -> str:
    with services_for(data, servers=servers, policy=policy) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
    assert paused.final_output.status == "needs_review"
    assert paused.final_output.review is not None
    return paused.final_output.review.id


@pytest.mark.usefixtures("bundled_in_process")
def test_of_twenty_threads_deciding_one_review_exactly_one_wins_and_the_email_is_sent_once(
    data_dir: Path,
) -> None:
    servers = email_servers(data_dir)
    policy = policy_file(data_dir, "numbered.toml", users=NUMBERED_REVIEWERS)
    with services_for(data_dir, servers=servers, policy=policy) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None
        review_id = paused.final_output.review.id
        start = threading.Barrier(DECIDERS, timeout=30)
        results: dict[str, DecideResult | BaseException] = {}

        def decide(reviewer: str) -> None:
            start.wait()
            try:
                results[reviewer] = services.reviews.decide(review_id, reviewer=reviewer, approve=True)
            except Exception as exc:  # noqa: BLE001 - any outcome is handed to the assertions
                results[reviewer] = exc

        threads = [threading.Thread(target=decide, args=(name,)) for name in NUMBERED_REVIEWERS]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert not [t for t in threads if t.is_alive()], "a decider never returned"

        winners = {name: r for name, r in results.items() if isinstance(r, DecideResult)}
        assert len(winners) == 1, results
        [(winner, won)] = winners.items()
        assert won.run is not None and won.run.final_output.status == "ok"
        losers = {name: r for name, r in results.items() if name != winner}
        assert len(losers) == DECIDERS - 1
        for name, refused in losers.items():
            assert isinstance(refused, AlreadyDecidedError), (name, refused)
            assert refused.by == winner
            assert f"already decided by {winner}" in str(refused)

        review = services.ledger.require(review_id)
        assert (review.status, review.decided_by) == ("executed", winner)
        assert [d.reviewer for d in review.decisions] == [winner]
        kinds = [e.kind for e in services.audit.events()]
        assert kinds.count("decision") == 1
        assert kinds.count("execution_started") == 1
        report = services.audit.verify()
        assert report.ok, report.problems
    assert [(m["to"], m["body"]) for m in outbox(data_dir)] == [("bob@example.com", "hi")]


@pytest.mark.processes
def test_of_five_processes_deciding_one_review_one_exits_0_and_the_others_exit_3(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    # `--policy` is passed as the brief's command line has it, but the reviewers are names the
    # shipped roster has too: the CLI ignores --policy today (see the xfail test below).
    policy = policy_file(data_dir, "numbered.toml", users=NUMBERED_REVIEWERS)
    review_id = _paused_email_review(data_dir, servers=servers)
    roster = ["reviewer", "reviewer2", "admin"]
    names = [roster[n % len(roster)] for n in range(PROCESS_DECIDERS)]

    decide = ["reviews", "decide", review_id, "--approve", "--servers", str(servers), "--policy", str(policy)]
    processes = [start_gatehouse(data_dir, *decide, "--reviewer", name) for name in names]
    # Interpreters importing LangGraph and the SDK on two shared cores: a CI run under load saw
    # one still compiling its graph after 120 s (its stacks said so). A hang is still caught,
    # with every process's stacks.
    results = finish_all(processes, timeout=300)

    codes = sorted(code for code, _, _ in results)
    assert codes == [0] + [3] * (PROCESS_DECIDERS - 1), [(code, err) for code, _, err in results]
    with services_for(data_dir, servers=servers) as services:
        review = services.ledger.require(review_id)
        assert review.status == "executed"
        winner = review.decided_by
        assert winner in roster
        assert services.audit.verify().ok
        assert [e.kind for e in services.audit.events()].count("execution_started") == 1
    for code, _, err in results:
        if code == 3:
            assert f"already decided by {winner}" in err
    assert len(outbox(data_dir)) == 1


@pytest.mark.usefixtures("bundled_in_process")
def test_reviews_decide_uses_the_policy_named_by_the_policy_option(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    policy = policy_file(data_dir, "numbered.toml", users=NUMBERED_REVIEWERS)
    review_id = _paused_email_review(data_dir, servers=servers, policy=policy)

    done = gatehouse(
        data_dir, "reviews", "decide", review_id, "--approve", "--reviewer", "r7",
        "--servers", str(servers), "--policy", str(policy),
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert len(outbox(data_dir)) == 1


@pytest.mark.usefixtures("bundled_in_process")
def test_a_decider_who_read_the_review_before_the_winner_resumed_is_told_who_decided(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator")
        assert paused.final_output.review is not None
        review_id = paused.final_output.review.id
        # Hold the late decider right after it read the review as pending (the permission
        # check comes between that read and the look at the thread): a deterministic
        # version of a scheduling that happens by itself between processes.
        parked, release = threading.Event(), threading.Event()
        check = services.reviews.check_permission

        def check_then_wait(review: Review, reviewer: str) -> None:
            check(review, reviewer)
            if reviewer == "reviewer2":
                parked.set()
                assert release.wait(timeout=30)

        monkeypatch.setattr(services.reviews, "check_permission", check_then_wait)
        late: dict[str, Any] = {}

        def decide_late() -> None:
            try:
                late["result"] = services.reviews.decide(review_id, reviewer="reviewer2", approve=True)
            except Exception as exc:  # noqa: BLE001 - any outcome is handed to the assertions
                late["result"] = exc

        thread = threading.Thread(target=decide_late)
        thread.start()
        try:
            assert parked.wait(timeout=30)
            won = services.reviews.decide(review_id, reviewer="reviewer", approve=True)
            assert won.run is not None and won.run.final_output.status == "ok"
        finally:
            release.set()
            thread.join(timeout=30)
        assert not thread.is_alive()

        assert isinstance(late["result"], AlreadyDecidedError), late["result"]
        assert late["result"].by == "reviewer"
    assert len(outbox(data_dir)) == 1


def test_a_second_decider_while_the_approved_call_is_still_running_does_not_declare_it_lost(
    data_dir: Path,
) -> None:
    effects, release = data_dir / "effects.jsonl", data_dir / "release"
    # The call hangs until the test releases it (at most 30 s).
    with (
        SdkMcpClient({"slow": mail_server(effects, Hold(30, release))}) as pool,
        services_for(data_dir, mcp=pool) as services,
    ):
        paused = services.requests.ask("Send a message to bob@example.com saying hi", requester="operator")
        assert paused.final_output.review is not None
        review_id, thread_id = paused.final_output.review.id, paused.final_output.thread_id
        first: dict[str, Any] = {}

        def approve() -> None:
            try:
                first["result"] = services.reviews.decide(review_id, reviewer="reviewer", approve=True)
            except Exception as exc:  # noqa: BLE001 - any outcome is handed to the assertions
                first["result"] = exc

        thread = threading.Thread(target=approve)
        thread.start()
        try:
            wait_until(
                lambda: (
                    effects.exists()
                    and [r.id for r in services.ledger.unfinished_executions(only_lost=False)] == [review_id]
                ),
                timeout=20,
                what="the approved call to start",
            )
            with pytest.raises(AlreadyDecidedError):
                services.reviews.decide(review_id, reviewer="reviewer2", approve=True)
        finally:
            release.touch()
            thread.join(timeout=30)
        assert not thread.is_alive()

        assert isinstance(first["result"], DecideResult), first["result"]
        kinds = [e.kind for e in services.audit.events()]
        assert "outcome_unknown" not in kinds
        assert [r.id for r in services.ledger.queue() if r.thread_id == thread_id] == [review_id]
        assert services.ledger.require(review_id).status == "executed"
    assert len(effects.read_text(encoding="utf-8").splitlines()) == 1
