"""Who may decide, when, how many must agree, and what an approval covers: the review service
on a real database with the real e-mail server."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from gatehouse.wiring import Services, open_services
from graph.runner import pending_interrupt, thread_config
from graph.state import ReviewDecision
from reviews.errors import (
    AlreadyDecidedError,
    DecisionNotAllowedError,
    NothingToResumeError,
    NotPermittedError,
    ReviewError,
    ReviewNotFoundError,
)
from reviews.resume import resume
from reviews.service import ReviewExpiredError
from tests.backends import postgres_schema
from tests.in_process_servers import serve_bundled_in_process
from tests.reviews.review_support import (
    EMAIL_REQUEST,
    VIOLATION_LINE,
    StillClock,
    email_servers,
    gatehouse,
    later_reviews,
    outbox,
    policy_file,
    services_for,
    settings_for,
)

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")


@dataclass
class Shared:
    services: Services
    data: Path


@pytest.fixture(scope="module")
def shared_per_backend(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[bool], Shared]]:
    """One database and one e-mail server per backend, for the tests that each work on threads
    of their own (made on first use, closed after the module). The server runs in this process
    as in every test here; the module's patch outlasts each test's, as the services do."""
    made: dict[bool, Shared] = {}
    with ExitStack() as stack:
        serve_bundled_in_process(stack.enter_context(pytest.MonkeyPatch.context()))

        def get(on_postgres: bool) -> Shared:
            if on_postgres not in made:
                data = tmp_path_factory.mktemp("terms") / "data"
                data.mkdir()
                settings = replace(
                    settings_for(data, servers=email_servers(data)),
                    db_url=stack.enter_context(postgres_schema()) if on_postgres else None,
                )
                made[on_postgres] = Shared(stack.enter_context(open_services(settings)), data)
            return made[on_postgres]

        yield get


@pytest.fixture
def shared(backend: str | Path, shared_per_backend: Callable[[bool], Shared]) -> Shared:
    return shared_per_backend(isinstance(backend, str))


def _pause(services: Services, text: str = EMAIL_REQUEST, requester: str = "operator") -> tuple[str, str]:
    paused = services.requests.ask(text, requester=requester)
    assert paused.final_output.status == "needs_review"
    assert paused.final_output.review is not None
    return paused.final_output.review.id, paused.final_output.thread_id


def _sent(data: Path, body: str) -> list[str]:
    return [message["to"] for message in outbox(data) if message["body"] == body]


@pytest.mark.parametrize(
    ("requester", "reviewer", "approve", "reason", "refusal", "why"),
    [
        pytest.param("reviewer2", "reviewer2", True, None, NotPermittedError, "four-eyes", id="own-approval"),
        pytest.param(
            "reviewer2", "reviewer2", False, "no", NotPermittedError, "four-eyes", id="own-rejection"
        ),
        pytest.param("operator", "operator", True, None, NotPermittedError, "role operator", id="operator"),
        pytest.param("operator", "mallory", True, None, NotPermittedError, "not in the policy", id="unknown"),
        pytest.param("operator", "reviewer", False, None, DecisionNotAllowedError, "reason", id="no-reason"),
        pytest.param(
            "operator", "reviewer", False, "  ", DecisionNotAllowedError, "reason", id="blank-reason"
        ),
    ],
)
def test_a_refused_decision_records_nothing_and_the_review_stays_open_for_someone_allowed(
    shared: Shared,
    requester: str,
    reviewer: str,
    approve: bool,
    reason: str | None,
    refusal: type[ReviewError],
    why: str,
) -> None:
    services = shared.services
    review_id, thread_id = _pause(services, "Send an email to bob@example.com saying refused", requester)

    with pytest.raises(refusal, match=why):
        services.reviews.decide(review_id, reviewer=reviewer, approve=approve, reason=reason)

    review = services.ledger.require(review_id)
    assert (review.status, review.decisions, review.decided_by) == ("pending", [], None)
    assert "decision" not in [e.kind for e in services.audit.events(thread_id=thread_id)]
    waiting = pending_interrupt(services.graph, thread_id)
    assert waiting is not None and waiting["review_id"] == review_id
    # Someone allowed can still decide it: the refusal used nothing up.
    done = services.reviews.decide(review_id, reviewer="admin", approve=False, reason="not today")
    assert done.run is not None and done.run.final_output.status == "rejected"
    assert services.ledger.require(review_id).status == "rejected"
    assert _sent(shared.data, "refused") == []


def test_deciding_a_review_that_does_not_exist_is_refused(shared: Shared) -> None:
    with pytest.raises(ReviewNotFoundError):
        shared.services.reviews.decide("no-such-thread-r1", reviewer="reviewer", approve=True)


def test_a_decided_review_cannot_be_decided_again_and_its_finished_thread_cannot_be_resumed(
    shared: Shared,
) -> None:
    services = shared.services
    review_id, thread_id = _pause(services, "Send an email to bob@example.com saying once")
    done = services.reviews.decide(review_id, reviewer="reviewer", approve=True)
    assert done.run is not None and done.run.final_output.status == "ok"

    with pytest.raises(AlreadyDecidedError) as again:
        services.reviews.decide(review_id, reviewer="reviewer2", approve=True)
    assert (again.value.by, again.value.status) == ("reviewer", "executed")
    with pytest.raises(AlreadyDecidedError):
        services.reviews.decide(review_id, reviewer="admin", approve=False, reason="too late")
    with pytest.raises(NothingToResumeError):
        resume(services.graph, services.context, thread_id, ReviewDecision(action="approve", by="reviewer2"))

    assert services.ledger.require(review_id).status == "executed"
    assert _sent(shared.data, "once") == ["bob@example.com"]


def test_an_expired_review_cannot_be_approved_and_the_operators_thread_ends_expired(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        review_id, thread_id = _pause(services)
        review = services.ledger.require(review_id)
        deadline = datetime.fromisoformat(review.expires_at)
        assert deadline - datetime.fromisoformat(review.created_at) == timedelta(minutes=30)
        clock = StillClock(deadline - timedelta(seconds=1))
        with later_reviews(services, clock) as later:
            assert later.sweep() == {"expired": [], "outcome_unknown": [], "resumed": []}
            clock.now = deadline
            with pytest.raises(ReviewExpiredError, match="can no longer be approved"):
                later.decide(review_id, reviewer="reviewer", approve=True)
        # In real time again: still expired, still not approvable.
        with pytest.raises(ReviewExpiredError):
            services.reviews.decide(review_id, reviewer="reviewer2", approve=True)

        final = services.graph.get_state(thread_config(thread_id)).values["final_output"]
        assert final["status"] == "expired"
        # The operator is told when: the ledger's time of the expiry.
        assert final["review"]["decision"] == "expire"
        assert final["review"]["decided_at"] == services.ledger.require(review_id).decided_at
        assert pending_interrupt(services.graph, thread_id) is None
        assert services.ledger.require(review_id).status == "expired"
        kinds = [e.kind for e in services.audit.events(thread_id=thread_id)]
        assert "review_expired" in kinds
        assert "decision" not in kinds
        assert services.audit.verify().ok
    assert outbox(data_dir) == []

    listed = gatehouse(data_dir, "reviews", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    [row] = json.loads(listed.stdout)["reviews"]
    assert (row["id"], row["status"], row["seconds_left"]) == (review_id, "expired", None)
    assert row["expires_at"] == review.expires_at


def _two_approvals(data: Path) -> Path:
    return policy_file(
        data,
        "two-approvals.toml",
        (VIOLATION_LINE, f"{VIOLATION_LINE}\n[rules.review]\nrequired_approvals = 2"),
    )


def test_two_required_approvals_send_nothing_until_a_second_different_reviewer_approves(
    data_dir: Path,
) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers, policy=_two_approvals(data_dir)) as services:
        review_id, thread_id = _pause(services)
        assert services.ledger.require(review_id).required_approvals == 2

        first = services.reviews.decide(review_id, reviewer="reviewer", approve=True)
        assert (first.run, first.approvals, first.required) == (None, 1, 2)
        assert first.review.status == "pending"
        waiting = pending_interrupt(services.graph, thread_id)
        assert waiting is not None and waiting["review_id"] == review_id
        assert outbox(data_dir) == []

        with pytest.raises(AlreadyDecidedError) as twice:
            services.reviews.decide(review_id, reviewer="reviewer", approve=True)
        assert twice.value.by == "reviewer"
        assert services.ledger.require(review_id).status == "pending"
        assert outbox(data_dir) == []

        second = services.reviews.decide(review_id, reviewer="reviewer2", approve=True)
        assert (second.approvals, second.required) == (2, 2)
        assert second.run is not None and second.run.final_output.status == "ok"
        review = services.ledger.require(review_id)
        assert (review.status, review.decided_by) == ("executed", "reviewer2")
        assert [d.reviewer for d in review.approvals()] == ["reviewer", "reviewer2"]
        assert [e.kind for e in services.audit.events()].count("execution_started") == 1
        assert services.audit.verify().ok
    assert [(m["to"], m["body"]) for m in outbox(data_dir)] == [("bob@example.com", "hi")]


def test_with_two_required_approvals_arguments_edited_by_the_second_approver_do_not_run_on_one_approval(
    data_dir: Path,
) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers, policy=_two_approvals(data_dir)) as services:
        review_id, _ = _pause(services)
        services.reviews.decide(review_id, reviewer="reviewer", approve=True)

        services.reviews.decide(
            review_id,
            reviewer="reviewer2",
            approve=True,
            arguments={"to": "carol@example.com", "body": "the payroll file"},
        )

    assert outbox(data_dir) == []


def test_an_edited_approval_the_policy_denies_is_refused_before_anything_is_recorded(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    deny = policy_file(data_dir, "deny.toml", (VIOLATION_LINE, 'on_violation = "deny"'))
    with services_for(data_dir, servers=servers, policy=deny) as services:
        review_id, thread_id = _pause(services)
        events_before = services.audit.events(thread_id=thread_id)

        with pytest.raises(DecisionNotAllowedError, match=r"'eve@evil\.test' is not at an allowed domain"):
            services.reviews.decide(
                review_id, reviewer="reviewer", approve=True, arguments={"to": "eve@evil.test", "body": "hi"}
            )

        # Nothing was written: the review still waits, and someone can decide it properly.
        assert services.ledger.require(review_id).status == "pending"
        assert services.ledger.require(review_id).decisions == []
        assert services.audit.events(thread_id=thread_id) == events_before
        assert pending_interrupt(services.graph, thread_id) is not None
        done = services.reviews.decide(review_id, reviewer="reviewer", approve=True)
        assert done.run is not None and done.run.final_output.status == "ok"
        assert services.audit.verify().ok
    assert [m["to"] for m in outbox(data_dir)] == ["bob@example.com"]


# Each edit the review service must refuse before it records the decision, with where it is wrong.
_DEEP: dict[str, object] = {}
_cursor = _DEEP
for _ in range(450):
    _cursor["x"] = {}
    _cursor = _cursor["x"]  # type: ignore[assignment]


@pytest.mark.parametrize(
    ("edited", "why"),
    [
        pytest.param({"to": 42, "body": "refused"}, "argument to: 42 is not of type 'string'", id="schema"),
        pytest.param({"to": "bob@example.com"}, "requires: body", id="required-left-out"),
        pytest.param(
            {"to": "bob@example.com", "body": "a\x00b"}, r"arguments\.body contains a NUL", id="nul"
        ),
        pytest.param({"to": "bob@example.com", "body": "x", "deep": _DEEP}, "nested more than", id="deep"),
        pytest.param({"to": "bob@example.com", "body": "x" * 300_000}, "the limit is", id="huge"),
        pytest.param(
            {"to": "bob@example.com", "body": "x", "n": float("nan")}, "JSON cannot carry", id="nan"
        ),
    ],
)
def test_an_edited_approval_that_cannot_be_carried_out_is_refused_and_the_review_stays_pending(
    shared: Shared, edited: dict[str, object], why: str
) -> None:
    services = shared.services
    review_id, thread_id = _pause(services, "Send an email to bob@example.com saying refused")
    events_before = services.audit.events(thread_id=thread_id)

    with pytest.raises(DecisionNotAllowedError, match=why):
        services.reviews.decide(review_id, reviewer="reviewer", approve=True, arguments=edited)

    assert services.ledger.require(review_id).status == "pending"
    assert services.ledger.require(review_id).decisions == []
    assert services.audit.events(thread_id=thread_id) == events_before
    assert pending_interrupt(services.graph, thread_id) is not None
    # A second reviewer still decides it.
    services.reviews.decide(review_id, reviewer="reviewer2", approve=False, reason="not like this")
    assert services.ledger.require(review_id).status == "rejected"
    assert _sent(shared.data, "refused") == []


def test_the_command_line_refuses_an_unstorable_edit_with_exit_2_and_leaves_the_review_pending(
    data_dir: Path,
) -> None:
    servers = email_servers(data_dir)
    asked = gatehouse(data_dir, "ask", "--json", "--servers", str(servers), EMAIL_REQUEST)
    review_id = json.loads(asked.stdout)["review"]["id"]
    deep = '{"to": "bob@example.com", "body": "hi", "x": ' + "[" * 400 + "]" * 400 + "}"

    refused = gatehouse(
        data_dir, "reviews", "decide", review_id, "--approve", "--reviewer", "reviewer", "--args", deep,
        "--servers", str(servers),
    )  # fmt: skip

    assert refused.returncode == 2, refused.stderr
    assert "32 levels" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    listed = gatehouse(data_dir, "reviews", "list", "--json", "--status", "pending")
    assert [r["id"] for r in json.loads(listed.stdout)["reviews"]] == [review_id]
    approved = gatehouse(
        data_dir, "reviews", "decide", review_id, "--approve", "--reviewer", "reviewer2",
        "--servers", str(servers),
    )  # fmt: skip
    assert approved.returncode == 0, approved.stderr
    assert [m["body"] for m in outbox(data_dir)] == ["hi"]


def test_a_decision_for_a_proposal_other_than_the_one_pending_is_refused_and_runs_nothing(
    shared: Shared,
) -> None:
    services = shared.services
    review_id, _thread = _pause(services, "Send an email to bob@example.com saying fingerprinted")
    shown = services.ledger.require(review_id).call_hash

    with pytest.raises(DecisionNotAllowedError, match=r"changed since it was shown"):
        services.reviews.decide(review_id, reviewer="reviewer", approve=True, expected="0" * 64)
    assert services.ledger.require(review_id).status == "pending"
    assert _sent(shared.data, "fingerprinted") == []

    done = services.reviews.decide(review_id, reviewer="reviewer", approve=True, expected=shown)
    assert done.run is not None and done.run.final_output.status == "ok"
    with pytest.raises(AlreadyDecidedError) as late:
        services.reviews.decide(review_id, reviewer="reviewer2", approve=True, expected=shown)
    assert late.value.by == "reviewer"
    assert _sent(shared.data, "fingerprinted") == ["bob@example.com"]
