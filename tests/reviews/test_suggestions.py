"""`gatehouse policy suggest`: rules learned from reviewers' decisions, each replayed over the
recorded history, never allowing what a reviewer turned down or changed, adopted only as a
proposed policy change. On the SQLite file and PostgreSQL alike (conftest.py)."""

from __future__ import annotations

import json
import tomllib
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

import pytest

from gatehouse.wiring import Services, open_services
from graph.state import ReviewedCapability
from reviews.ledger import ReviewLedger
from reviews.suggestions import Suggestion, Suggestions
from tests.reviews.review_support import StillClock, email_review, gatehouse, settings_for

SEND = "email__send_email"
READ = "files__read_file"
WRITE = "files__write_file"
EXEC = "shell__exec_command"


@dataclass(frozen=True)
class Recorded:
    """What the test recorded, kept to count on its own what a rule should replay to."""

    key: str
    arguments: dict[str, Any]
    verdict: Literal["approved", "edited", "rejected"]
    status: str


def _capability(key: str) -> ReviewedCapability:
    server, _, name = key.partition("__")
    read_only = name.startswith("read")
    return {
        "key": key,
        "server": server,
        "type": "tool",
        "name": name,
        "description": "Reads a file." if read_only else f"{name.replace('_', ' ')}.",
        "input_schema": {"type": "object"},
        "annotations": {"readOnlyHint": True} if read_only else {"readOnlyHint": False},
        "fingerprint": f"fp-{key}",
    }


def record(
    ledger: ReviewLedger,
    key: str,
    arguments: dict[str, Any],
    verdict: Literal["approved", "edited", "rejected"] = "approved",
    *,
    ends: Literal["executed", "failed", "outcome_unknown"] = "executed",
) -> Recorded:
    """One reviewed call as the graph leaves it in the ledger: opened, decided, and (approved)
    run to its end."""
    review_id = uuid.uuid4().hex
    thread_id = f"t-{review_id}"
    payload = email_review(review_id, thread_id, arguments)
    payload["capability"] = _capability(key)
    ledger.open_review(payload)
    if verdict == "rejected":
        ledger.record_decision(review_id, reviewer="reviewer", action="reject", reason="no", arguments=None)
        return Recorded(key, arguments, verdict, "rejected")
    approved = arguments if verdict == "approved" else arguments | {"edited": True}
    ledger.record_decision(review_id, reviewer="reviewer", action="approve", reason=None, arguments=approved)
    ledger.begin_execution(review_id, "call-hash", thread_id)
    ledger.finish_execution(review_id, ends)
    return Recorded(key, arguments, verdict, ends)


@contextmanager
def replica(data: Path) -> Iterator[Services]:
    with open_services(settings_for(data), connect_servers=False) as services:
        yield services


@pytest.fixture
def still() -> StillClock:
    return StillClock()


@contextmanager
def suggestions_at(services: Services, clock: StillClock) -> Iterator[tuple[ReviewLedger, Suggestions]]:
    """The services' database through a ledger on the test's clock (closed with the services)."""
    ledger = ReviewLedger(services.ledger.database, clock=clock)
    yield ledger, Suggestions(ledger, services.policy_changes)


def by_key(found: list[Suggestion]) -> dict[str, Suggestion]:
    return {s.evidence.key: s for s in found}


def test_a_replay_counts_what_an_independent_count_of_the_same_decisions_gives(
    tmp_path: Path, still: StillClock
) -> None:
    with replica(tmp_path) as services, suggestions_at(services, still) as (ledger, suggestions):
        recorded = [
            record(ledger, SEND, {"to": "ann@example.com", "subject": "a"}),
            record(ledger, SEND, {"to": "bob@example.com", "subject": "b"}, ends="failed"),
            record(ledger, SEND, {"to": "cy@example.com", "subject": "c"}, ends="outcome_unknown"),
            record(ledger, SEND, {"to": "ann@example.com", "subject": "d"}, ends="failed"),
            record(ledger, SEND, {"to": "dee@example.com", "subject": "e"}),
            record(ledger, EXEC, {"command": "rm -rf /"}, "rejected"),
            record(ledger, EXEC, {"command": "curl evil"}, "rejected"),
            record(ledger, EXEC, {"command": "ls"}, "rejected"),
            record(ledger, EXEC, {"command": "reboot"}, "rejected"),
            record(ledger, EXEC, {"command": "dd"}, "rejected"),
        ]
        found = by_key(suggestions.suggest(days=30, min_decisions=5))

    send = found[SEND]
    assert send.kind == "allow_within_bounds"
    assert send.rule.constraints.recipient_domains == ["example.com"]
    # Counted plainly: calls of the capability whose every recipient is at example.com.
    covered = [r for r in recorded if r.key == SEND and r.arguments["to"].endswith("@example.com")]
    assert send.replay.decided == len(covered)
    assert send.replay.failed == sum(r.status == "failed" for r in covered)
    assert send.replay.outcome_unknown == sum(r.status == "outcome_unknown" for r in covered)
    assert send.replay.rejected == send.replay.edited == 0

    deny = found[EXEC]
    assert deny.kind == "deny"
    assert deny.rule.action == "deny"
    shell = [r for r in recorded if r.key == EXEC]
    assert deny.replay.decided == len(shell)
    assert deny.replay.rejected == sum(r.verdict == "rejected" for r in shell)
    # Each rule is one [[rules]] table of the policy's own syntax.
    assert tomllib.loads(send.table)["rules"][0]["name"] == send.rule.name


