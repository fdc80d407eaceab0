"""Rules learned from reviewers' decisions, each proven on the recorded history before anyone
adopts it (`gatehouse policy suggest`).

The decisions of a window (reviews of a call before it runs, decided by a reviewer) are read
from the ledger in two queries (and one definition per capability);
policies/suggested_rules.py turns each capability's evidence into a rule; each rule is replayed over every recorded call of the window: how many it would
have decided, how many of those a reviewer rejected or edited, how many ended failed or
``outcome_unknown``, under the policy as it would be once the rule is adopted. Adopting one
goes through the one mechanism for policy changes (reviews/policy_changes.py): a reviewed diff,
audited, picked up by every replica.

An allow rule changes nothing while a review rule also covers its capability (review outranks
allow), so adopting one also narrows those review rules: the capability's key goes into their
``exclude`` (policies/narrowing.py), in the same diff, and the allow rule takes over what they
held its calls to (suggested_rules.keep_what_narrowed_rules_held). Two kinds of rule are never
narrowed: a deny rule (the suggestion is then offered as not adoptable, with the reason) and a
review rule that holds tools by what their server says of them (``read_only_hint``: the
shipped "untrusted read-only" and "unannotated tools"), which keeps holding the capability.

A rule and an exclusion name the capability by ``names.key_glob``, so a name holding glob marks
(``*``, ``?``, ``[``, ``]``: servers choose names) matches itself and nothing else. Each
suggestion is compared with the policy in force: one a rule of it already decides alike
(suggested_rules.decides_alike: the same match, action and constraints, whatever its name) is
listed as in force and never proposed again; one whose name a rule of the policy holds with
other content (new decisions since it was adopted) is listed as not adoptable. A suggestion a
pending change already adds is not proposed twice (``proposed_in``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cached_property
from typing import Any

from mcp_host.manifest import Capability
from policies.constraints import Roots, constraint_flags
from policies.engine import PolicyEngine
from policies.grant_bounds import describe
from policies.loader import PolicyError
from policies.model import Category, Constraints, PolicyFile, Rule
from policies.names import key_glob, key_matches
from policies.narrowing import NarrowingError, with_exclusions
from policies.risk import rate
from policies.suggested_rules import (
    Evidence,
    ProposedRule,
    SuggestionKind,
    Verdict,
    decides_alike,
    keep_what_narrowed_rules_held,
    propose_rule,
    rule_toml,
)
from reviews.clock import iso
from reviews.errors import ReviewError
from reviews.ledger import ReviewLedger
from reviews.policy_changes import PolicyChange, PolicyChangeError, PolicyChanges

DEFAULT_DAYS = 30
DEFAULT_MIN_DECISIONS = 5
# Replay checks recipients, amounts, values and folders a rule names; the server's roots
# (paths_within_roots) are not recorded in the ledger, so it takes a recorded path as inside them.
_NO_ROOTS = Roots(paths=(), origin="the recorded history")
_RANK = {"allow": 0, "review": 1, "deny": 2}
# Review ids in one IN (...) list: within SQLite's and PostgreSQL's parameter limits.
_IDS_PER_QUERY = 500


class SuggestionError(ReviewError):
    """A suggestion asked for that is not there (a number out of range)."""


@dataclass(frozen=True)
class DecidedCall:
    """One reviewed call of the window, as a reviewer left it and as it ended."""

    review_id: str
    key: str
    # The arguments as the ledger keeps them (JSON): parsed only for the calls a rule's
    # constraints or bounds look at, a fraction of the window's (figure 13).
    arguments_json: str
    verdict: Verdict
    # The review's status now: executed, failed, outcome_unknown, rejected, not_run, ...
    status: str

    @cached_property
    def arguments(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.arguments_json)
        return parsed


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
    # Rules of the current policy that apply to the capability and outrank this one (deny >
    # review > allow): what adopting it has to narrow.
    outranked_by: tuple[str, ...] = ()
    # The review rules adopting it narrows (the capability's key added to their exclude).
    narrows: tuple[str, ...] = ()
    # Review rules that keep holding the capability once it is adopted (they select tools by
    # their read-only mark, and are never narrowed): while they apply, it decides nothing.
    still_held_by: tuple[str, ...] = ()
    # Why it cannot be adopted as it stands (a deny rule refuses the capability, it is in
    # force already, a rule of the policy has its name), or None.
    not_adoptable: str | None = None
    # The rule of the policy in force that already decides as this one would (adopted
    # before, or written by hand), or None: such a suggestion is listed, never adopted again.
    in_force: str | None = None

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
            "narrows": list(self.narrows),
            "still_held_by": list(self.still_held_by),
            "adoptable": self.not_adoptable is None,
            "not_adoptable": self.not_adoptable,
            "in_force": self.in_force,
        }


def _verdict(proposed: str, rejections: int, other_texts: list[str]) -> Verdict:
    """How reviewers left a call: rejected, approved with other arguments (edited), or approved
    as proposed. ``other_texts``: the decisions' arguments whose text differs from the proposed
    text, which may still be the same arguments (keys in another order)."""
    if rejections:
        return "rejected"
    if other_texts and any(json.loads(text) != json.loads(proposed) for text in other_texts):
        return "edited"
    return "approved"


@dataclass
class _History:
    calls: list[DecidedCall]
    capabilities: dict[str, dict[str, Any]]


def read_history(ledger: ReviewLedger, days: int) -> _History:
    """The reviewed calls decided in the last ``days`` days, in no set order; a review nobody
    decided (expired, withdrawn) is left out. Writes nothing."""
    since = iso(ledger.now() - timedelta(days=days))
    window = "r.stage = 'before_execution' AND r.decided_at >= ? AND r.capability_key IS NOT NULL"
    with ledger.database.read() as conn:
        # One row per decided review, its rejections and the decisions whose arguments are not
        # the proposed text counted by the database. Grouped by the primary key, so the
        # review's own columns may be selected (SQLite and PostgreSQL). No ORDER BY: counts do
        # not depend on order, and sorting wide rows costs more than the read.
        rows = conn.execute(
            "SELECT r.id, r.capability_key, r.arguments, r.status,"
            " SUM(CASE WHEN d.action = 'reject' THEN 1 ELSE 0 END) AS rejections,"
            " SUM(CASE WHEN d.arguments IS NOT NULL AND d.arguments <> r.arguments THEN 1 ELSE 0 END)"
            " AS other_texts"
            " FROM reviews r JOIN review_decisions d ON d.review_id = r.id"
            f" WHERE {window} GROUP BY r.id",
            (since,),
        ).fetchall()
        # Those other texts, few (edits, mostly): only these are compared as JSON.
        other_texts: dict[str, list[str]] = defaultdict(list)
        differing = [row["id"] for row in rows if row["other_texts"] and not row["rejections"]]
        for start in range(0, len(differing), _IDS_PER_QUERY):
            chunk = differing[start : start + _IDS_PER_QUERY]
            for row in conn.execute(
                "SELECT review_id, arguments FROM review_decisions"
                f" WHERE arguments IS NOT NULL AND review_id IN ({', '.join('?' * len(chunk))})",
                chunk,
            ).fetchall():
                other_texts[row["review_id"]].append(row["arguments"])
        calls: list[DecidedCall] = []
        one_of: dict[str, str] = {}
        for row in rows:
            review_id, key, proposed = row["id"], str(row["capability_key"]), row["arguments"]
            verdict = _verdict(proposed, int(row["rejections"]), other_texts.get(review_id, []))
            one_of[key] = review_id
            calls.append(DecidedCall(review_id, key, proposed, verdict, row["status"]))
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
    approved = [call for call in calls if call.verdict == "approved"]
    # Bounds are inferred only for an acting capability approved unchanged every time
    # (propose_rule): any other's arguments are left unparsed.
    bounded = not read_only and len(approved) == len(calls)
    return Evidence(
        key=key,
        read_only=read_only,
        categories=categories,
        approved=len(approved),
        edited=sum(call.verdict == "edited" for call in calls),
        rejected=sum(call.verdict == "rejected" for call in calls),
        approved_arguments=tuple(call.arguments for call in approved) if bounded else (),
    )


def _checkable(constraints: Constraints) -> Constraints:
    """A rule's constraints as a replay can check them: the server's roots aside (_NO_ROOTS)."""
    return constraints.model_copy(update={"paths_within_roots": False})


_NO_CONSTRAINTS = Constraints()


def _within(checkable: Constraints, call: DecidedCall) -> bool:
    """Whether the call's arguments keep the constraints; a rule that states none (most deny
    and read-only rules) is kept by every call without parsing its arguments."""
    if all(
        getattr(checkable, name) == getattr(_NO_CONSTRAINTS, name)
        for name in Constraints.model_fields
        if name != "on_violation"
    ):
        return True
    return not constraint_flags(call.arguments, checkable, _NO_ROOTS)


def _names(rule: Rule, key: str) -> bool:
    """Whether the rule's globs match the key and its exclude does not."""
    return key_matches(key, rule.match) and not key_matches(key, rule.exclude)


