"""`policy explain` on a team's own servers under the shipped policy (a user-tester's first
hour): every rule that applied and why the deciding one won, how to let an allow rule that lost
decide, whether the roots it shows confine the call at all, and why a rule for a category the
engine rated did not apply. Explaining never changes a decision."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gatehouse.display.policy_report import explain, render_explanation
from gatehouse.wiring import declared_roots
from mcp_host.config import parse_servers_config
from mcp_host.manifest import Capability, Manifest, ServerManifest
from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY, parse_policy_text, read_policy_text

SHOP = "shop-db"  # mcp-server-sqlite: unannotated tools, an untrusted server
FILES = "team-files"  # server-filesystem started on the team's folder

# The team's allow rule for its own database's reads, written by name.
SHOP_READS = """
[[rules]]
name = "shop reads"
match = ["shop-db__list_tables", "shop-db__read_query"]
action = "allow"
accepts = ["destructive", "open world", "runs commands"]
explanation = "Our own SQLite shop database: listing and SELECTs are fine."
"""


def sqlite(name: str, description: str, properties: dict[str, Any]) -> Capability:
    return Capability(
        key=f"{SHOP}__{name}",
        server=SHOP,
        type="tool",
        name=name,
        description=description,
        input_schema={"type": "object", "properties": properties},
    )


LIST_TABLES = sqlite("list_tables", "List all tables in the SQLite database", {})
READ_QUERY = sqlite(
    "read_query", "Execute a SELECT query on the SQLite database", {"query": {"type": "string"}}
)
READ_TEXT_FILE = Capability(
    key=f"{FILES}__read_text_file",
    server=FILES,
    type="tool",
    name="read_text_file",
    description="Read the complete contents of a file from the file system as text.",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
    annotations={"readOnlyHint": True},
)
WRITE_FILE = Capability(
    key=f"{FILES}__write_file",
    server=FILES,
    type="tool",
    name="write_file",
    description="Create a new file or completely overwrite an existing file with new content.",
    input_schema={
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    },
    annotations={"readOnlyHint": False, "destructiveHint": True},
)


def _engine(tmp_path: Path, extra_rules: str = "", *, trusted_files: bool = True) -> PolicyEngine:
    text = read_policy_text(DEFAULT_POLICY) + extra_rules
    if trusted_files:
        text = text.replace('trusted = ["filesystem",', f'trusted = ["{FILES}", "filesystem",', 1)
    policy = parse_policy_text(text, source="team.toml", variables={"GATEHOUSE_DATA": str(tmp_path / "data")})
    shared = tmp_path / "shared"
    shared.mkdir(exist_ok=True)
    entries = {
        FILES: {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", str(shared)]},
        SHOP: {"command": "mcp-server-sqlite", "args": ["--db-path", str(tmp_path / "shop.db")]},
    }
    servers = parse_servers_config({"mcpServers": entries}, source="team.mcp.json", environ={})
    return PolicyEngine(policy, declared_roots=declared_roots(servers))


def _manifest() -> Manifest:
    by_server = {
        SHOP: [LIST_TABLES, READ_QUERY],
        FILES: [READ_TEXT_FILE, WRITE_FILE],
    }
    return Manifest(
        servers=[ServerManifest(name=name, ok=True, capabilities=found) for name, found in by_server.items()]
    )


def _explained(engine: PolicyEngine, key: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    report = explain(engine, _manifest(), key, arguments or {})
    # What `--json` prints: the report must survive JSON as it is.
    shown: dict[str, Any] = json.loads(json.dumps(report))
    return shown


def test_an_allow_rule_that_lost_to_a_stricter_one_is_listed_with_how_to_let_it_decide(
    tmp_path: Path,
) -> None:
    engine = _engine(tmp_path, SHOP_READS)

    report = _explained(engine, "shop-db__list_tables")
    text = render_explanation(report)

    # The decision is the one evaluate makes: explaining it changes nothing.
    assert report["action"] == engine.evaluate(LIST_TABLES, {}).decision.action == "review"
    assert report["rule"] == "unannotated tools"
    applied = {rule["name"]: rule for rule in report["rules"]["applied"]}
    assert set(applied) == {"shop reads", "unannotated tools"}
    assert applied["shop reads"]["action"] == "allow" and not applied["shop reads"]["decides"]
    assert applied["unannotated tools"]["decides"]
    assert any("shop-db__list_tables" in because for because in applied["shop reads"]["because"])
    assert any("read-only mark" in because for because in applied["unannotated tools"]["because"])
    assert "deny > review > allow" in report["rules"]["why_this_rule"]
    assert "'shop reads'" in report["rules"]["why_this_rule"]
    assert report["rules"]["to_let_decide"] == [
        "to let 'shop reads' decide, add shop-db__list_tables to the exclude of 'unannotated tools'"
    ]
    assert "  allow  shop reads" in text
    assert (
        "to let 'shop reads' decide, add shop-db__list_tables to the exclude of 'unannotated tools'" in text
    )


def test_following_that_advice_lets_the_allow_rule_decide(tmp_path: Path) -> None:
    excluded = read_policy_text(DEFAULT_POLICY).replace(
        'read_only_hint = "absent"', 'read_only_hint = "absent"\nexclude = ["shop-db__list_tables"]', 1
    )
    policy = parse_policy_text(excluded + SHOP_READS, source="team.toml", variables={"GATEHOUSE_DATA": "/x"})

    report = explain(PolicyEngine(policy), _manifest(), "shop-db__list_tables", {})

    assert (report["action"], report["rule"]) == ("allow", "shop reads")
    assert report["rules"]["to_let_decide"] == []
    passed = {rule["name"]: rule["why"] for rule in report["rules"]["passed_over"]}
    assert "its exclude names shop-db__list_tables" in passed["unannotated tools"]


def test_an_allow_rule_that_would_still_be_held_says_which_risks_it_does_not_accept(tmp_path: Path) -> None:
    no_accepts = SHOP_READS.replace('accepts = ["destructive", "open world", "runs commands"]\n', "")

    report = _explained(_engine(tmp_path, no_accepts), "shop-db__read_query", {"query": "select 1"})

    [advice] = report["rules"]["to_let_decide"]
    assert advice.startswith("to let 'shop reads' decide, add shop-db__read_query to the exclude of")
    assert "'shop reads' accepts runs commands, destructive, open world" in advice


def test_a_rule_for_a_category_rated_from_the_description_alone_says_why_it_did_not_apply(
    tmp_path: Path,
) -> None:
    report = _explained(_engine(tmp_path), "shop-db__read_query", {"query": "select 1"})
    text = render_explanation(report)

    # The engine rates it "runs commands" from "Execute" in its description; the shell rule
    # takes a category by a capability's name or parameters only, as the policy says.
    assert report["category"] == "runs commands" and report["rule"] == "unannotated tools"
    passed = {rule["name"]: rule for rule in report["rules"]["passed_over"]}
    shell = passed["shell access"]
    assert shell["action"] == "deny"
    assert "runs commands" in shell["why"] and "description" in shell["why"]
    assert "name or parameters" in shell["why"]
    assert "  not applied: deny shell access" in text


def test_roots_a_deciding_rule_does_not_check_are_shown_as_not_checked(tmp_path: Path) -> None:
    engine = _engine(tmp_path)

    report = _explained(engine, "team-files__read_text_file", {"path": "/etc/passwd"})
    text = render_explanation(report)

    assert (report["action"], report["rule"]) == ("allow", "low-risk reads")
    roots = report["roots"]
    assert roots["paths"] == [str(tmp_path / "shared")]
    assert roots["checked"] is False and roots["checked_by"] == []
    assert "rule 'low-risk reads' does not check paths (no paths_within_roots)" in roots["notes"][0]
    assert f"  roots: {tmp_path / 'shared'}" in text
    assert "not checked" in text


def test_roots_a_rule_that_applies_checks_are_shown_as_checked_by_it(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    inside = str(tmp_path / "shared" / "plan.md")

    report = _explained(engine, "team-files__write_file", {"path": inside, "content": "x"})

    assert report["rule"] == "file writes"
    assert report["roots"]["checked"] is True
    assert report["roots"]["checked_by"] == ["file writes"]
    assert not any("not checked" in note for note in report["roots"]["notes"])


@pytest.mark.parametrize(
    "key", ["shop-db__list_tables", "team-files__read_text_file", "team-files__write_file"]
)
def test_the_decision_explained_is_the_decision_evaluate_makes(tmp_path: Path, key: str) -> None:
    engine = _engine(tmp_path, SHOP_READS)
    capability = _manifest().find(key)
    assert capability is not None
    arguments = {"path": str(tmp_path / "shared" / "a.txt"), "content": "x"} if "files" in key else {}

    report = explain(engine, _manifest(), key, arguments)

    decision = engine.evaluate(capability, arguments).decision
    assert (report["action"], report["rule"], report["explanation"]) == (
        decision.action,
        decision.rule,
        decision.explanation,
    )
    [deciding] = [rule for rule in report["rules"]["applied"] if rule["decides"]]
    assert deciding["name"] == decision.rule


def test_an_allow_rule_that_decides_but_is_held_says_what_it_does_not_accept(tmp_path: Path) -> None:
    excluded = read_policy_text(DEFAULT_POLICY).replace(
        'read_only_hint = "absent"', 'read_only_hint = "absent"\nexclude = ["shop-db__list_tables"]', 1
    )
    no_accepts = SHOP_READS.replace('accepts = ["destructive", "open world", "runs commands"]\n', "")
    policy = parse_policy_text(excluded + no_accepts, source="team.toml", variables={"GATEHOUSE_DATA": "/x"})

    report = _explained(PolicyEngine(policy), "shop-db__list_tables")

    assert (report["action"], report["rule"]) == ("review", "shop reads")
    assert "'shop reads' allows it, but" in report["rules"]["why_this_rule"]
    assert report["rules"]["to_let_decide"] == [
        "'shop reads' does not accept destructive, open world: it runs the call unreviewed only once"
        " its accepts names them"
    ]
