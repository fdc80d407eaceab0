"""The policy engine: rules from the policy file, the engine's own risk rating, argument
constraints, injection hygiene and pinned definitions, combined into one decision.

Order of precedence: deny > review > allow among the rules that match; anything no rule
covers gets the policy's default. An allow never survives a risk the rule did not knowingly
accept, a suspicious description, or a definition that changed since it was pinned: those
go to a reviewer. Nothing a server says can turn a review into an allow.
"""

from __future__ import annotations

import fnmatch
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from policies.constraints import DeclaredRoots, Roots, constraint_flags, schema_flags, started_on_roots
from policies.decision import Action, Evaluation, Flag, PolicyDecision, ReviewTerms, StandingRefusal
from policies.injection import hidden_character_reasons, suspicious_reasons
from policies.names import key_matches, normalise_glob, normalise_key
from policies.output import OutputRules
from policies.pins import MemoryPinStore, Pin, PinStore, changed_fields, definition_of
from policies.provenance import HOLDING, derived_flags, secret_flags
from policies.risk import Risk, rate, unbounded_amount_flags
from policies.rule_trace import RuleTrace, Step, trace_rules
from policies.secrets import SecretRedactor

if TYPE_CHECKING:
    from mcp_host.manifest import Capability
    from policies.model import Category, EffectDeclaration, PolicyFile, Role, Rule

_RANK: dict[Action, int] = {"allow": 0, "review": 1, "deny": 2}
_log = logging.getLogger(__name__)

# Given the version this engine runs on, the newer current one (its number and the policy),
# or None when there is none newer (policies/live.py reads it from the database).
PolicyFeed = Callable[[int], "tuple[int, PolicyFile] | None"]
# How often an engine asks its feed at most: a change approved on one replica reaches the
# others within this (and the poll is one indexed read).
FOLLOW_EVERY_SECONDS = 2.0
_SUSPICIOUS = "suspicious_text"


def _schema_texts(schema: Any, where: str) -> list[tuple[str, str]]:
    """Every string inside a JSON schema (descriptions, titles, enums, $defs, nested parts)."""
    if isinstance(schema, str):
        return [(where, schema)]
    if isinstance(schema, dict):
        return [text for key, value in schema.items() for text in _schema_texts(value, f"{where}.{key}")]
    if isinstance(schema, list):
        return [
            text for index, value in enumerate(schema) for text in _schema_texts(value, f"{where}[{index}]")
        ]
    return []


def server_texts(capability: Capability) -> list[tuple[str, str]]:
    """Every piece of text the server wrote about a capability, with where it came from (what the
    engine scans for injection; the language-model planner withholds a flagged one from the model)."""
    texts = [("description", capability.description), ("title", capability.title or "")]
    texts += _schema_texts(capability.input_schema, "input schema")
    texts += _schema_texts(capability.output_schema, "output schema")
    texts += _schema_texts(capability.annotations, "annotations")
    return [(where, text) for where, text in texts if text.strip()]


_FINDINGS_CACHED = 4096


class _PinCheck(NamedTuple):
    flags: list[Flag]
    # The pinned definition, when the one offered now differs from it.
    previous: dict[str, Any] | None
    to_record: dict[str, Pin]


@dataclass(frozen=True)
class _Loaded:
    """One version of the policy and what the engine derives from it, swapped as one."""

    policy: PolicyFile
    version: int | None
    output: OutputRules
    secrets: SecretRedactor


def _loaded(policy: PolicyFile, version: int | None) -> _Loaded:
    return _Loaded(policy, version, OutputRules(policy.output), SecretRedactor(policy.audit.redact_arguments))


@dataclass
class _Verdict:
    """The action so far, the rule it comes from (None: the default) and why: what the steps
    of ``evaluate`` refine in turn."""

    action: Action
    deciding: Rule | None
    explanation: str
    # Which step set the action (rule_trace.Step): what `policy explain` tells a reader.
    step: Step = "rules"