def covers(rule: Rule, call: DecidedCall) -> bool:
    """Whether the rule would have decided the call itself (its globs match and its exclude
    does not, and for an allow rule the arguments keep its constraints), as the engine
    compares names and constraints."""
    if not _names(rule, call.key):
        return False
    return rule.action != "allow" or _within(_checkable(rule.constraints), call)


def replay(rule: Rule, calls: list[DecidedCall]) -> Replay:
    """The rule alone over the recorded calls: what it would have decided, and how those
    ended (what the check that it never allows a call a reviewer turned down counts on)."""
    return replay_by_key(rule, _by_key(calls))


def replay_by_key(rule: Rule, calls_by_key: dict[str, list[DecidedCall]]) -> Replay:
    """replay over calls grouped by capability: each key is matched against the rule's globs
    once, and only the calls of the keys it matches are looked at."""
    result = Replay()
    checkable = _checkable(rule.constraints)
    for key, calls in calls_by_key.items():
        if not _names(rule, key):
            continue
        for call in calls:
            if rule.action != "allow" or _within(checkable, call):
                result.count(call)
    return result


def _definition(recorded: dict[str, Any]) -> Capability | None:
    try:
        return Capability.model_validate(recorded)
    except ValueError:  # a definition recorded by an older release
        return None


