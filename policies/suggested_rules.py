"""Rules proposed from reviewers' decisions (reviews/suggestions.py reads them from the ledger).

Three kinds, one capability each, and only on evidence that is all one way:

- a read-only capability every reviewer approved unchanged: ``allow`` it (``risk = "low"``, so
  the rule still covers it only while the engine rates it low-risk itself);
- a side-effecting one approved unchanged every time: ``allow`` it within bounds inferred from
  the approved arguments, in grant_bounds.py's kinds as the policy's constraints express them
  (recipients at the domains seen, amounts up to the largest seen, paths within the server's
  roots), any call outside them going back to review;
- one rejected every time: ``deny`` it.

A capability with a single rejection or edited approval in the window gets no allow rule.
The rule comes out as TOML in the policy file's own ``[[rules]]`` syntax (rule_toml).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from policies.constraints import is_path_argument, is_recipient_argument, recipient_addresses
from policies.grant_bounds import Bounds
from policies.model import Category, Constraints, NumericBound, Rule
from policies.risk import is_amount_argument

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
    # Arguments the rule leaves free (neither recipients, amounts nor paths): an admin reads
    # them before adopting it.
    unbounded: tuple[str, ...]


def _finite_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _common_folder(paths: Sequence[str]) -> str | None:
    parts = [p.split("/")[:-1] for p in paths]
    common: list[str] = []
    for segments in zip(*parts, strict=False):
        if len(set(segments)) != 1:
            break
        common.append(segments[0])
    folder = "/".join(common)
    return folder or ("/" if all(p.startswith("/") for p in paths) else None)


def infer_bounds(approved: Sequence[Mapping[str, Any]]) -> tuple[Bounds, tuple[str, ...]] | None:
    """The narrowest bounds of grant_bounds.py's kinds the policy's constraints can state that
    hold every approved call, and the arguments left free; None when an argument cannot be
    bounded so (a recipient argument with no address, an amount that is not a number)."""
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
        elif is_path_argument(name) and all(isinstance(v, str) for v in values):
            folder = _common_folder([str(v) for v in values])
            bounds[name] = {"under": folder} if folder else "any"
        else:
            unbounded.append(name)
    return bounds, tuple(unbounded)


def _constraints(bounds: Bounds) -> Constraints:
    domains: set[str] = set()
    numeric: dict[str, NumericBound] = {}
    paths = False
    for name, bound in bounds.items():
        if not isinstance(bound, dict):
            paths = True
        elif "domain" in bound:
            domains.update(str(bound["domain"]).split(","))
        elif "max" in bound:
            numeric[name] = NumericBound(max=float(bound["max"]))
        elif "under" in bound:
            paths = True
    return Constraints(
        paths_within_roots=paths,
        recipient_domains=sorted(domains) if domains else None,
        numeric=numeric,
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
            match=[evidence.key],
            action="deny",
            explanation=f"reviewers rejected all {evidence.decisions} call{plural} of {evidence.key}",
        )
        return ProposedRule("deny", rule, {}, ())
    if evidence.approved != evidence.decisions:
        return None  # one rejection or edit is enough never to allow it
    if evidence.read_only:
        rule = Rule(
            name=f"suggested: allow {evidence.key}",
            match=[evidence.key],
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
        match=[evidence.key],
        action="allow",
        accepts=list(evidence.categories),
        constraints=_constraints(bounds),
        explanation=(
            f"reviewers approved all {evidence.decisions} call{plural} unchanged within these bounds;"
            " outside them a call goes to review"
        ),
    )
    return ProposedRule("allow_within_bounds", rule, bounds, unbounded)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if abs(value) < 2**53 else repr(value)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def rule_toml(rule: Rule) -> str:
    """The rule as one ``[[rules]]`` table of the policy file, with only what differs from a
    rule's defaults."""
    data = rule.model_dump(exclude_defaults=True)
    constraints = data.pop("constraints", {})
    numeric = constraints.pop("numeric", {})
    lines = ["[[rules]]"]
    lines += [f"{key} = {_toml_value(value)}" for key, value in data.items()]
    if constraints or numeric:
        lines.append("[rules.constraints]")
        lines += [f"{key} = {_toml_value(value)}" for key, value in constraints.items()]
        for name, bound in numeric.items():
            inline = ", ".join(f"{k} = {_toml_value(v)}" for k, v in bound.items())
            lines.append(f"numeric.{json.dumps(name)} = {{ {inline} }}")
    return "\n".join(lines) + "\n"
