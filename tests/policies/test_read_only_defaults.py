"""What the shipped policy does with a tool by what its server says about reading
(readOnlyHint), and that it says so by a named rule an admin can read and change in
policies/default.toml, never "no rule covers it"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gatehouse.display.policy_report import explain, policy_summary, render_explanation, render_summary
from mcp_host.manifest import Capability, Manifest, ServerManifest
from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY, load_policy, parse_policy, parse_policy_text, read_policy_text

READ_ONLY = {"read_only_hint": True}
UNTRUSTED = "warehouse"  # a team's own database server: not in the shipped [servers] trusted
TRUSTED = "filesystem"


def tool(name: str, *, server: str = UNTRUSTED, annotations: dict[str, Any] | None = None) -> Capability:
    return Capability(
        key=f"{server}__{name}",
        server=server,
        type="tool",
        name=name,
        description="Tables of the warehouse database.",
        input_schema={"type": "object", "properties": {"schema": {"type": "string"}}},
        annotations=annotations or {},
    )


@pytest.fixture(scope="module")
def shipped() -> PolicyEngine:
    return PolicyEngine(load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": "/srv/gatehouse"}))


@pytest.mark.parametrize("name", ["tables", "schema_overview"])
def test_a_tool_an_untrusted_server_marks_read_only_is_reviewed_by_the_named_rule_saying_why(
    shipped: PolicyEngine, name: str
) -> None:
    decision = shipped.evaluate(tool(name, annotations=READ_ONLY), {}).decision

    assert decision.action == "review"
    assert decision.rule == "untrusted read-only"
    assert "no rule covers" not in decision.explanation
    unconfirmed = [flag for flag in decision.flags if flag.code == "read_only_unconfirmed"]
    assert [flag.message for flag in unconfirmed] == [
        f"{UNTRUSTED}__{name}: its server marks it read-only, but the policy does not trust"
        f" '{UNTRUSTED}' ([servers] trusted) and its name says no read (list, get, search, ...)"
    ]


def test_a_tool_a_trusted_server_marks_read_only_is_allowed(shipped: PolicyEngine) -> None:
    decision = shipped.evaluate(tool("tables", server=TRUSTED, annotations=READ_ONLY), {}).decision

    assert decision.action == "allow"
    assert decision.rule == "low-risk reads"


def test_a_read_verb_and_a_read_only_mark_together_are_still_a_read_from_any_server(
    shipped: PolicyEngine,
) -> None:
    decision = shipped.evaluate(tool("list_tables", annotations=READ_ONLY), {}).decision

    assert decision.action == "allow"
    assert decision.rule == "low-risk reads"
    assert decision.flags == []


@pytest.mark.parametrize("server", [UNTRUSTED, TRUSTED])
def test_an_unannotated_tool_is_reviewed_by_the_named_rule_saying_why(
    shipped: PolicyEngine, server: str
) -> None:
    decision = shipped.evaluate(tool("list_tables", server=server), {}).decision

    assert decision.action == "review"
    assert decision.rule == "unannotated tools"
    assert "no rule covers" not in decision.explanation
    assert "does not say whether it only reads" in decision.explanation
    assert any("(the MCP default)" in flag.message for flag in decision.flags)


def test_a_tool_with_a_writing_name_is_still_decided_by_the_rule_for_what_it_does(
    shipped: PolicyEngine,
) -> None:
    unannotated = shipped.evaluate(tool("delete_table"), {}).decision
    claimed = shipped.evaluate(tool("delete_table", annotations=READ_ONLY), {}).decision

    assert (unannotated.action, unannotated.rule) == ("review", "record updates")
    assert (claimed.action, claimed.rule) == ("review", "record updates")


def test_an_admin_who_allows_the_untrusted_read_only_rule_gets_those_tools_run(tmp_path: Path) -> None:
    text = DEFAULT_POLICY.read_text(encoding="utf-8")
    start = text.index('name = "untrusted read-only"')
    changed = text[:start] + text[start:].replace('action = "review"', 'action = "allow"', 1)
    policy_file = tmp_path / "policy.toml"
    policy_file.write_text(changed, encoding="utf-8")
    engine = PolicyEngine(load_policy(policy_file, variables={"GATEHOUSE_DATA": str(tmp_path)}))

    decision = engine.evaluate(tool("tables", annotations=READ_ONLY), {}).decision

    assert decision.action == "allow"
    assert decision.rule == "untrusted read-only"


def test_a_rule_for_tools_by_their_read_only_mark_names_a_known_mark() -> None:
    rule = {"name": "x", "match": ["*"], "action": "review", "explanation": "e", "read_only_hint": "maybe"}

    with pytest.raises(Exception, match="read_only_hint"):
        parse_policy({"rules": [rule]}, source="p.toml", variables={})


def test_policy_explain_names_the_rule_and_says_why_in_plain_words(shipped: PolicyEngine) -> None:
    offered = [tool("tables", annotations=READ_ONLY), tool("row_count")]
    manifest = Manifest(servers=[ServerManifest(name=UNTRUSTED, ok=True, capabilities=offered)])

    claimed = render_explanation(explain(shipped, manifest, f"{UNTRUSTED}__tables", {}))
    unannotated = render_explanation(explain(shipped, manifest, f"{UNTRUSTED}__row_count", {}))

    assert claimed.startswith(f"REVIEW  {UNTRUSTED}__tables  (rule: untrusted read-only")
    assert "but only the server says so" in claimed
    assert "read_only_unconfirmed: " in claimed
    assert "risk:  elevated (only its server says it is read-only" in claimed
    assert unannotated.startswith(f"REVIEW  {UNTRUSTED}__row_count  (rule: unannotated tools")
    assert "does not say whether it only reads" in unannotated


def test_policy_check_lists_the_named_default_rules_with_the_marks_they_select() -> None:
    policy = load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": "/srv/gatehouse"})

    lines = render_summary(policy_summary(policy, "default.toml")).splitlines()

    assert "  review untrusted read-only: * (tools whose read-only mark is unconfirmed)" in lines
    assert "  review unannotated tools: * (tools whose read-only mark is absent)" in lines


def test_the_shipped_advice_for_running_unannotated_tools_unreviewed_is_the_way_that_works() -> None:
    text = read_policy_text(DEFAULT_POLICY)
    shipped_rule = text[text.index('name = "unannotated tools"') :]
    advice = shipped_rule[: shipped_rule.index("explanation =")]
    allow = (
        '\n[[rules]]\nname = "warehouse counts"\nmatch = ["warehouse__row_count"]\naction = "allow"\n'
        'accepts = ["destructive", "open world"]\nexplanation = "Our own database."\n'
    )
    excluded = text.replace(
        'read_only_hint = "absent"', 'read_only_hint = "absent"\nexclude = ["warehouse__row_count"]', 1
    )

    def decided(policy_text: str) -> tuple[str, str]:
        engine = PolicyEngine(
            parse_policy_text(policy_text, source="p.toml", variables={"GATEHOUSE_DATA": "/x"})
        )
        decision = engine.evaluate(tool("row_count"), {}).decision
        return decision.action, decision.rule

    # Rules combine strictest first, so the allow rule alone loses; with the exclude it decides.
    assert decided(text + allow) == ("review", "unannotated tools")
    assert decided(excluded + allow) == ("allow", "warehouse counts")
    # The comment says so: both the allow rule and this rule's exclude.
    assert "exclude" in advice and "accepts" in advice
