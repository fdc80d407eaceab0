"""What the policy never lets a remembered approval cover: what it refuses, what it marks
ungrantable (payments and destructive calls by default), a value nobody stated, a secret for a
server nobody trusts, a call that needs several approvals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from policies.engine import PolicyEngine
from policies.loader import load_policy
from tests.policies.test_engine import ACTS, STRING, engine, policy, rule, tool

SHIPPED = Path(__file__).resolve().parents[2] / "policies" / "default.toml"
SEND = tool("send_email", server="email", properties={"to": STRING, "body": STRING}, annotations=ACTS)
NOTE = {"to": "bob@example.com", "body": "hi"}


def _shipped() -> PolicyEngine:
    return PolicyEngine(load_policy(SHIPPED, variables={"GATEHOUSE_DATA": "/tmp/gatehouse-data"}))


def _problem(
    policy_engine: PolicyEngine, capability: Any, arguments: dict[str, Any], **kw: Any
) -> str | None:
    decision = policy_engine.evaluate(capability, arguments, **kw).decision
    return policy_engine.grant_problem(capability.key, decision)


def test_a_reviewed_message_to_a_trusted_server_may_be_remembered() -> None:
    assert _problem(_shipped(), SEND, NOTE) is None


def test_what_the_policy_refuses_is_never_grantable() -> None:
    refusing = engine(rules=[rule("no mail", ["email__send_*"], "deny")])
    assert "refuses" in (_problem(refusing, SEND, NOTE) or "")


def test_payments_and_destructive_calls_are_ungrantable_under_the_shipped_policy() -> None:
    pay = tool("pay_invoice", server="billing", properties={"amount": {"type": "number"}}, annotations=ACTS)
    wipe = tool(
        "purge_records",
        server="records",
        properties={"table": STRING},
        annotations={"read_only_hint": False, "destructive_hint": True, "open_world_hint": False},
    )
    assert "financial action" in (_problem(_shipped(), pay, {"amount": 5}) or "")
    assert "destructive" in (_problem(_shipped(), wipe, {"table": "t"}) or "")


def test_a_payment_is_ungrantable_even_where_one_approval_suffices() -> None:
    pay = tool("pay_invoice", server="billing", properties={"amount": {"type": "number"}}, annotations=ACTS)
    one_approval = engine(rules=[rule("payments", ["*__pay*"], "review", category="financial action")])
    assert "financial action" in (_problem(one_approval, pay, {"amount": 5}) or "")


def test_a_policy_names_its_own_ungrantable_capabilities_and_rules() -> None:
    by_key = engine(rules=[rule("mail", ["email__*"], "review")], grants={"ungrantable": ["email__send*"]})
    by_rule = engine(rules=[rule("mail", ["email__*"], "review", grantable=False)])
    off = engine(rules=[rule("mail", ["email__*"], "review")], grants={"enabled": False})
    assert "ungrantable" in (_problem(by_key, SEND, NOTE) or "")
    assert "grantable = false" in (_problem(by_rule, SEND, NOTE) or "")
    assert "off" in (_problem(off, SEND, NOTE) or "")


def test_a_value_nobody_stated_is_never_covered() -> None:
    problem = _problem(_shipped(), SEND, NOTE, derived={"to": "my colleague"})
    assert problem is not None and "not what the operator stated" in problem


def test_a_secret_bound_for_an_untrusted_server_is_never_covered() -> None:
    untrusted = tool(
        "send_email", server="elsewhere", properties={"to": STRING, "body": STRING}, annotations=ACTS
    )
    token = {"to": "bob@example.com", "body": "ghp_" + "a1B2" * 9}
    problem = _problem(_shipped(), untrusted, token)
    assert problem is not None and "secret" in problem


def test_a_call_that_needs_two_approvals_is_never_covered() -> None:
    two = engine(rules=[rule("mail", ["email__*"], "review", review={"required_approvals": 2})])
    assert "2 approvals" in (_problem(two, SEND, NOTE) or "")


def test_the_ungrantable_defaults_are_payments_and_destructive_calls() -> None:
    assert policy().grants.ungrantable_categories == ["financial action", "destructive"]
