"""Remembered approvals on a real database (SQLite and PostgreSQL) with the real e-mail server:
a grant covers later calls within its bounds and scope, says so in the result, the trace and
the audit log, expires, is revoked, is used once per call, and never covers what the policy
refuses or marks ungrantable, nor a requester's own request."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from gatehouse.wiring import Services
from graph.runner import thread_config
from reviews.errors import DecisionNotAllowedError, NotPermittedError
from reviews.grant_service import parse_remember
from reviews.grants import Grant, GrantStore
from storage import open_database
from tests.reviews.review_support import (
    CLOCK_START,
    StillClock,
    email_servers,
    gatehouse,
    outbox,
    policy_file,
    services_for,
)

pytestmark = pytest.mark.usefixtures("bundled_in_process")

FIRST = "Send an email to bob@example.com saying hi"
SAME_DOMAIN = "Send an email to carol@example.com saying hello"
LOOKALIKE = "Send an email to carol@evil-example.com saying hello"
WITHIN_DOMAIN = {"to": {"domain": "example.com"}, "body": "any"}


@pytest.fixture
def services(data_dir: Path) -> Iterator[Services]:
    with services_for(data_dir, servers=email_servers(data_dir)) as opened:
        yield opened


def _paused(services: Services, text: str = FIRST, requester: str = "operator") -> str:
    paused = services.requests.ask(text, requester=requester).final_output
    assert paused.status == "needs_review", paused
    assert paused.review is not None
    return paused.review.id


def _granted(services: Services, remember: str = "requester", *, uses: int | None = None) -> Grant:
    review_id = _paused(services)
    decided = services.reviews.decide(
        review_id,
        reviewer="reviewer",
        approve=True,
        remember=parse_remember(remember, within=WITHIN_DOMAIN, uses=uses),
    )
    assert decided.run is not None and decided.run.final_output.status == "ok"
    assert decided.grant is not None
    return decided.grant


def test_a_remembered_approval_runs_a_later_call_within_bounds_and_says_which_grant_everywhere(
    services: Services, data_dir: Path
) -> None:
    grant = _granted(services)

    later = services.requests.ask(SAME_DOMAIN, requester="operator").final_output

    assert later.status == "ok" and later.review is None
    assert later.grant is not None and later.grant.id == grant.id and later.grant.by == "reviewer"
    assert [mail["to"] for mail in outbox(data_dir)] == ["bob@example.com", "carol@example.com"]
    # The trace: the checkpoint's verdict names the grant.
    state = services.graph.get_state(thread_config(later.thread_id)).values
    assert state["capability_validation"]["decision"] == "allow"
    assert state["capability_validation"]["grant"]["id"] == grant.id
    # The audit log: the grant made with the decision, its use, and the verdict naming it.
    events = services.audit.events(thread_id=later.thread_id)
    assert [e.data["grant"] for e in events if e.kind == "grant_used"] == [grant.id]
    assert [e.data.get("grant") for e in events if e.kind == "validation"] == [grant.id]
    made = [e for e in services.audit.events() if e.kind == "grant_created"]
    assert [(e.data["grant"], e.actor, e.review_id) for e in made] == [
        (grant.id, "reviewer", grant.review_id)
    ]
    assert services.audit.verify().ok


def test_a_call_outside_the_bounds_or_with_an_argument_they_do_not_name_waits_for_a_reviewer(
    services: Services,
) -> None:
    _granted(services)

    lookalike = services.requests.ask(LOOKALIKE, requester="operator").final_output
    with_subject = services.requests.ask(
        "Send an email to carol@example.com with subject Pay now saying hello", requester="operator"
    ).final_output

    assert lookalike.status == "needs_review" and lookalike.grant is None
    # The subject was neither in the approved call nor bounded: a new concern for a person.
    assert with_subject.status == "needs_review" and with_subject.grant is None


def test_a_grant_expires(services: Services) -> None:
    clock = StillClock(CLOCK_START)
    services.grants.store.clock = clock
    grant = _granted(services, "2h")

    clock.advance(timedelta(hours=1, minutes=59).total_seconds())
    assert services.requests.ask(SAME_DOMAIN, requester="operator").final_output.grant is not None
    clock.advance(timedelta(minutes=1).total_seconds())
    expired = services.requests.ask(SAME_DOMAIN, requester="operator").final_output

    assert expired.status == "needs_review" and expired.grant is None
    listed = {g.id: g.state(clock()) for g in services.grants.list(everything=True)}
    assert listed == {grant.id: "expired"}
    assert services.grants.list() == []


def test_a_revoked_grant_covers_nothing_and_its_revocation_is_audited(
    services: Services, data_dir: Path
) -> None:
    grant = _granted(services)

    revoked = gatehouse(
        data_dir, "grants", "revoke", grant.id, "--user", "reviewer2", "--reason", "too broad"
    )
    later = services.requests.ask(SAME_DOMAIN, requester="operator").final_output

    assert revoked.returncode == 0, revoked.stderr
    assert later.status == "needs_review" and later.grant is None
    [event] = [e for e in services.audit.events() if e.kind == "grant_revoked"]
    assert (event.data, event.actor) == ({"grant": grant.id, "reason": "too broad"}, "reviewer2")
    again = gatehouse(data_dir, "grants", "revoke", grant.id, "--user", "reviewer")
    assert again.returncode != 0 and "already ended" in again.stderr
    operator = gatehouse(data_dir, "grants", "revoke", grant.id, "--user", "operator")
    assert operator.returncode != 0 and "neither made" in operator.stderr


def test_a_thread_grant_covers_that_thread_only(services: Services) -> None:
    review_id = _paused(services)
    thread = services.ledger.require(review_id).thread_id
    services.reviews.decide(
        review_id, reviewer="reviewer", approve=True, remember=parse_remember("thread", within=WITHIN_DOMAIN)
    )

    same_thread = services.requests.ask(SAME_DOMAIN, thread_id=thread, requester="operator").final_output
    other_thread = services.requests.ask(SAME_DOMAIN, requester="operator").final_output

    assert same_thread.grant is not None and same_thread.status == "ok"
    assert other_thread.status == "needs_review"


def test_a_requester_grant_covers_no_one_else_and_a_window_grant_never_its_maker(services: Services) -> None:
    _granted(services, "requester")
    someone_else = _paused(services, SAME_DOMAIN, requester="reviewer2")

    window = services.reviews.decide(
        someone_else, reviewer="reviewer", approve=True, remember=parse_remember("8h", within=WITHIN_DOMAIN)
    ).grant

    assert window is not None
    covered = services.requests.ask(SAME_DOMAIN, requester="admin").final_output.grant
    assert covered is not None and covered.id == window.id
    # Its maker asking for the same call would be approving their own request.
    own = services.requests.ask(SAME_DOMAIN, requester="reviewer").final_output
    assert own.status == "needs_review" and own.grant is None


def test_a_uses_cap_is_consumed_once_per_call(services: Services) -> None:
    grant = _granted(services, uses=2)

    runs = [services.requests.ask(SAME_DOMAIN, requester="operator").final_output for _ in range(3)]

    assert [r.status for r in runs] == ["ok", "ok", "needs_review"]
    assert [r.grant.uses_left if r.grant else None for r in runs] == [1, 0, None]
    assert services.grants.require(grant.id).use_count == 2


def test_a_requester_may_never_remember_an_approval_of_their_own_request(data_dir: Path) -> None:
    no_four_eyes = policy_file(
        data_dir,
        "own.toml",
        ("four_eyes = true                      # a requester", "four_eyes = false  # a requester"),
    )
    with services_for(data_dir, servers=email_servers(data_dir), policy=no_four_eyes) as services:
        review_id = _paused(services, requester="admin")

        with pytest.raises(NotPermittedError, match="behind this request"):
            services.reviews.decide(
                review_id,
                reviewer="admin",
                approve=True,
                remember=parse_remember("requester", within=WITHIN_DOMAIN),
            )

        assert services.ledger.require(review_id).status == "pending"
        assert services.grants.list(everything=True) == []
        # Four-eyes is off: the same approval, for this call only, is the admin's to give.
        assert services.reviews.decide(review_id, reviewer="admin", approve=True).grant is None


def test_an_ungrantable_capability_cannot_be_remembered_and_nothing_is_recorded(data_dir: Path) -> None:
    ungrantable = policy_file(
        data_dir,
        "ungrantable.toml",
        (
            'ungrantable_categories = ["financial action", "destructive"]',
            'ungrantable_categories = ["sends messages"]',
        ),
    )
    with services_for(data_dir, servers=email_servers(data_dir), policy=ungrantable) as services:
        review_id = _paused(services)

        with pytest.raises(DecisionNotAllowedError, match="sends messages"):
            services.reviews.decide(
                review_id, reviewer="reviewer", approve=True, remember=parse_remember("requester")
            )

        assert services.ledger.require(review_id).status == "pending"
        assert not [e for e in services.audit.events() if e.kind in {"decision", "grant_created"}]


def _adopt(services: Services, data_dir: Path, name: str, *edits: tuple[str, str]) -> None:
    """A new version of the policy, proposed and approved by two admins: in force at once here,
    and in the database every replica follows."""
    text = policy_file(data_dir, name, *edits).read_text(encoding="utf-8")
    change = services.policy_changes.propose(text, by="admin", reason="mail changes")
    services.policy_changes.approve(change.id, by="admin2")


def test_a_new_policy_version_that_refuses_the_call_ends_the_grant(
    services: Services, data_dir: Path
) -> None:
    grant = _granted(services)

    _adopt(
        services,
        data_dir,
        "deny-mail.toml",
        ('action = "review"\ncategory = "sends messages"', 'action = "deny"\ncategory = "sends messages"'),
    )
    refused = services.requests.ask(SAME_DOMAIN, requester="operator").final_output

    assert refused.status == "error" and refused.grant is None
    [ended] = services.grants.list(everything=True)
    assert ended.id == grant.id and ended.revoked_by == "gatehouse"
    assert f"policy version {services.policy.version}" in (ended.revoke_reason or "")


def test_a_new_policy_version_that_makes_the_call_ungrantable_ends_the_grant(
    services: Services, data_dir: Path
) -> None:
    grant = _granted(services)

    _adopt(
        services,
        data_dir,
        "ungrantable-mail.toml",
        (
            'ungrantable_categories = ["financial action", "destructive"]',
            'ungrantable_categories = ["sends messages"]',
        ),
    )
    later = services.requests.ask(SAME_DOMAIN, requester="operator").final_output

    assert later.status == "needs_review" and later.grant is None
    ended = services.grants.require(grant.id)
    assert ended.revoked_by == "gatehouse" and "sends messages" in (ended.revoke_reason or "")
    assert [e.data["grant"] for e in services.audit.events() if e.kind == "grant_ended"] == [grant.id]


def test_remembering_from_the_command_line_and_listing_the_grant(services: Services, data_dir: Path) -> None:
    review_id = _paused(services)

    decided = gatehouse(
        data_dir,
        "reviews", "decide", review_id, "--approve", "--reviewer", "reviewer",
        "--remember", "8h", "--within", json.dumps(WITHIN_DOMAIN), "--uses", "3", "--json",
    )  # fmt: skip
    listed = gatehouse(data_dir, "grants", "list", "--json")

    assert decided.returncode == 0, decided.stderr
    grant = json.loads(decided.stdout)["grant"]
    [row] = json.loads(listed.stdout)["grants"]
    assert (row["id"], row["state"], row["uses_left"], row["scope"]) == (
        grant["id"],
        "active",
        3,
        "anyone's requests",
    )
    assert row["bounds"] == "body: any; to at example.com"
    refused = gatehouse(
        data_dir, "reviews", "decide", review_id, "--reject", "--reviewer", "reviewer", "--remember", "thread"
    )
    assert refused.returncode == 2 and "--remember goes with --approve" in refused.stderr


# -- the uses cap under concurrency ----------------------------------------------------------


def _grant_row(grant_id: str, uses: int | None) -> Grant:
    return Grant(
        id=grant_id,
        review_id="r-1",
        capability_key="email__send_email",
        server="email",
        fingerprint="f1",
        capability={},
        arguments={},
        bounds={},
        flag_codes=[],
        scope="window",
        created_by="reviewer",
        created_at="2026-11-01T12:00:00.000+00:00",
        expires_at="2999-01-01T00:00:00.000+00:00",
        uses_max=uses,
        uses_left=uses,
    )


@pytest.mark.parametrize("uses", [1, 3])
def test_replicas_racing_for_a_grants_uses_get_exactly_as_many_as_it_has(
    backend: str | Path, uses: int
) -> None:
    racers = 8
    # One store per racer, each on a database connection (a PostgreSQL pool) of its own: as
    # replicas would be.
    stores = [GrantStore(open_database(backend)) for _ in range(racers)]
    try:
        stores[0].add(_grant_row("g-race", uses))
        start = threading.Barrier(racers, timeout=30)
        won: list[bool] = [False] * racers

        def race(n: int) -> None:
            start.wait()
            used = stores[n].use("g-race", use_key=f"thread-{n}:task", thread_id=f"thread-{n}", call_hash="h")
            won[n] = used is not None

        threads = [threading.Thread(target=race, args=(n,)) for n in range(racers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

        assert sum(won) == uses
        after = stores[0].get("g-race")
        assert after is not None and (after.uses_left, after.use_count) == (0, uses)
    finally:
        for store in stores:
            store.database.close()


def test_a_step_that_runs_again_uses_the_use_it_took_not_another(backend: str | Path) -> None:
    store = GrantStore(open_database(backend))
    try:
        store.add(_grant_row("g-again", 2))
        first = store.use("g-again", use_key="t:task-1", thread_id="t", call_hash="h")
        again = store.use("g-again", use_key="t:task-1", thread_id="t", call_hash="h")
        after: Any = store.get("g-again")
        assert first is not None and (first.uses_left, first.again) == (1, False)
        assert again is not None and (again.uses_left, again.again) == (1, True)
        assert (after.uses_left, after.use_count) == (1, 1)
    finally:
        store.database.close()
