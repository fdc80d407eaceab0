"""A rule's ``equals`` (exactly this value), ``under`` (inside this folder) and ``exclude``
(capabilities it does not cover), enforced by the engine and checked by the loader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from policies.engine import PolicyEngine
from policies.loader import PolicyError, parse_policy_text
from tests.policies.test_engine import codes, engine, flag_messages, rule, tool

TRUSTED = {"trusted": ["srv"]}
# A trusted server's tool that writes files and says it destroys nothing: an allow rule
# accepting "writes files" is what decides it.
WRITE = tool(
    "write_report",
    properties={"path": {"type": "string"}, "repo": {"type": "string"}, "content": {"type": "string"}},
    annotations={"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False},
)


def allow_with(**constraints: Any) -> PolicyEngine:
    return engine(
        servers=TRUSTED,
        rules=[
            rule(
                "reports",
                ["*__write_report"],
                "allow",
                accepts=["writes files"],
                constraints={"on_violation": "review", **constraints},
            )
        ],
    )


def test_a_call_with_the_one_allowed_value_runs_and_any_other_goes_to_review() -> None:
    policy = allow_with(equals={"repo": "acme/web", "options": {"depth": 1, "tags": ["a"]}})
    same = {"repo": "acme/web", "options": {"tags": ["a"], "depth": 1}, "content": "x"}
    assert policy.evaluate(WRITE, same).decision.action == "allow"

    for changed, shown in [
        (same | {"repo": "acme/api"}, 'argument repo: "acme/api" is not "acme/web"'),
        # The same JSON, not a number that compares equal: 1.0 is not 1, "1" is not 1.
        (same | {"options": {"depth": 1.0, "tags": ["a"]}}, 'argument options: {"depth":1.0,"tags":["a"]}'),
        (
            {k: v for k, v in same.items() if k != "repo"},
            'argument repo is missing; the rule allows only "acme/web"',
        ),
    ]:
        decision = policy.evaluate(WRITE, changed).decision
        assert decision.action == "review"
        [message] = flag_messages(decision, "not_the_allowed_value")
        assert message.startswith(shown)


def test_a_path_under_the_folder_runs_and_one_that_leads_out_goes_to_review(tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "escape").symlink_to(tmp_path)
    policy = allow_with(under={"path": str(folder)})

    assert policy.evaluate(WRITE, {"path": f"{folder}/2026/q1.md"}).decision.action == "allow"
    assert policy.evaluate(WRITE, {"path": str(folder)}).decision.action == "allow"
    for path, why in [
        (f"{tmp_path}/secrets.txt", f"resolves outside {folder}"),
        (f"{folder}2/q1.md", f"resolves outside {folder}"),  # a sibling with the folder's name as prefix
        (f"{folder}/../secrets.txt", "climbs out with '..'"),
        (f"{folder}/escape/secrets.txt", f"resolves outside {folder}"),  # a symlink leading out
        ("q1.md", "is not an absolute path"),
        ("~/q1.md", "starts with ~"),
        (f"{folder}\\..\\x", "holds a NUL or a backslash"),
    ]:
        decision = policy.evaluate(WRITE, {"path": path}).decision
        assert decision.action == "review", path
        [message] = flag_messages(decision, "path_outside_folder")
        assert message.startswith(f"argument path: '{path}'") and why in message, message
    # A list of paths: each one is held to the folder.
    listed = policy.evaluate(WRITE, {"path": [f"{folder}/a.md", "/etc/passwd"]}).decision
    assert flag_messages(listed, "path_outside_folder") == [
        f"argument path: '/etc/passwd' resolves outside {folder}, the folder the rule allows"
    ]
    missing = policy.evaluate(WRITE, {"content": "x"}).decision
    assert flag_messages(missing, "path_outside_folder") == [
        f"argument path is missing; the rule allows only paths under {folder}"
    ]


def test_a_violation_of_a_deny_rule_s_value_or_folder_refuses_the_call() -> None:
    policy = engine(
        servers=TRUSTED,
        rules=[
            rule("reports", ["*__write_report"], "review", constraints={"under": {"path": "/srv/reports"}})
        ],
    )
    assert policy.evaluate(WRITE, {"path": "/srv/reports/a.md"}).decision.action == "review"
    refused = policy.evaluate(WRITE, {"path": "/srv/other/a.md"}).decision
    assert refused.action == "deny"
    assert "path_outside_folder" in codes(refused)


def test_a_rule_does_not_cover_what_its_exclude_names_in_any_spelling() -> None:
    policy = engine(
        servers=TRUSTED,
        rules=[
            rule(
                "file writes",
                ["*__write_*"],
                "review",
                categories=["writes files"],
                exclude=["Srv__WriteReport"],
            ),
            rule("reports", ["srv__write_report"], "allow", accepts=["writes files"]),
        ],
    )
    # Excluded by the glob and by the category alike: the allow rule of its own decides.
    assert [r.name for r in policy.matching_rules(WRITE.key, {"writes files"})] == ["reports"]
    assert policy.evaluate(WRITE, {"path": "/srv/a.md"}).decision.action == "allow"
    other = tool("write_notes", annotations=WRITE.annotations)
    decision = policy.evaluate(other, {}).decision
    assert (decision.action, decision.rule) == ("review", "file writes")


def _load(constraints: str = "", exclude: str = "") -> None:
    parse_policy_text(
        f"""
