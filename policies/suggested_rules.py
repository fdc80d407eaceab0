"""Rules proposed from reviewers' decisions (reviews/suggestions.py reads them from the ledger).

Three kinds, one capability each, and only on evidence that is all one way:

- a read-only capability every reviewer approved unchanged: ``allow`` it (``risk = "low"``, so
  the rule still covers it only while the engine rates it low-risk itself);
- a side-effecting one approved unchanged every time: ``allow`` it within bounds inferred from
  the approved arguments, in grant_bounds.py's kinds as the policy's constraints express them
  (recipients at the domains seen, amounts up to the largest seen, paths ``under`` the folder
  they share, and an argument that had one value in every call ``equals`` it), any call
  outside them going back to review;
- one rejected every time: ``deny`` it.

A capability with a single rejection or edited approval in the window gets no allow rule.
The rule names its capability by ``names.key_glob`` (the key, or its spelling where the key
holds glob marks), so it matches that capability and no other. It comes out as TOML in the
policy file's own ``[[rules]]`` syntax (rule_toml).

Review rules of the policy that also match the capability outrank an allow; adopting one
narrows them (reviews/suggestions.py), and ``keep_what_narrowed_rules_held`` gives the allow
rule what they held the capability's calls to, so nothing outside its bounds is reviewed less
strictly than before.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from policies.constraints import canonical, is_path_argument, is_recipient_argument, recipient_addresses
from policies.grant_bounds import Bounds
from policies.model import Category, Constraints, NumericBound, PartialReviewSettings, Rule
from policies.names import key_glob, normalise_glob
from policies.risk import is_amount_argument
from policies.secrets import DEFAULT_REDACTOR

Verdict = Literal["approved", "edited", "rejected"]
SuggestionKind = Literal["allow_read_only", "allow_within_bounds", "deny"]


@dataclass(frozen=True)
class Evidence:
    """What the window holds for one capability: how each review ended, and the arguments of
    the calls approved unchanged."""

    key: str
    read_only: bool
    categories: tuple[Category, ...]
    approved: int
    edited: int
    rejected: int
    approved_arguments: tuple[Mapping[str, Any], ...]

    @property
    def decisions(self) -> int:
        return self.approved + self.edited + self.rejected


@dataclass(frozen=True)
class ProposedRule:
    kind: SuggestionKind
    rule: Rule
    # The bounds the rule holds arguments to, in grant_bounds.py's kinds, for people to read.
    bounds: Bounds
    # Arguments the rule leaves free (neither recipients, amounts nor paths, and not one value
    # every time): an admin reads them before adopting it.
    unbounded: tuple[str, ...]


def _finite_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


# A value longer than this (as JSON) is left free rather than written into the policy: a
# file's whole content approved five times over is not a bound anyone reads.
EQUALS_MAX_CHARS = 200
_TOML_INTEGERS = range(-(2**63), 2**63)
_SURROGATE = re.compile("[\ud800-\udfff]")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _common_folder(paths: Sequence[str]) -> str | None:
    """The deepest folder holding every path, for absolute paths only (a relative path means
    wherever the server is); None when there is none but the file system's root."""
    if not paths or not all(p.startswith("/") for p in paths):
        return None
    parts = [p.split("/")[:-1] for p in paths]
    common: list[str] = []
    for segments in zip(*parts, strict=False):
        if len(set(segments)) != 1:
            break
        common.append(segments[0])
    folder = "/".join(common)
    return folder if folder.strip("/") else None


def _paths(values: Sequence[Any]) -> list[str] | None:
    """The paths of a path argument's values (each a path or a list of them); None when one
    is neither."""
    paths: list[str] = []
    for value in values:
        items = value if isinstance(value, list) else [value]
        if not all(isinstance(item, str) for item in items):
            return None
        paths += items
    return paths


def _expressible(value: Any) -> bool:
    """Whether a JSON value reads back from the policy's TOML as the same JSON: no null (TOML
    has none), integers TOML holds, finite numbers."""
    if value is None:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, str):
        return not _SURROGATE.search(value)  # half of a pair: no UTF-8 file can hold it
    if isinstance(value, int):
        return value in _TOML_INTEGERS
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_expressible(item) for item in value)
    if isinstance(value, dict):
        return all(_expressible(key) and _expressible(item) for key, item in value.items())
    return False


