"""Rules learned from reviewers' decisions, each proven on the recorded history before anyone
adopts it (`gatehouse policy suggest`).

The decisions of a window (reviews of a call before it runs, decided by a reviewer) are read
from the ledger in two queries; policies/suggested_rules.py turns each capability's evidence
into a rule; each rule is replayed over every recorded call of the window: how many it would
have decided, how many of those a reviewer rejected or edited, how many ended failed or
``outcome_unknown``. Adopting one goes through the one mechanism for policy changes
(reviews/policy_changes.py): a reviewed diff, audited, picked up by every replica.
"""

from __future__ import annotations

import fnmatch
import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from mcp_host.manifest import Capability
from policies.constraints import Roots, constraint_flags
from policies.grant_bounds import describe
from policies.loader import PolicyError
from policies.model import PolicyFile, Rule
from policies.names import normalise_glob, normalise_key
from policies.risk import rate
from policies.suggested_rules import Evidence, ProposedRule, SuggestionKind, Verdict, propose_rule, rule_toml
from reviews.clock import iso
from reviews.errors import ReviewError
from reviews.ledger import ReviewLedger
from reviews.policy_changes import PolicyChange, PolicyChangeError, PolicyChanges

DEFAULT_DAYS = 30
DEFAULT_MIN_DECISIONS = 5
# Replay checks recipients and amounts; paths need the server's roots, which a replay over
# the ledger does not have, so it takes a recorded path as inside them.
_NO_ROOTS = Roots(paths=(), origin="the recorded history")


class SuggestionError(ReviewError):
    """A suggestion asked for that is not there (a number out of range)."""


@dataclass(frozen=True)
class DecidedCall:
    """One reviewed call of the window, as a reviewer left it and as it ended."""

    review_id: str
    key: str
    arguments: dict[str, Any]
    verdict: Verdict
    # The review's status now: executed, failed, outcome_unknown, rejected, not_run, ...
    status: str


@dataclass
class Replay:
    """What a rule would have decided of the recorded calls of the window."""

    decided: int = 0
    approved: int = 0
    rejected: int = 0
    edited: int = 0
    failed: int = 0
    outcome_unknown: int = 0
    review_ids: list[str] = field(default_factory=list)

    def count(self, call: DecidedCall) -> None:
        self.decided += 1
        self.review_ids.append(call.review_id)
        if call.verdict == "approved":
            self.approved += 1
        elif call.verdict == "edited":
            self.edited += 1
        else:
            self.rejected += 1
        if call.status == "failed":
            self.failed += 1
        elif call.status == "outcome_unknown":
            self.outcome_unknown += 1


@dataclass(frozen=True)
class Suggestion:
    number: int
    kind: SuggestionKind
    rule: Rule
    # The rule as one [[rules]] table of the policy file (TOML).
    table: str
    evidence: Evidence
    bounds: str
    unbounded: tuple[str, ...]
    replay: Replay
    # Rules of the current policy that match the capability and outrank this one (deny >
    # review > allow): while they stay, adopting the suggestion changes no decision.
    outranked_by: tuple[str, ...] = ()

    def report(self) -> dict[str, Any]:
        replay = self.replay
        return {
            "number": self.number,
            "kind": self.kind,
            "capability": self.evidence.key,
            "rule": self.table,
            "evidence": {
                "decisions": self.evidence.decisions,
                "approved_unchanged": self.evidence.approved,
                "edited": self.evidence.edited,
                "rejected": self.evidence.rejected,
                "read_only": self.evidence.read_only,
                "bounds": self.bounds,
                "unbounded_arguments": list(self.unbounded),
            },
            "replay": {
                "would_decide": replay.decided,
                "approved": replay.approved,
                "rejected": replay.rejected,
                "edited": replay.edited,
                "failed": replay.failed,
                "outcome_unknown": replay.outcome_unknown,
            },
            "outranked_by": list(self.outranked_by),
        }


def _verdict(proposed: str, decisions: list[tuple[str, str | None]]) -> Verdict | None:
    """How reviewers left a call: rejected, approved with other arguments (edited), or approved
    as proposed; None when nobody decided it (it expired or was withdrawn)."""
    if not decisions:
        return None
    if any(action == "reject" for action, _ in decisions):
        return "rejected"
    for _, arguments in decisions:
        # The same text is the same arguments; other text may still be (keys in another order).
        if arguments is not None and arguments != proposed and json.loads(arguments) != json.loads(proposed):
            return "edited"
    return "approved"


@dataclass
class _History:
    calls: list[DecidedCall]
    capabilities: dict[str, dict[str, Any]]