def _applying(
    engine: PolicyEngine, key: str, definition: Capability | None
) -> tuple[list[Rule], list[Category]]:
    """The rules of the engine's policy that apply to the capability by its recorded
    definition, and the risk categories the engine rates it in."""
    if definition is None:
        # Its rating cannot be read: no rule limited to low risk applies, and every rule
        # selecting tools by their read-only mark is taken to (a hold, not an allow).
        return [r for r in engine.matching_rules(key) if r.risk is None], []
    rules, risk = engine.rules_for(definition)
    return rules, list(risk.categories)


def replay_adopted(
    rule: Rule,
    calls_by_key: dict[str, list[DecidedCall]],
    adopted: PolicyEngine,
    definitions: Mapping[str, Capability | None],
) -> Replay:
    """The rule over the recorded calls as the policy it is adopted into would decide them:
    a call counts where the rule applies to its capability (by the recorded definition), no
    rule that applies outranks it, the engine rates the capability in no category an allow
    rule does not accept, and the arguments keep the constraints of every applying rule whose
    violation is stricter than the rule's action."""
    result = Replay()
    for key, calls in calls_by_key.items():
        if not rule.categories and not _names(rule, key):
            continue
        applying, categories = _applying(adopted, key, definitions.get(key))
        if not any(other.name == rule.name for other in applying):
            continue
        if any(_RANK[other.action] > _RANK[rule.action] for other in applying):
            continue
        if rule.action == "allow" and set(categories) - set(rule.accepts):
            continue
        stricter = [
            _checkable(other.constraints)
            for other in applying
            if _RANK[other.constraints.on_violation] > _RANK[rule.action]
        ]
        for call in calls:
            if all(_within(constraints, call) for constraints in stricter):
                result.count(call)
    return result


@dataclass(frozen=True)
class _Adoption:
    """What adopting an allow rule does to the other rules applying to its capability."""

    outranked_by: tuple[str, ...] = ()
    narrows: tuple[str, ...] = ()
    still_held_by: tuple[str, ...] = ()
    refused_by: tuple[str, ...] = ()
    # Review rules whose exclude names the capability already (an adopted suggestion's
    # narrowing, or an admin's), which would hold it otherwise.
    narrowed_before: tuple[str, ...] = ()

    @property
    def held_by(self) -> tuple[str, ...]:
        """The review rules whose terms the allow rule keeps: those it narrows, and those
        narrowed for the capability before (so a suggestion adopted once is the same rule when
        it is listed again, and in force)."""
        return (*self.narrows, *self.narrowed_before)


