"""Which rules applied to one call and why, which a reader might expect to and did not, and by
which step the decision came about: what `gatehouse policy explain` shows beside the decision.

Nothing here decides. ``PolicyEngine.evaluate_traced`` records the rules and the step of the
evaluation it made; this module only puts them into words, so a reader who wrote an allow rule
sees it matched and lost, and one who sees a category next to a rule for it sees why that rule
did not apply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from policies.names import key_matches, normalise_glob, normalise_key

if TYPE_CHECKING:
    from collections.abc import Sequence

    from policies.decision import Action
    from policies.model import Category, Rule
    from policies.risk import Evidence, Risk

# How the action came about: the strictest rule that applied ("rules"), the policy's default
# (no rule applied), a rule's constraint the call broke ("constraint": its on_violation), or an
# allow the engine held for a reviewer ("held": a risk the rule does not accept, a high flag).
Step = Literal["rules", "default", "constraint", "held"]

# Where a category's evidence came from, as a reader names it.
_SOURCES: dict[Evidence, str] = {
    "name": "name",
    "parameters": "parameters",
    "description": "description",
    "annotations": "annotations",
    "defaults": "missing annotations (the MCP defaults)",
}


@dataclass(frozen=True)
class AppliedRule:
    """A rule that applied to the call, and why, in words."""

    name: str
    action: Action
    because: tuple[str, ...]
    decides: bool
    # Whether it holds path arguments to the server's roots (paths_within_roots).
    checks_roots: bool
    # The risk categories it knowingly accepts (an allow rule's ``accepts``).
    accepts: tuple[str, ...]


@dataclass(frozen=True)
class PassedOver:
    """A rule that did not apply although it names the capability or a category the engine
    rated it in, and why not."""

    name: str
    action: Action
    why: str


@dataclass(frozen=True)
class RuleTrace:
    applied: tuple[AppliedRule, ...]
    passed_over: tuple[PassedOver, ...]
    step: Step


def trace_rules(
    rules: Sequence[Rule], key: str, risk: Risk, applied: Sequence[Rule], deciding: Rule | None, step: Step
) -> RuleTrace:
    """The rules of a policy as one evaluation of ``key`` used them.

    Args:
        rules: the policy's rules, in its order.
        key: the capability key, ``server__name``.
        risk: the engine's rating of the capability.
        applied: the rules that applied (the engine's ``_applicable_rules``).
        deciding: the rule the decision names; None when the default decided.
        step: how the decision came about.
    """
    identified = risk.identified()
    return RuleTrace(
        applied=tuple(
            AppliedRule(
                name=rule.name,
                action=rule.action,
                because=_because(rule, key, risk, identified),
                decides=rule is deciding,
                checks_roots=rule.constraints.paths_within_roots,
                accepts=tuple(rule.accepts),
            )
            for rule in applied
        ),
        passed_over=tuple(
            PassedOver(rule.name, rule.action, why)
            for rule in rules
            if not any(rule is used for used in applied)
            for why in [_why_not(rule, key, risk, identified)]
            if why is not None
        ),
        step=step,
    )


def _because(rule: Rule, key: str, risk: Risk, identified: set[Category]) -> tuple[str, ...]:
    reasons = []
    globs = [glob for glob in rule.match if key_matches(key, [glob])]
    if globs:
        reasons.append(f"{key} fits its match {', '.join(repr(glob) for glob in globs)}")
    for category in [c for c in rule.categories if c in identified]:
        reasons.append(
            f"the engine puts it in {category}, one of its categories, by its {_by(risk, category, True)}"
        )
    if rule.risk == "low":
        reasons.append("the engine rates it a low-risk read")
    if rule.read_only_hint is not None:
        reasons.append(f"its read-only mark is {rule.read_only_hint} (read_only_hint)")
    return tuple(reasons)


def _why_not(rule: Rule, key: str, risk: Risk, identified: set[Category]) -> str | None:
    """Why a rule that names the capability, or a category it was rated in, did not apply;
    None for one a reader has no reason to expect (it names neither)."""
    named = key_matches(key, rule.match) or bool(identified & set(rule.categories))
    if named and key_matches(key, rule.exclude):
        excluding = [glob for glob in rule.exclude if key_matches(key, [glob])]
        if any(normalise_glob(glob) == normalise_key(key) for glob in excluding):
            return f"its exclude names {key}"
        return f"its exclude covers {key} ({', '.join(repr(glob) for glob in excluding)})"
    if named:
        return None  # limited to low risk or to a read-only mark this call does not have
    rated = [c for c in rule.categories if c in risk.categories]
    if not rated:
        return None
    category = rated[0]
    sources = _by(risk, category, False)
    # The defaults' reason only repeats where it came from; a server's words say which.
    found = "" if sources == _SOURCES["defaults"] else f" ({risk.why.get(category, '')})"
    return (
        f"the engine rates it {category} by its {sources} alone{found}; a rule's categories take a"
        " capability by its name or parameters only, so that counts as a risk an allow rule must"
        " accept, not as this rule's category"
    )


def _by(risk: Risk, category: Category, naming: bool) -> str:
    """Where the engine found ``category``: the name and parameters (``naming``), else the rest."""
    sources = sorted(risk.evidence.get(category, set()), key=list(_SOURCES).index)
    wanted = [s for s in sources if (s in {"name", "parameters"}) == naming]
    return " and ".join(_SOURCES[s] for s in wanted)