def read_history(ledger: ReviewLedger, days: int) -> _History:
    """The reviewed calls decided in the last ``days`` days, in no set order. Writes nothing."""
    since = iso(ledger.now() - timedelta(days=days))
    window = "r.stage = 'before_execution' AND r.decided_at >= ? AND r.capability_key IS NOT NULL"
    with ledger.database.read() as conn:
        decisions: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
        for row in conn.execute(
            "SELECT d.review_id, d.action, d.arguments FROM review_decisions d"
            f" JOIN reviews r ON r.id = d.review_id WHERE {window}",
            (since,),
        ).fetchall():
            decisions[row["review_id"]].append((row["action"], row["arguments"]))
        rows = conn.execute(
            "SELECT r.id, r.capability_key, r.arguments, r.status FROM reviews r"
            # No ORDER BY: counts do not depend on order, and sorting wide rows costs more than the read.
            f" WHERE {window}",
            (since,),
        ).fetchall()
        calls: list[DecidedCall] = []
        one_of: dict[str, str] = {}
        for row in rows:
            verdict = _verdict(row["arguments"], decisions.get(row["id"], []))
            if verdict is None:
                continue
            key = str(row["capability_key"])
            one_of[key] = row["id"]
            calls.append(DecidedCall(row["id"], key, json.loads(row["arguments"]), verdict, row["status"]))
        # A definition each capability was reviewed with (one of the window's, for its risk
        # rating): one row per capability read, not a definition per decision.
        capabilities = {
            key: json.loads(
                conn.execute("SELECT capability FROM reviews WHERE id = ?", (review_id,)).fetchone()[
                    "capability"
                ]
            )
            for key, review_id in one_of.items()
        }
    return _History(calls, capabilities)


def _evidence(key: str, calls: list[DecidedCall], capability: dict[str, Any]) -> Evidence:
    try:
        risk = rate(Capability.model_validate(capability), trusted=False)
        read_only, categories = risk.read and not risk.categories, tuple(risk.categories)
    except ValueError:  # a definition recorded by an older release: taken as acting
        read_only, categories = False, ()
    return Evidence(
        key=key,
        read_only=read_only,
        categories=categories,
        approved=sum(call.verdict == "approved" for call in calls),
        edited=sum(call.verdict == "edited" for call in calls),
        rejected=sum(call.verdict == "rejected" for call in calls),
        approved_arguments=tuple(call.arguments for call in calls if call.verdict == "approved"),
    )


def covers(rule: Rule, call: DecidedCall) -> bool:
    """Whether the rule would have decided the call itself (its globs match, and for an allow
    rule the arguments keep its constraints), as the engine compares names and constraints."""
    name = normalise_key(call.key)
    if not any(fnmatch.fnmatchcase(name, normalise_glob(glob)) for glob in rule.match):
        return False
    if rule.action != "allow":
        return True
    constraints = rule.constraints.model_copy(update={"paths_within_roots": False})
    return not constraint_flags(call.arguments, constraints, _NO_ROOTS)


_RANK = {"allow": 0, "review": 1, "deny": 2}


def outranking(policy: PolicyFile, rule: Rule, evidence: Evidence) -> tuple[str, ...]:
    """The names of the policy's other rules that match the capability (by glob or category, as
    the engine matches them) with an action that wins over the rule's."""
    name = normalise_key(evidence.key)
    return tuple(
        other.name
        for other in policy.rules
        if other.name != rule.name
        and _RANK[other.action] > _RANK[rule.action]
        and (
            any(fnmatch.fnmatchcase(name, normalise_glob(glob)) for glob in other.match)
            or set(evidence.categories) & set(other.categories)
        )
    )


def replay(rule: Rule, calls: list[DecidedCall]) -> Replay:
    """The rule over the recorded calls: what it would have decided, and how those ended."""
    return replay_by_key(rule, _by_key(calls))


def replay_by_key(rule: Rule, calls_by_key: dict[str, list[DecidedCall]]) -> Replay:
    """replay over calls grouped by capability: each key is matched against the rule's globs
    once, and only the calls of the keys it matches are looked at."""
    result = Replay()
    for key, calls in calls_by_key.items():
        name = normalise_key(key)
        if not any(fnmatch.fnmatchcase(name, normalise_glob(glob)) for glob in rule.match):
            continue
        for call in calls:
            if covers(rule, call):
                result.count(call)
    return result


def _by_key(calls: list[DecidedCall]) -> dict[str, list[DecidedCall]]:
    grouped: dict[str, list[DecidedCall]] = defaultdict(list)
    for call in calls:
        grouped[call.key].append(call)
    return grouped