def _narrowable(rule: Rule) -> bool:
    # A review rule holding tools by their read-only mark is never narrowed (module docstring).
    return rule.action == "review" and rule.read_only_hint is None


def _narrowed_before(current: PolicyFile, key: str, definition: Capability | None) -> tuple[str, ...]:
    excluding = {r.name for r in current.rules if _narrowable(r) and key_matches(key, r.exclude)}
    if not excluding:
        return ()
    # The same policy without their exclusions: which of them would apply to the capability.
    unexcluded = current.model_copy(
        update={
            "rules": [
                r.model_copy(update={"exclude": []}) if r.name in excluding else r for r in current.rules
            ]
        }
    )
    applying, _ = _applying(PolicyEngine(unexcluded), key, definition)
    return tuple(other.name for other in applying if other.name in excluding)


def _adoption(
    engine: PolicyEngine, current: PolicyFile, rule: Rule, key: str, definition: Capability | None
) -> _Adoption:
    if rule.action != "allow":
        return _Adoption()  # nothing outranks a deny
    applying, _ = _applying(engine, key, definition)
    outranking = [other for other in applying if other.name != rule.name and other.action != "allow"]
    return _Adoption(
        outranked_by=tuple(other.name for other in outranking),
        narrows=tuple(o.name for o in outranking if _narrowable(o)),
        still_held_by=tuple(
            o.name for o in outranking if o.action == "review" and o.read_only_hint is not None
        ),
        refused_by=tuple(other.name for other in outranking if other.action == "deny"),
        narrowed_before=_narrowed_before(current, key, definition),
    )


def _adopted(current: PolicyFile, rule: Rule, glob: str, narrows: tuple[str, ...]) -> PolicyFile:
    """The policy once the rule is adopted: the narrowed rules' exclude holding the
    capability's glob, the rule at the end (what the proposed change's text reads as). A rule
    of the policy with its name is replaced instead (what changing that rule by hand to this
    one would do: such a suggestion is not adoptable, its replay says what the change would)."""
    rules = [
        other.model_copy(update={"exclude": [*other.exclude, glob]}) if other.name in narrows else other
        for other in current.rules
    ]
    if any(other.name == rule.name for other in rules):
        return current.model_copy(update={"rules": [rule if o.name == rule.name else o for o in rules]})
    return current.model_copy(update={"rules": [*rules, rule]})


def _by_key(calls: list[DecidedCall]) -> dict[str, list[DecidedCall]]:
    grouped: dict[str, list[DecidedCall]] = defaultdict(list)
    for call in calls:
        grouped[call.key].append(call)
    return grouped


def _safe(proposed: ProposedRule, replayed: Replay) -> bool:
    # Never allow what a reviewer turned down or changed: checked on the replay too, so a glob
    # wider than its capability could not carry a rejected call in.
    return proposed.rule.action != "allow" or (replayed.rejected == 0 and replayed.edited == 0)


def _already_in_force(rule: str) -> str:
    return (
        f"it is in force already: rule '{rule}' of the policy has the same match, action and"
        " constraints (adopted before, or written by hand)"
    )


def _name_taken(rule: str) -> str:
    return (
        f"the policy has a rule named '{rule}' already, which decides otherwise (the decisions have"
        " changed since it was adopted, or it was edited); change that rule yourself"
        " (gatehouse policy propose) if these bounds should stand"
    )


def _refused(refused_by: tuple[str, ...]) -> str:
    names = ", ".join(f"'{name}'" for name in refused_by)
    return (
        f"rule {names} refuses this capability (deny), and a suggestion never narrows a deny rule;"
        " change that rule yourself (gatehouse policy propose) if the approvals should stand"
    )


@dataclass
class _Found:
    evidence: Evidence
    proposed: ProposedRule
    rule: Rule
    adoption: _Adoption
    not_adoptable: str | None = None
    in_force: Rule | None = None
    # Whether the policy has a rule of this name already (in force or not): its table cannot
    # be added to the policy as it stands.
    name_taken: bool = False

    @property
    def glob(self) -> str:
        return key_glob(self.evidence.key)

    @property
    def narrowing(self) -> dict[str, list[str]]:
        return {name: [self.glob] for name in self.adoption.narrows}