def _one_value(name: str, values: Sequence[Any], calls: int) -> bool:
    """Whether an argument had one value in every approved call that may be written into the
    policy: not a secret (by name or by shape), short, and expressible in TOML."""
    if len(values) != calls or len({canonical(v) for v in values}) != 1:
        return False
    value = values[0]
    shown = canonical(value)
    hidden = DEFAULT_REDACTOR.is_secret_name(name) or "***" in shown or DEFAULT_REDACTOR.found(value)
    return not hidden and len(shown) <= EQUALS_MAX_CHARS and _expressible(value)


def infer_bounds(approved: Sequence[Mapping[str, Any]]) -> tuple[Bounds, tuple[str, ...]] | None:
    """The narrowest bounds of grant_bounds.py's kinds the policy's constraints can state that
    hold every approved call, and the arguments left free; None when an argument cannot be
    bounded so (a recipient argument with no address, an amount that is not a number).

    A path argument is bound ``under`` the folder its absolute paths share ("any" path within
    the server's roots where they are relative or share only "/"); any other argument with one
    value in every call is bound to it (``exact``), unless it is a secret or long."""
    names = sorted({name for arguments in approved for name in arguments})
    bounds: Bounds = {}
    unbounded: list[str] = []
    for name in names:
        values = [arguments[name] for arguments in approved if name in arguments]
        if is_recipient_argument(name):
            addresses = [a for v in values for a in recipient_addresses(v)]
            if not addresses or any(a.count("@") != 1 for a in addresses):
                return None
            domains = sorted({a.rsplit("@", 1)[1].lower() for a in addresses})
            bounds[name] = {"domain": domains[0]} if len(domains) == 1 else {"domain": ",".join(domains)}
        elif is_amount_argument(name) or all(_finite_number(v) for v in values):
            if not all(_finite_number(v) for v in values):
                return None
            bounds[name] = {"max": max(values)}
        elif is_path_argument(name) and (paths := _paths(values)) is not None:
            folder = _common_folder(paths)
            bounds[name] = {"under": folder} if folder else "any"
        elif _one_value(name, values, len(approved)):
            bounds[name] = {"exact": values[0]}
        else:
            unbounded.append(name)
    return bounds, tuple(unbounded)


def _constraints(bounds: Bounds) -> Constraints:
    domains: set[str] = set()
    numeric: dict[str, NumericBound] = {}
    equals: dict[str, Any] = {}
    under: dict[str, str] = {}
    paths = False
    for name, bound in bounds.items():
        if not isinstance(bound, dict):
            paths = True  # a path with no folder of its own: the server's roots hold it
        elif "domain" in bound:
            domains.update(str(bound["domain"]).split(","))
        elif "max" in bound:
            numeric[name] = NumericBound(max=float(bound["max"]))
        elif "under" in bound:
            under[name] = str(bound["under"])
        elif "exact" in bound:
            equals[name] = bound["exact"]
    return Constraints(
        paths_within_roots=paths,
        recipient_domains=sorted(domains) if domains else None,
        numeric=numeric,
        equals=equals,
        under=under,
        on_violation="review",
    )