class _Evaluated(NamedTuple):
    """One evaluation and what led to it: the rating, the rules that applied, the verdict."""

    evaluation: Evaluation
    risk: Risk
    applied: list[Rule]
    verdict: _Verdict


def _risk_flags(capability: Capability, risk: Risk) -> list[Flag]:
    """The engine's own rating, shown to reviewers as flags of their own (not "blocking": an
    allow rule may knowingly accept a category)."""
    return [
        Flag(code=c.replace(" ", "_"), severity="high", message=f"{capability.key}: {c} ({reason})")
        for c, reason in risk.explained()
    ]


class PolicyEngine:
    """The host's policy, applied: decisions on calls, pins of definitions, the roster."""

    def __init__(
        self, policy: PolicyFile, *, pins: PinStore | None = None, declared_roots: DeclaredRoots | None = None
    ) -> None:
        """``declared_roots``: the roots servers declare in the servers file, which confine
        their path arguments unless the policy names roots for them itself (roots_for)."""
        self._loaded = _loaded(policy, None)
        self.pins: PinStore = pins if pins is not None else MemoryPinStore()
        self.declared_roots = declared_roots or DeclaredRoots()
        # What the engine reads from a definition (its risk, suspicious text) depends on the
        # definition alone: computed once per fingerprint, not on every request.
        self._definition_findings: dict[tuple[str, str, bool], tuple[Risk, list[Flag]]] = {}
        self._feed: PolicyFeed | None = None
        self._follow_every = FOLLOW_EVERY_SECONDS
        self._monotonic: Callable[[], float] = time.monotonic
        self._next_check = 0.0
        self._checking = threading.Lock()
        self._listeners: list[Callable[[PolicyFile], None]] = []

    # -- which version -----------------------------------------------------------------------

    @property
    def policy(self) -> PolicyFile:
        """The policy in force: the newest version the feed has, asked at most every few
        seconds (follow). A method reading several parts reads them from one ``policy``."""
        self._check_feed()
        return self._loaded.policy

    @property
    def version(self) -> int | None:
        """The number of the version in force (policies/versions.py); None: a file alone."""
        return self._loaded.version

    def follow(
        self,
        feed: PolicyFeed,
        *,
        version: int,
        every_seconds: float = FOLLOW_EVERY_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """Run on version ``version`` of the policy from now on, and on each newer one
        ``feed`` has, asking it at most every ``every_seconds``."""
        self._loaded = _loaded(self._loaded.policy, version)
        self._feed = feed
        self._follow_every = every_seconds
        self._monotonic = monotonic
        self._next_check = monotonic() + every_seconds

    def when_changed(self, listener: Callable[[PolicyFile], None]) -> None:
        """Call ``listener`` with each newer version this engine adopts."""
        self._listeners.append(listener)

    def refresh(self) -> bool:
        """Ask the feed now (after this process applied a change itself). True: adopted one."""
        if self._feed is None:
            return False
        with self._checking:
            self._next_check = self._monotonic() + self._follow_every
            try:
                newer = self._feed(self._loaded.version or 0)
            except Exception:  # noqa: BLE001 - a database gone for a moment must not stop every decision
                _log.warning("could not check for a newer policy version", exc_info=True)
                return False
            if newer is None:
                return False
            self.adopt(newer[1], newer[0])
            return True

    def adopt(self, policy: PolicyFile, version: int | None) -> None:
        self._loaded = _loaded(policy, version)
        self._definition_findings.clear()
        for listener in self._listeners:
            listener(policy)

    def _check_feed(self) -> None:
        if self._feed is not None and self._monotonic() >= self._next_check and not self._checking.locked():
            self.refresh()

    @property
    def output(self) -> OutputRules:
        """What the agent may read of a result ([output]: readable types, the size kept)."""
        self._check_feed()
        return self._loaded.output

    # -- the parts ---------------------------------------------------------------------------

    def matching_rules(
        self, key: str, categories: set[Category] | frozenset[Category] = frozenset()
    ) -> list[Rule]:
        """Rules whose globs match the key (in one spelling: case, camelCase, kebab and snake
        alike) or whose categories the engine found in the capability's name or parameters,
        unless one of their ``exclude`` globs matches the key.

        Args:
            key: the capability key, ``server__name``.
            categories: the risk categories the engine identified in the capability.

        Returns:
            The matching rules, in the policy's order.
        """
        return [
            rule
            for rule in self.policy.rules
            if (key_matches(key, rule.match) or categories & set(rule.categories))
            and not key_matches(key, rule.exclude)
        ]

    def rules_for(self, capability: Capability) -> tuple[list[Rule], Risk]:
        """The rules that apply to a capability by its definition alone, and the engine's
        rating of it: those ``evaluate`` applies to a call of it whose arguments raise no flag
        of their own (a flag only drops the rules limited to low risk) and whose definition
        is the one pinned. What a replay of recorded calls (reviews/suggestions.py) needs.
        """
        risk, definition_flags = self._findings(capability, self.trusts(capability.server))
        return self._applicable_rules(capability, risk, risk.low and not definition_flags), risk

    def refuses_whatever_the_arguments(self, capability: Capability) -> str | None:
        """The rule that refuses every call of a capability, whatever its arguments (``default``
        when the policy's default does because no rule covers it), or None when some call of it
        may be allowed or go to a reviewer (standing_refusal, without the explanation)."""
        refusal = self.standing_refusal(capability)
        return refusal.rule if refusal is not None else None

    def standing_refusal(self, capability: Capability) -> StandingRefusal | None:
        """The rule that refuses every call of a capability, whatever its arguments, and its
        explanation (the default's when no rule covers it), or None when some call of it may be
        allowed or go to a reviewer.

        ``evaluate`` decides by the rules that apply (deny > review > allow, else the default);
        arguments change only which of them apply, through the low-risk rating (a rule with
        ``risk = "low"`` applies only to a call raising no flag), and constraints and holds only
        ever make a verdict stricter. So a capability is refused always when its rules refuse
        it both as a flagged call and, where its definition can be rated low at all, as an
        unflagged one. Who calls does not enter: no rule names a person or a role.
        """
        risk, definition_flags = self._findings(capability, self.trusts(capability.server))
        # A flag (a bad argument, a changed definition) can always be raised; no flag at all
        # only where the definition itself raises none.
        ratings = [False, True] if risk.low and not definition_flags else [False]
        verdicts = [
            self._rule_verdict(capability, self._applicable_rules(capability, risk, low)) for low in ratings
        ]
        if any(verdict.action != "deny" for verdict in verdicts):
            return None
        deciding = verdicts[0].deciding
        # The verdict on a flagged call, which every capability can get: its rule and
        # explanation are what evaluate tells such a call.
        return StandingRefusal(
            rule=deciding.name if deciding is not None else "default", explanation=verdicts[0].explanation
        )

    def _findings(self, capability: Capability, trusted: bool) -> tuple[Risk, list[Flag]]:
        cache_key = (capability.key, capability.fingerprint, trusted)
        found = self._definition_findings.get(cache_key)
        if found is None:
            if len(self._definition_findings) >= _FINDINGS_CACHED:
                self._definition_findings.clear()  # a server churning definitions must not grow this forever
            found = (rate(capability, trusted=trusted), self._injection_flags(capability))
            self._definition_findings[cache_key] = found
        return found[0], list(found[1])

    def _injection_flags(self, capability: Capability) -> list[Flag]:
        # The name is matched against rules and read by people: what hides in it counts too.
        flags = [
            Flag(code=_SUSPICIOUS, severity="high", message=f"{capability.key} name: {reason}")
            for reason in hidden_character_reasons(capability.name)
        ]
        for where, text in server_texts(capability):
            for reason in suspicious_reasons(text):
                flags.append(
                    Flag(code=_SUSPICIOUS, severity="high", message=f"{capability.key} {where}: {reason}")
                )
        return flags

    def _pin_check(self, capability: Capability) -> _PinCheck:
        """Compare the definition with its pin; a first sight yields a pin to record, not a write."""
        pinned = self.pins.get(capability.key)
        current = definition_of(capability)
        if pinned is None:
            return _PinCheck(
                [], None, {capability.key: Pin(fingerprint=capability.fingerprint, definition=current)}
            )
        if pinned.fingerprint == capability.fingerprint:
            return _PinCheck([], None, {})
        fields = changed_fields(pinned.definition, current) or ["definition"]
        message = (
            f"{capability.key} changed since it was first seen ({', '.join(fields)}); old and new are shown"
        )
        flag = Flag(code="definition_changed", severity="critical", message=message)
        return _PinCheck([flag], pinned.definition, {})

    def roots_for(self, server: str) -> Roots:
        """The folders a server's path arguments must resolve inside. The policy's own roots
        for the server ([paths.servers]) win; then the roots its entry in the servers file
        declares; then the folders it is started on (constraints.started_on_roots); then the
        policy's [paths] roots.

        Args:
            server: the server's name.

        Returns:
            The folders, with where they come from (named in a violation's message).
        """
        # A server given no folder of its own can only read a relative path from where it runs.
        return replace(
            self._roots_for(server), working_folder=self.declared_roots.working_folders.get(server)
        )

    def _roots_for(self, server: str) -> Roots:
        paths = self.policy.paths
        if server in paths.servers:
            return Roots(
                tuple(paths.servers[server]), f"the policy's roots for server '{server}' ([paths.servers])"
            )
        declared = self.declared_roots.servers.get(server)
        if declared:
            return Roots(
                tuple(declared), f"the roots declared for server '{server}' in {self.declared_roots.source}"
            )
        started_on = self.declared_roots.started_on.get(server)
        if started_on:
            return started_on_roots(server, started_on, paths.roots)
        return Roots(tuple(paths.roots), "the policy's [paths] roots", catch_all=True)

    def _review_terms(self, rule: Rule | None, category: str | None) -> ReviewTerms:
        policy = self.policy
        defaults = policy.defaults
        overrides = rule.review if rule is not None else None
        roles = (
            overrides.reviewer_roles if overrides and overrides.reviewer_roles is not None else None
        ) or list(defaults.reviewer_roles)
        if policy.roles:
            # A role reviews a category only if the roster says so ("*" for every category).
            wanted = category or "uncategorised"
            roles = [r for r in roles if r in policy.roles and {"*", wanted} & set(policy.roles[r].review)]
        return ReviewTerms(
            expiry_minutes=(overrides.expiry_minutes if overrides else None) or defaults.expiry_minutes,
            required_approvals=(overrides.required_approvals if overrides else None)
            or defaults.required_approvals,
            four_eyes=defaults.four_eyes
            if overrides is None or overrides.four_eyes is None
            else overrides.four_eyes,
            reviewer_roles=roles,
        )

    def _output_expectation(self, capability: Capability) -> str:
        if capability.type in {"resource", "resource_template"}:
            return "readable" if self.output.readable(capability.mime_type) else "opaque"
        return "structured" if capability.output_schema else "text"

    # -- the decision ------------------------------------------------------------------------

    def evaluate(
        self, capability: Capability, arguments: dict[str, Any], *, derived: Mapping[str, str] | None = None
    ) -> Evaluation:
        """Decide whether a call may run, needs a reviewer, or is refused. Stores nothing.

        Args:
            capability: the definition as its server offers it now.
            arguments: the arguments the call would be made with.
            derived: the arguments the operator did not state (a planner derived them), each
                with the words it was derived from: never allowed unreviewed
                (policies/provenance.py).

        Returns:
            The decision (action, deciding rule, flags, review terms) and the pins a caller
            that records first sight passes to ``record_pins``: this definition's, when no pin
            is held for it yet.
        """
        return self._evaluate(capability, arguments, derived).evaluation

    def evaluate_traced(
        self, capability: Capability, arguments: dict[str, Any], *, derived: Mapping[str, str] | None = None
    ) -> tuple[Evaluation, RuleTrace]:
        """``evaluate``, and the rules that applied, those that did not although they name the
        capability or a category it was rated in, and the step that decided (`policy explain`).
        The evaluation is the very one ``evaluate`` returns."""
        evaluated = self._evaluate(capability, arguments, derived)
        verdict = evaluated.verdict
        # The rules of the version that decided (a newer one may be adopted on the next read).
        trace = trace_rules(
            self._loaded.policy.rules,
            capability.key,
            evaluated.risk,
            evaluated.applied,
            verdict.deciding,
            verdict.step,
        )
        return evaluated.evaluation, trace

    def _evaluate(
        self, capability: Capability, arguments: dict[str, Any], derived: Mapping[str, str] | None
    ) -> _Evaluated:
        trusted = self.trusts(capability.server)
        risk, definition_flags = self._findings(capability, trusted)
        pin = self._pin_check(capability)
        argument_flags = schema_flags(capability, arguments)
        provenance_flags = [
            *derived_flags(capability, derived or {}, self._loaded.secrets),
            *secret_flags(capability, arguments, self._loaded.secrets, trusted=trusted),
        ]
        flags: list[Flag] = [*risk.flags, *definition_flags, *pin.flags, *argument_flags, *provenance_flags]
        low = risk.low and not flags
        matched = self._applicable_rules(capability, risk, low)
        flags += unbounded_amount_flags(capability, risk, matched)
        verdict = self._rule_verdict(capability, matched)
        flags += self._apply_constraints(verdict, matched, arguments, self.roots_for(capability.server))
        category = (verdict.deciding.category if verdict.deciding else None) or (
            risk.ordered()[0] if risk.categories else None
        )
        # After the constraints: their escalation may name the deciding rule whose accepted
        # risks count. A changed definition's flag is critical, so it is among the blocking.
        self._hold_what_nobody_accepted(verdict, risk, flags)
        decision = PolicyDecision(
            action=verdict.action,
            rule=verdict.deciding.name if verdict.deciding else "default",
            category=category,
            categories=list(risk.categories),
            explanation=verdict.explanation,
            flags=[*_risk_flags(capability, risk), *flags],
            args_valid=not argument_flags,
            output_expectation=self._output_expectation(capability),
            risk="low" if low else "elevated",
            reasons=risk.reasons,
            review=self._review_terms(verdict.deciding, category),
            previous_definition=pin.previous,
            policy_version=self.version,
        )
        return _Evaluated(Evaluation(decision=decision, pins_to_record=pin.to_record), risk, matched, verdict)

    def _applicable_rules(self, capability: Capability, risk: Risk, low: bool) -> list[Rule]:
        """The rules that match the capability; a rule limited to low risk only when it is, one
        limited to a read-only claim (read_only_hint) only when the claim was weighed so."""
        return [
            r
            for r in self.matching_rules(capability.key, risk.identified())
            if (r.risk is None or (r.risk == "low" and low))
            and (r.read_only_hint is None or r.read_only_hint == risk.read_only_hint)
        ]

    def _rule_verdict(self, capability: Capability, matched: list[Rule]) -> _Verdict:
        """Deny > review > allow among the matching rules; the policy's default without one."""
        if not matched:
            return _Verdict(
                self.policy.defaults.action,
                None,
                f"no rule covers {capability.key}: the default applies",
                "default",
            )
        deciding = max(matched, key=lambda r: _RANK[r.action])
        return _Verdict(deciding.action, deciding, deciding.explanation)

    @staticmethod
    def _apply_constraints(
        verdict: _Verdict, matched: list[Rule], arguments: dict[str, Any], roots: Roots
    ) -> list[Flag]:
        """Every matching rule's argument constraints; a violation escalates the verdict to the
        rule's ``on_violation`` when that is stricter. Returns the violations."""
        flags: list[Flag] = []
        for rule in matched:
            violations = constraint_flags(arguments, rule.constraints, roots)
            flags += violations
            escalated = rule.constraints.on_violation
            if violations and _RANK[escalated] > _RANK[verdict.action]:
                verdict.action, verdict.deciding, verdict.step = escalated, rule, "constraint"
                verdict.explanation = f"rule {rule.name}: {violations[0].message}"
        return flags

    @staticmethod
    def _hold_what_nobody_accepted(verdict: _Verdict, risk: Risk, flags: list[Flag]) -> None:
        """Whether a rule or the default allowed it, a risk the deciding rule did not accept,
        or a high or critical flag, or a value nobody stated or a secret for an untrusted server
        (whatever its severity), sends an allowed call to review."""
        if verdict.action != "allow":
            return
        accepted = verdict.deciding.accepts if verdict.deciding is not None else []
        unaccepted = [c for c in risk.categories if c not in accepted]
        blocking = [f for f in flags if f.severity in {"high", "critical"} or f.code in HOLDING]
        if unaccepted or blocking:
            why = blocking[0].message if blocking else f"the engine rates it {', '.join(unaccepted)}"
            allowed_by = f"rule {verdict.deciding.name}" if verdict.deciding is not None else "the default"
            verdict.action, verdict.explanation = "review", f"{allowed_by} allows it, but {why}"
            verdict.step = "held"

    def grant_problem(self, key: str, decision: PolicyDecision) -> str | None:
        """Why no remembered approval (reviews/grants.py) may cover a call this policy decided
        so, or None when one may: grants are off, the rules refuse it, its category or key is
        ungrantable ([grants]), its deciding rule says ``grantable = false``, it needs more than
        one approval, or it carries a value nobody stated, a secret for an untrusted server, or
        a definition that changed.

        Args:
            key: the capability key, ``server__name``.
            decision: the policy's decision on the call (evaluate).
        """
        policy = self.policy
        grants = policy.grants
        if not grants.enabled:
            return "the policy turns remembered approvals off ([grants] enabled = false)"
        if decision.action == "deny":
            return f"the policy refuses it (rule {decision.rule})"
        ungrantable = [
            c for c in [decision.category, *decision.categories] if c in grants.ungrantable_categories
        ]
        if ungrantable:
            return f"it is {ungrantable[0]}, which no grant covers ([grants] ungrantable_categories)"
        name = normalise_key(key)
        if any(fnmatch.fnmatchcase(name, normalise_glob(glob)) for glob in grants.ungrantable):
            return f"{key} is ungrantable ([grants] ungrantable)"
        rule = next((r for r in policy.rules if r.name == decision.rule), None)
        if rule is not None and not rule.grantable:
            return f"rule {rule.name} says grantable = false"
        if decision.review.required_approvals > 1:
            return f"it needs {decision.review.required_approvals} approvals each time"
        held = [f for f in decision.flags if f.code in HOLDING or f.code == "definition_changed"]
        if held:
            return f"a reviewer must see it: {held[0].message}"
        return None

    def record_pins(self, pins: Mapping[str, Pin]) -> None:
        """Record definitions seen for the first time, as the caller acting on a real request
        does with its evaluation's ``pins_to_record``.

        A key pinned in the meantime (another replica saw it first, or a reviewer accepted a
        definition) keeps that pin: first sight is the first one recorded.

        Args:
            pins: capability key -> the pin to record.
        """
        for key, pin in pins.items():
            if self.pins.get(key) is None:
                self.pins.put(key, pin)

    def effect_of(self, key: str) -> EffectDeclaration | None:
        """How a capability's effect is previewed and read back (the policy's ``[[effects]]``,
        the first that matches ``key``); None when none is declared."""
        name = normalise_key(key)
        return next(
            (
                declared
                for declared in self.policy.effects
                if any(fnmatch.fnmatchcase(name, normalise_glob(glob)) for glob in declared.match)
            ),
            None,
        )

    def hide_secrets(self, value: Any, *, thread_id: str | None = None) -> Any:
        """A copy of a JSON-like value with its secrets hidden as the policy's ``[audit]
        redact_arguments`` and the built-in detector say (policies/secrets.py), for what leaves
        Gatehouse in telemetry."""
        return self._loaded.secrets.value(value, thread_id=thread_id)

    def scan_output(self, text: str) -> list[str]:
        """Why output text looks like an attempt to steer the agent.

        Args:
            text: text a server returned.

        Returns:
            One reason per suspicious passage; empty when there is none.
        """
        return suspicious_reasons(text)

    def accept(self, capability: Capability) -> None:
        """Pin this definition: a reviewer approved a call to it, so it is the one held from now.

        Writes the pin only when it differs from the one held (most approvals are of the
        definition already pinned: a read, no write).

        Args:
            capability: the definition the reviewer saw.
        """
        pin = Pin(fingerprint=capability.fingerprint, definition=definition_of(capability))
        if self.pins.get(capability.key) != pin:
            self.pins.put(capability.key, pin)

    # -- servers asking for a model completion -----------------------------------------------

    def sampling_limit(self, server: str) -> int:
        """How many requests for a model completion ``server`` may make in a minute.

        Args:
            server: the server's name.

        Returns:
            Its own limit ([sampling.servers]), else the policy's ``requests_per_minute``.
        """
        sampling = self.policy.sampling
        return sampling.servers.get(server, sampling.requests_per_minute)

    def sampling_terms(self) -> ReviewTerms:
        """How a server's request for a completion is reviewed: one approval from a role that
        reviews sampling, within the wait the server's call is given, and four-eyes as the
        defaults have it: the person whose request's call caused it may not decide it.

        Returns:
            The terms every such review gets.
        """
        policy = self.policy
        sampling = policy.sampling
        roles = [
            role
            for role in sampling.reviewer_roles or policy.defaults.reviewer_roles
            if not policy.roles
            or (role in policy.roles and {"*", "sampling"} & set(policy.roles[role].review))
        ]
        return ReviewTerms(
            expiry_minutes=sampling.wait_minutes,
            required_approvals=1,
            four_eyes=policy.defaults.four_eyes,
            reviewer_roles=roles,
        )

    # -- callers of the MCP endpoint ---------------------------------------------------------

    def gateway_rate_limit(self, user: str) -> int:
        """How many requests ``user`` may make to the MCP endpoint (`gatehouse serve`) in a minute.

        Args:
            user: the caller's roster name.

        Returns:
            Their role's own limit ([gateway.roles]), else the policy's ``requests_per_minute``
            (someone off the roster too: what they may do is refused later, with its reason).
        """
        policy = self.policy
        role = policy.users.get(user)
        gateway = policy.gateway
        return gateway.roles.get(role, gateway.requests_per_minute) if role else gateway.requests_per_minute

    # -- the roster --------------------------------------------------------------------------

    def trusts(self, server: str) -> bool:
        """Whether the policy trusts a server: its annotations may lower risk and its change
        notifications are relied on.

        Args:
            server: the server's name.
        """
        return server in self.policy.servers.trusted

    def role_of(self, user: str) -> str | None:
        """The user's role in the policy's roster ([users]); None for someone not in it."""
        return self.policy.users.get(user)

    def role(self, user: str) -> Role | None:
        """What the user's role allows; None for someone not in the roster."""
        policy = self.policy
        name = policy.users.get(user)
        return policy.roles[name] if name is not None else None

    def may_request(self, user: str) -> bool:
        """Whether the user's role may ask for calls; False for someone not in the roster."""
        role = self.role(user)
        return role is not None and role.request

    def refusal_to_request(self, user: str) -> str | None:
        """Why ``user`` may not ask for calls (naming the roster, so the caller sees who may),
        or None when they may: the one wording the chat, the CLI and the gateway all give."""
        if self.may_request(user):
            return None
        roster = ", ".join(sorted(self.policy.users)) or "nobody"
        return f"{user!r} may not make requests under this policy; its roster: {roster}"

    def may_take_over(self, user: str) -> bool:
        """Whether this person may continue (or withdraw) a thread somebody else started;
        False for someone not in the roster."""
        role = self.role(user)
        return role is not None and role.take_over_threads

    def may_manage_policy(self, user: str) -> bool:
        """Whether this person may propose and approve changes to the policy."""
        role = self.role(user)
        return role is not None and role.manage_policy