class Suggestions:
    """Suggested rules for the policy in force, and their adoption as a proposed change."""

    def __init__(self, ledger: ReviewLedger, changes: PolicyChanges) -> None:
        self._ledger = ledger
        self._changes = changes

    def suggest(
        self, *, days: int = DEFAULT_DAYS, min_decisions: int = DEFAULT_MIN_DECISIONS
    ) -> list[Suggestion]:
        """Rules the last ``days`` days of decisions support, numbered from 1, each replayed
        under the policy as it would be once adopted, and checked with the narrowing it brings
        as a change to the current policy (as `gatehouse policy check` checks a file).
        Writes nothing."""
        history = read_history(self._ledger, days)
        by_key = _by_key(history.calls)
        current_text = self._changes.current().text
        current = self._changes.check(current_text)
        before = PolicyEngine(current)
        by_name = {rule.name: rule for rule in current.rules}
        definitions = {key: _definition(recorded) for key, recorded in history.capabilities.items()}
        found: list[_Found] = []
        for key in sorted(by_key):
            evidence = _evidence(key, by_key[key], history.capabilities[key])
            proposed = propose_rule(evidence, min_decisions=min_decisions)
            if proposed is None or not _safe(proposed, replay_by_key(proposed.rule, by_key)):
                continue
            adoption = _adoption(before, current, proposed.rule, key, definitions[key])
            item = self._found(evidence, proposed, adoption, by_name)
            if item is not None:
                found.append(item)
        tables = [rule_toml(item.rule) for item in found]
        self._check(current_text, found, tables)
        suggestions = []
        for number, (item, table) in enumerate(zip(found, tables, strict=True), start=1):
            narrows = item.adoption.narrows if item.not_adoptable is None else ()
            if item.in_force is not None:
                # Replayed as the policy in force decides with the rule already in it.
                replayed = replay_adopted(item.in_force, by_key, before, definitions)
            else:
                adopted = PolicyEngine(_adopted(current, item.rule, item.glob, narrows))
                replayed = replay_adopted(item.rule, by_key, adopted, definitions)
            suggestions.append(
                Suggestion(
                    number=number,
                    kind=item.proposed.kind,
                    rule=item.rule,
                    table=table,
                    evidence=item.evidence,
                    bounds=describe(item.proposed.bounds) if item.proposed.bounds else "",
                    unbounded=item.proposed.unbounded,
                    replay=replayed,
                    outranked_by=item.adoption.outranked_by,
                    narrows=narrows,
                    still_held_by=item.adoption.still_held_by,
                    not_adoptable=item.not_adoptable,
                    in_force=item.in_force.name if item.in_force is not None else None,
                )
            )
        return suggestions

    @staticmethod
    def _found(
        evidence: Evidence, proposed: ProposedRule, adoption: _Adoption, by_name: Mapping[str, Rule]
    ) -> _Found | None:
        """The suggestion as it would be adopted into the policy in force, with why it cannot
        be where it cannot; None where the rules it narrows leave its bounds no value."""
        if adoption.refused_by:
            rule, reason = proposed.rule, _refused(adoption.refused_by)
        else:
            # Only narrower than the proposed rule: it still allows nothing turned down.
            held = keep_what_narrowed_rules_held(proposed.rule, [by_name[n] for n in adoption.held_by])
            if held is None:
                return None
            rule, reason = held, None
        # In force: a rule of the policy decides the capability as this one would, and no rule
        # outranks it that adopting would narrow (or that refuses it: that reason stands).
        in_force = next(
            (
                other
                for other in by_name.values()
                if decides_alike(other, rule) and not key_matches(evidence.key, other.exclude)
            ),
            None,
        )
        if reason is not None or adoption.narrows:
            in_force = None
        taken = rule.name in by_name
        if in_force is not None:
            reason = _already_in_force(in_force.name)
        elif reason is None and taken:
            reason = _name_taken(rule.name)
        return _Found(evidence, proposed, rule, adoption, reason, in_force=in_force, name_taken=taken)

    def _check(self, current: str, found: list[_Found], tables: list[str]) -> None:
        """The current policy with every adoptable suggestion's narrowing and every suggested
        rule added, checked as `gatehouse policy check` checks a file, so each suggestion and
        what it narrows are valid in it. Once for all: rules are items of one list, each valid
        or not on its own, exclusions only add globs, and none changes who may manage the
        policy; where the whole is refused, each alone says which one. A rule whose text
        cannot be narrowed here (a shape the editor does not follow) makes its suggestions
        not adoptable, with the reason."""
        adoptable = [item for item in found if item.not_adoptable is None and item.narrowing]
        narrowing: dict[str, list[str]] = defaultdict(list)
        for item in adoptable:
            for name, keys in item.narrowing.items():
                narrowing[name] += keys
        try:
            everything = with_exclusions(current, narrowing)
        except NarrowingError:
            everything = current
            for item in adoptable:
                try:
                    everything = with_exclusions(everything, item.narrowing)
                except NarrowingError as exc:
                    item.not_adoptable = f"the policy's text could not be narrowed: {exc}"
        # A rule in force, or one whose name the policy holds, is never added: nothing to check.
        added = [(item, toml) for item, toml in zip(found, tables, strict=True) if _adds(item)]
        for _, toml in added:
            everything = with_rule(everything, toml)
        try:
            self._changes.check(everything)
        except (PolicyError, PolicyChangeError):
            for item, toml in added:
                self._changes.check(with_rule(self._narrowed(current, item), toml))
            raise

    @staticmethod
    def _narrowed(current: str, item: _Found) -> str:
        return with_exclusions(current, item.narrowing) if item.not_adoptable is None else current

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
        approval like any other (never the file directly): its rule added at the end, and the
        capability's key added to the exclude of each review rule it narrows.

        ``shown_rule``: the rule's TOML as the proposer saw it listed (the Reviews page). The
        numbers are those of a listing made now: new decisions or another policy may have
        renumbered them since, and then nothing is proposed rather than another rule.

        Raises:
            SuggestionError: there is no suggestion with that number, it is no longer the rule
                shown, or it is not adoptable (``not_adoptable`` says why).
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
        if chosen.in_force is not None:
            raise SuggestionError(
                f"suggestion {number} is in force already as rule '{chosen.in_force}': nothing to propose"
            )
        if chosen.not_adoptable is not None:
            raise SuggestionError(f"suggestion {number} cannot be adopted: {chosen.not_adoptable}")
        pending = proposed_in(chosen.table, self._changes.changes("pending"))
        if pending is not None:
            raise SuggestionError(
                f"suggestion {number} is proposed already: policy change {pending.id} by"
                f" {pending.proposed_by} adds it and waits for approval (gatehouse policy diff"
                f" {pending.id}); nothing was proposed"
            )
        narrowed = f"; narrows rule {', '.join(chosen.narrows)}" if chosen.narrows else ""
        why = reason or (
            f"suggested from {chosen.evidence.decisions} decisions; replay: would have decided"
            f" {chosen.replay.decided} calls, {chosen.replay.rejected} rejected,"
            f" {chosen.replay.edited} edited{narrowed}"
        )
        current = self._changes.current()
        try:
            glob = key_glob(chosen.evidence.key)
            text = with_exclusions(current.text, {name: [glob] for name in chosen.narrows})
        except NarrowingError as exc:  # the policy changed since it was listed
            raise SuggestionError(f"suggestion {number} cannot be adopted: {exc}") from exc
        change = self._changes.propose(
            with_rule(text, chosen.table), by=by, reason=why, written_on=current.seq
        )
        return chosen, change


def _adds(item: _Found) -> bool:
    return item.in_force is None and not item.name_taken


def proposed_in(table: str, pending: list[PolicyChange]) -> PolicyChange | None:
    """The pending policy change that adds the suggestion's rule (its table, as a proposal
    writes it), or None: the Reviews page names it instead of offering the button, and
    `--propose` refuses to propose it twice."""
    return next((change for change in pending if table in change.text), None)


def with_rule(policy_text: str, toml: str) -> str:
    """The policy's text with the rule's table added at its end: the diff adds exactly it."""
    return policy_text.rstrip("\n") + "\n\n" + toml