def propose_rule(evidence: Evidence, *, min_decisions: int) -> ProposedRule | None:
    """The rule the evidence supports, or None: too few decisions, or decisions both ways."""
    if evidence.decisions < min_decisions:
        return None
    plural = "s" if evidence.decisions != 1 else ""
    if evidence.rejected == evidence.decisions:
        rule = Rule(
            name=f"suggested: deny {evidence.key}",
            match=[key_glob(evidence.key)],
            action="deny",
            explanation=f"reviewers rejected all {evidence.decisions} call{plural} of {evidence.key}",
        )
        return ProposedRule("deny", rule, {}, ())
    if evidence.approved != evidence.decisions:
        return None  # one rejection or edit is enough never to allow it
    if evidence.read_only:
        rule = Rule(
            name=f"suggested: allow {evidence.key}",
            match=[key_glob(evidence.key)],
            action="allow",
            risk="low",
            explanation=f"read-only; reviewers approved all {evidence.decisions} call{plural} unchanged",
        )
        return ProposedRule("allow_read_only", rule, {}, ())
    inferred = infer_bounds(evidence.approved_arguments)
    if inferred is None:
        return None
    bounds, unbounded = inferred
    rule = Rule(
        name=f"suggested: allow {evidence.key} within bounds",
        match=[key_glob(evidence.key)],
        action="allow",
        accepts=list(evidence.categories),
        constraints=_constraints(bounds),
        explanation=(
            f"reviewers approved all {evidence.decisions} call{plural} unchanged within these bounds;"
            " outside them a call goes to review"
        ),
    )
    return ProposedRule("allow_within_bounds", rule, bounds, unbounded)


def _merged_review(rule: Rule, narrowed: Sequence[Rule]) -> PartialReviewSettings:
    """The strictest review terms among the rules: most approvals, shortest expiry, four-eyes
    where any asks for it, and only the roles every one that names roles lets review."""
    terms = [rule.review, *(other.review for other in narrowed)]
    approvals = [t.required_approvals for t in terms if t.required_approvals is not None]
    expiries = [t.expiry_minutes for t in terms if t.expiry_minutes is not None]
    eyes = {t.four_eyes for t in terms if t.four_eyes is not None}
    named = [t.reviewer_roles for t in terms if t.reviewer_roles is not None]
    roles = [role for role in named[0] if all(role in other for other in named)] if named else None
    return PartialReviewSettings(
        required_approvals=max(approvals) if approvals else None,
        expiry_minutes=min(expiries) if expiries else None,
        four_eyes=(True in eyes) if eyes else None,
        # No role in common: the first rule's roles, rather than a review nobody may decide.
        reviewer_roles=(roles or named[0]) if named else None,
    )


def _merged_numeric(
    mine: Mapping[str, NumericBound], theirs: Mapping[str, NumericBound]
) -> dict[str, NumericBound] | None:
    merged = dict(mine)
    for name, bound in theirs.items():
        own = merged.get(name, NumericBound())
        lows = [v for v in (own.min, bound.min) if v is not None]
        highs = [v for v in (own.max, bound.max) if v is not None]
        low, high = (max(lows) if lows else None), (min(highs) if highs else None)
        if low is not None and high is not None and low > high:
            return None
        merged[name] = NumericBound(min=low, max=high)
    return merged


def _merged_under(mine: Mapping[str, str], theirs: Mapping[str, str]) -> dict[str, str] | None:
    merged = dict(mine)
    for name, folder in theirs.items():
        own = merged.get(name, folder)
        inner, outer = sorted((own, folder), key=len, reverse=True)
        if inner != outer and not inner.startswith(outer.rstrip("/") + "/"):
            return None  # two folders neither of which holds the other: no path is in both
        merged[name] = inner
    return merged


def _held_constraints(rule: Rule, refusing: Sequence[Constraints]) -> Constraints | None:
    """The rule's constraints with those of ``refusing`` added (each as narrow as both); None
    when together they leave no value."""
    mine = rule.constraints
    domains = mine.recipient_domains
    numeric: dict[str, NumericBound] | None = dict(mine.numeric)
    equals = dict(mine.equals)
    under: dict[str, str] | None = dict(mine.under)
    for theirs in refusing:
        if theirs.recipient_domains is not None:
            wanted = {d.lower() for d in theirs.recipient_domains}
            domains = (
                [d for d in domains if d.lower() in wanted]
                if domains is not None
                else list(theirs.recipient_domains)
            )
        for name, value in theirs.equals.items():
            if name in equals and canonical(equals[name]) != canonical(value):
                return None
            equals[name] = value
        numeric = _merged_numeric(numeric, theirs.numeric) if numeric is not None else None
        under = _merged_under(under, theirs.under) if under is not None else None
    if numeric is None or under is None or domains == []:
        return None
    return mine.model_copy(
        update={
            "paths_within_roots": mine.paths_within_roots or any(c.paths_within_roots for c in refusing),
            "recipient_domains": domains,
            "numeric": numeric,
            "equals": equals,
            "under": under,
        }
    )