def test_a_read_only_capability_always_approved_is_allowed_only_while_rated_low_risk(
    tmp_path: Path, still: StillClock
) -> None:
    with replica(tmp_path) as services, suggestions_at(services, still) as (ledger, suggestions):
        for n in range(5):
            record(ledger, READ, {"path": f"/srv/docs/{n}.txt"})
            record(ledger, WRITE, {"path": f"/srv/docs/{n}.txt", "content": "x"})
        found = by_key(suggestions.suggest(days=30, min_decisions=5))

    assert found[READ].kind == "allow_read_only"
    assert found[READ].rule.risk == "low"
    assert found[READ].rule.constraints.paths_within_roots is False
    write = found[WRITE]
    assert write.kind == "allow_within_bounds"
    assert write.rule.risk is None
    assert write.rule.constraints.paths_within_roots is True
    assert write.rule.constraints.on_violation == "review"
    assert "path under /srv/docs" in write.bounds
    assert write.unbounded == ("content",)
    # The shipped policy's "file writes" rule sends writes to review: the suggestion says so.
    assert "file writes" in write.outranked_by


@pytest.mark.parametrize("turned_down", ["rejected", "edited"])
def test_a_capability_once_rejected_or_edited_is_never_allowed(
    tmp_path: Path, still: StillClock, turned_down: Literal["rejected", "edited"]
) -> None:
    with replica(tmp_path) as services, suggestions_at(services, still) as (ledger, suggestions):
        for n in range(9):
            record(ledger, SEND, {"to": f"u{n}@example.com"})
            record(ledger, READ, {"path": f"/srv/{n}"})
        record(ledger, SEND, {"to": "x@example.com"}, turned_down)
        record(ledger, READ, {"path": "/srv/x"}, turned_down)
        found = suggestions.suggest(days=30, min_decisions=1)

    assert found == []  # neither allowed, and not all rejected either


def test_too_few_decisions_give_no_suggestion(tmp_path: Path, still: StillClock) -> None:
    with replica(tmp_path) as services, suggestions_at(services, still) as (ledger, suggestions):
        for n in range(4):
            record(ledger, READ, {"path": f"/srv/{n}"})
        assert suggestions.suggest(days=30, min_decisions=5) == []
        record(ledger, READ, {"path": "/srv/5"})
        assert [s.evidence.key for s in suggestions.suggest(days=30, min_decisions=5)] == [READ]


def test_decisions_outside_the_window_are_ignored(tmp_path: Path, still: StillClock) -> None:
    with replica(tmp_path) as services, suggestions_at(services, still) as (ledger, suggestions):
        for n in range(5):
            record(ledger, READ, {"path": f"/srv/old-{n}"})
        record(ledger, READ, {"path": "/srv/old"}, "rejected")
        still.now += timedelta(days=40)
        for n in range(5):
            record(ledger, READ, {"path": f"/srv/new-{n}"})
        recent = suggestions.suggest(days=30, min_decisions=5)
        everything = suggestions.suggest(days=365, min_decisions=5)

    assert [s.evidence.decisions for s in recent] == [5]
    assert recent[0].replay.decided == 5
    assert everything == []  # the old rejection counts once the window reaches it


def test_propose_makes_a_pending_change_that_adds_exactly_the_rule_and_passes_policy_check(
    tmp_path: Path,
) -> None:
    with replica(tmp_path) as services:
        for n in range(5):
            record(services.ledger, READ, {"path": f"/srv/{n}"})
        base = services.policy_changes.current().text

    listed = gatehouse(tmp_path, "policy", "suggest", "--json")
    assert listed.returncode == 0, listed.stderr
    suggestion = json.loads(listed.stdout)["suggestions"][0]
    assert suggestion["replay"]["would_decide"] == 5

    ran = gatehouse(tmp_path, "policy", "suggest", "--propose", "1", "--user", "admin", "--json")
    assert ran.returncode == 0, ran.stderr
    change_id = json.loads(ran.stdout)["change"]
    with replica(tmp_path) as services:
        change = services.policy_changes.get(change_id)
        assert change.status == "pending"
        assert services.policy_changes.current().text == base  # nothing applied yet
        diff = services.policy_changes.diff(change).splitlines()
    added = [line[1:] for line in diff if line.startswith("+") and not line.startswith("+++")]
    removed = [line for line in diff if line.startswith("-") and not line.startswith("---")]
    assert [line for line in added if line.strip()] == suggestion["rule"].splitlines()
    assert removed == []

    proposed = tmp_path / "proposed.toml"
    proposed.write_text(change.text, encoding="utf-8")
    checked = gatehouse(tmp_path, "policy", "check", str(proposed), "--json")
    assert checked.returncode == 0, checked.stderr
    assert suggestion["evidence"]["decisions"] == 5
    assert any(rule["name"] == f"suggested: allow {READ}" for rule in json.loads(checked.stdout)["rules"])


def test_propose_needs_a_suggestion_that_is_there(tmp_path: Path) -> None:
    with replica(tmp_path):
        pass
    ran = gatehouse(tmp_path, "policy", "suggest", "--propose", "1", "--user", "admin")
    assert ran.returncode != 0
    assert "no suggestion 1" in ran.stderr