def _safe(proposed: ProposedRule, replayed: Replay) -> bool:
    # Never allow what a reviewer turned down or changed: checked on the replay too, so a glob
    # wider than its capability could not carry a rejected call in.
    return proposed.rule.action != "allow" or (replayed.rejected == 0 and replayed.edited == 0)


class Suggestions:
    """Suggested rules for the policy in force, and their adoption as a proposed change."""

    def __init__(self, ledger: ReviewLedger, changes: PolicyChanges) -> None:
        self._ledger = ledger
        self._changes = changes

    def suggest(
        self, *, days: int = DEFAULT_DAYS, min_decisions: int = DEFAULT_MIN_DECISIONS
    ) -> list[Suggestion]:
        """Rules the last ``days`` days of decisions support, numbered from 1, each replayed and
        checked as a rule of the current policy (as `gatehouse policy check` checks a file).
        Writes nothing."""
        history = read_history(self._ledger, days)
        by_key = _by_key(history.calls)
        found: list[tuple[Evidence, ProposedRule, Replay, str]] = []
        for key in sorted(by_key):
            evidence = _evidence(key, by_key[key], history.capabilities[key])
            proposed = propose_rule(evidence, min_decisions=min_decisions)
            if proposed is None:
                continue
            replayed = replay_by_key(proposed.rule, by_key)
            if _safe(proposed, replayed):
                found.append((evidence, proposed, replayed, rule_toml(proposed.rule)))
        adopted = self._check(self._changes.current().text, [toml for *_, toml in found])
        return [
            Suggestion(
                number=number,
                kind=proposed.kind,
                rule=proposed.rule,
                table=toml,
                evidence=evidence,
                bounds=describe(proposed.bounds) if proposed.bounds else "",
                unbounded=proposed.unbounded,
                replay=replayed,
                outranked_by=outranking(adopted, proposed.rule, evidence),
            )
            for number, (evidence, proposed, replayed, toml) in enumerate(found, start=1)
        ]

    def _check(self, current: str, tables: list[str]) -> PolicyFile:
        """The current policy with every suggested rule added, checked as `gatehouse policy
        check` checks a file, so each suggestion is a valid rule of it. Once for all: rules are
        items of one list, each valid or not on its own, and none changes who may manage the
        policy; where the whole is refused, each rule alone says which one."""
        everything = current
        for toml in tables:
            everything = with_rule(everything, toml)
        try:
            return self._changes.check(everything)
        except (PolicyError, PolicyChangeError):
            for toml in tables:
                self._changes.check(with_rule(current, toml))
            raise

    def propose(
        self,
        number: int,
        *,
        by: str,
        reason: str | None = None,
        days: int = DEFAULT_DAYS,
        min_decisions: int = DEFAULT_MIN_DECISIONS,
        shown_rule: str | None = None,
    ) -> tuple[Suggestion, PolicyChange]:
        """Propose the current policy plus suggestion ``number`` as a policy change, waiting for
        approval like any other (never the file directly).

        ``shown_rule``: the rule's TOML as the proposer saw it listed (the Reviews page). The
        numbers are those of a listing made now: new decisions or another policy may have
        renumbered them since, and then nothing is proposed rather than another rule.

        Raises:
            SuggestionError: there is no suggestion with that number, or it is no longer the
                rule shown.
            NotPermittedError, PolicyChangeError: as PolicyChanges.propose.
        """
        suggestions = self.suggest(days=days, min_decisions=min_decisions)
        there = 1 <= number <= len(suggestions)
        if shown_rule is not None and not (there and suggestions[number - 1].table == shown_rule):
            raise SuggestionError(
                f"suggestion {number} is no longer the rule shown: the decisions or the policy changed"
                " since it was listed. Nothing was proposed; read the suggestions again"
            )
        if not there:
            raise SuggestionError(
                f"no suggestion {number}: there are {len(suggestions)} (`gatehouse policy suggest`)"
            )
        chosen = suggestions[number - 1]
        why = reason or (
            f"suggested from {chosen.evidence.decisions} decisions; replay: would have decided"
            f" {chosen.replay.decided} calls, {chosen.replay.rejected} rejected,"
            f" {chosen.replay.edited} edited"
        )
        current = self._changes.current()
        change = self._changes.propose(
            with_rule(current.text, chosen.table), by=by, reason=why, written_on=current.seq
        )
        return chosen, change


def with_rule(policy_text: str, toml: str) -> str:
    """The policy's text with the rule's table added at its end: the diff adds exactly it."""
    return policy_text.rstrip("\n") + "\n\n" + toml
