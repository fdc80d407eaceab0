"""Which capabilities the policy refuses whatever a call's arguments (what Gatehouse's MCP
endpoint leaves out of a caller's lists, gatehouse/gateway/visibility.py): a deny rule that
applies to the capability as defined, or a default of deny no rule overrides. A capability
whose verdict some arguments can change stays usable: a constraint that refuses only some
values, a deny limited to low-risk calls, a low-risk allow under a default of deny. Each
answer agrees with evaluate on real calls."""

from __future__ import annotations

from typing import Any

from policies.engine import PolicyEngine
from tests.policies.test_engine import LOW_RISK_READS, READ_ONLY, STRING, engine, rule, tool

SEND = tool("send_note", properties={"to": STRING, "body": STRING})
READ = tool("read_note", properties={"path": STRING}, annotations=READ_ONLY)


def actions(policy_engine: PolicyEngine, capability: Any, *calls: dict[str, Any]) -> set[str]:
    return {policy_engine.evaluate(capability, arguments).decision.action for arguments in calls}


def test_a_deny_rule_for_the_capability_refuses_it_whatever_the_arguments() -> None:
    policy_engine = engine(rules=[LOW_RISK_READS, rule("no notes", ["srv__send_*"], "deny")])

    assert policy_engine.refuses_whatever_the_arguments(SEND) == "no notes"
    assert actions(policy_engine, SEND, {}, {"to": "a@example.com", "body": "hi"}, {"to": 3}) == {"deny"}


def test_a_default_of_deny_no_rule_overrides_is_named_default() -> None:
    policy_engine = engine(defaults={"action": "deny"})

    assert policy_engine.refuses_whatever_the_arguments(SEND) == "default"


def test_a_review_rule_or_a_default_of_review_leaves_the_capability_usable() -> None:
    assert (
        engine(rules=[rule("notes", ["srv__send_*"], "review")]).refuses_whatever_the_arguments(SEND) is None
    )
    assert engine().refuses_whatever_the_arguments(SEND) is None


def test_a_constraint_that_refuses_only_some_values_leaves_it_usable() -> None:
    bounded = rule("notes", ["srv__send_*"], "review", constraints={"recipient_domains": ["example.com"]})
    policy_engine = engine(rules=[bounded])

    assert policy_engine.refuses_whatever_the_arguments(SEND) is None
    assert actions(
        policy_engine, SEND, {"to": "a@example.com", "body": "hi"}, {"to": "a@evil.test", "body": "x"}
    ) == {
        "review",
        "deny",
    }


def test_a_low_risk_allow_under_a_default_of_deny_leaves_a_read_usable() -> None:
    policy_engine = engine(defaults={"action": "deny"}, rules=[LOW_RISK_READS])

    assert policy_engine.refuses_whatever_the_arguments(READ) is None
    # Flagged arguments lose the low-risk rule, and the default refuses them; clean ones are allowed.
    assert actions(policy_engine, READ, {"path": "notes.md"}, {"path": 3}) == {"allow", "deny"}
    # A tool that acts is never low risk: under the same policy, nothing can allow it.
    assert policy_engine.refuses_whatever_the_arguments(SEND) == "default"


def test_a_deny_limited_to_low_risk_calls_leaves_a_read_usable() -> None:
    policy_engine = engine(rules=[rule("quiet reads", ["*"], "deny", risk="low")])

    assert policy_engine.refuses_whatever_the_arguments(READ) is None
    assert actions(policy_engine, READ, {"path": "notes.md"}, {"path": 3}) == {"deny", "review"}


def test_the_standing_refusal_names_the_rule_and_the_explanation_a_refused_call_is_told() -> None:
    for policy_engine in (
        engine(rules=[LOW_RISK_READS, rule("no notes", ["srv__send_*"], "deny")]),
        engine(defaults={"action": "deny"}),
    ):
        refusal = policy_engine.standing_refusal(SEND)
        decision = policy_engine.evaluate(SEND, {"to": "a@example.com", "body": "hi"}).decision

        assert refusal is not None
        assert (refusal.rule, refusal.explanation) == (decision.rule, decision.explanation)
    assert engine().standing_refusal(SEND) is None