[[rules]]
name = "file writes"
match = ["*__write_*"]
{exclude}
action = "review"
explanation = "a reviewer checks"
[rules.constraints]
{constraints}
""",
        source="policy.toml",
    )


@pytest.mark.parametrize(
    ("exclude", "reason"),
    [
        ('exclude = ["files__[write"]', "exclude[0] 'files__[write' opens a [ set it never closes"),
        ('exclude = ["ok__x", " files__write_file"]', "exclude[1] ' files__write_file' has spaces at an end"),
        ('exclude = [""]', "exclude[0] '' is blank"),
        ('exclude = ["**"]', "excludes every capability, so the rule would cover nothing"),
    ],
)
def test_an_exclude_glob_that_cannot_mean_what_it_says_is_refused_naming_the_rule(
    exclude: str, reason: str
) -> None:
    with pytest.raises(PolicyError) as refused:
        _load(exclude=exclude)
    assert refused.value.where == "policy.toml: rules[0] (file writes).exclude"
    assert reason in refused.value.reason


@pytest.mark.parametrize(
    ("constraints", "key", "reason"),
    [
        (
            'under = { path = "srv/reports" }',
            "under",
            "path: the folder 'srv/reports' is not an absolute folder",
        ),
        ('under = { path = "/srv/../etc" }', "under", "climbs out with '..'"),
        ("equals = { n = nan }", "equals", "n: nan and inf are no argument's value"),
        ("equals = { when = 2026-01-01 }", "equals.when", "(a JSON value), not a date"),
    ],
)
def test_a_value_or_folder_the_policy_cannot_hold_an_argument_to_is_refused(
    constraints: str, key: str, reason: str
) -> None:
    with pytest.raises(PolicyError) as refused:
        _load(constraints=constraints)
    assert refused.value.where == f"policy.toml: rules[0] (file writes).constraints.{key}"
    assert reason in refused.value.reason


def test_a_folder_is_kept_in_one_spelling() -> None:
    policy = parse_policy_text(
        """
[[rules]]
name = "reports"
match = ["*__write_report"]
action = "allow"
explanation = "x"
[rules.constraints]
under = { path = "/srv//reports/./" }
equals = { repo = "acme/web", options = { depth = 1, tags = ["a"] } }
""",
        source="policy.toml",
    )
    constraints = policy.rules[0].constraints
    assert constraints.under == {"path": "/srv/reports"}
    assert constraints.equals == {"repo": "acme/web", "options": {"depth": 1, "tags": ["a"]}}


@pytest.mark.parametrize("name", ["terminate_instances", "terminateInstances", "terminate.instances"])
def test_a_glob_with_digits_or_dots_matches_the_key_it_names(name: str) -> None:
    # Keys read digits as words of their own (ec2 -> ec 2): a glob is read the same way, so a
    # deny rule naming the server is not silently dodged by the digit in its name.
    terminate = tool(name, server="ec2", annotations={"readOnlyHint": False})
    policy = engine(rules=[rule("no terminations", ["EC2__terminate_*"], "deny")])
    assert [r.name for r in policy.matching_rules(terminate.key)] == ["no terminations"]
    assert policy.evaluate(terminate, {}).decision.action == "deny"
    exact = engine(rules=[rule("no terminations", ["ec2__terminate.instances"], "deny")])
    assert exact.evaluate(terminate, {}).decision.action == "deny"