def keep_what_narrowed_rules_held(rule: Rule, narrowed: Sequence[Rule]) -> Rule | None:
    """The allow rule as adopted in place of the review rules it narrows (they no longer cover
    its capability), holding the capability's calls to what those rules held them to, so no
    call outside its bounds is reviewed less strictly than before: their review terms (the
    strictest), their category (who reviews it), ``grantable = false`` where one says so, and
    the constraints they refused calls on (``on_violation = "deny"``), now sending such a call
    to review with its flag. None when those constraints and the rule's own leave no value
    (the approved calls were within them once; the policy has changed since).
    """
    if not narrowed:
        return rule
    refusing = [other.constraints for other in narrowed if other.constraints.on_violation == "deny"]
    constraints = _held_constraints(rule, refusing)
    if constraints is None:
        return None
    category = rule.category or next((other.category for other in narrowed if other.category), None)
    return rule.model_copy(
        update={
            "category": category,
            "review": _merged_review(rule, narrowed),
            "grantable": rule.grantable and all(other.grantable for other in narrowed),
            "constraints": constraints,
        }
    )


def decides_alike(rule: Rule, other: Rule) -> bool:
    """Whether two rules decide the same calls the same way: the same globs (in the spelling
    rules compare), categories, action, risk, read-only mark, accepted categories and
    constraints. Their names, explanations, review terms and who reviews may differ: a rule
    adopted from a suggestion and then renamed, or written by hand, is still that rule."""

    def globs(of: Rule) -> set[str]:
        return {normalise_glob(glob) for glob in of.match}

    def constraints(of: Rule) -> Constraints:
        # Domains are compared without case and in any order, as the engine compares them.
        domains = of.constraints.recipient_domains
        held = sorted({domain.lower() for domain in domains}) if domains is not None else None
        return of.constraints.model_copy(update={"recipient_domains": held})

    return (
        globs(rule) == globs(other)
        and set(rule.categories) == set(other.categories)
        and rule.action == other.action
        and rule.risk == other.risk
        and rule.read_only_hint == other.read_only_hint
        and set(rule.accepts) == set(other.accepts)
        and constraints(rule) == constraints(other)
    )


def _toml_string(text: str) -> str:
    # A JSON string is a TOML basic string, but for DEL, which TOML wants escaped.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _toml_string(key)


def _toml_value(value: Any, *, exact: bool = False) -> str:
    """A value in TOML; ``exact``: a float stays a float (``2.0``, not ``2``), as an argument's
    value compared by its JSON must."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and not exact:
        return str(int(value)) if abs(value) < 2**53 else repr(value)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item, exact=exact) for item in value) + "]"
    if isinstance(value, dict):
        inline = ", ".join(f"{_toml_key(k)} = {_toml_value(v, exact=exact)}" for k, v in value.items())
        return f"{{ {inline} }}" if inline else "{}"
    raise TypeError(f"no TOML for {value!r}")


def _table(name: str, data: Mapping[str, Any]) -> list[str]:
    # equals holds arguments' values, compared by their JSON: a float stays a float there.
    return [f"[{name}]"] + [
        f"{key} = {_toml_value(value, exact=key == 'equals')}" for key, value in data.items()
    ]


def rule_toml(rule: Rule) -> str:
    """The rule as one ``[[rules]]`` table of the policy file, with only what differs from a
    rule's defaults; the policy loader reads it back as the same rule."""
    data = rule.model_dump(exclude_defaults=True)
    constraints = data.pop("constraints", {})
    review = data.pop("review", {})
    lines = ["[[rules]]"] + [f"{key} = {_toml_value(value)}" for key, value in data.items()]
    if constraints:
        lines += _table("rules.constraints", constraints)
    if review:
        lines += _table("rules.review", review)
    return "\n".join(lines) + "\n"
