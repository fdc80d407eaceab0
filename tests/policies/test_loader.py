"""Reading policy files: the shipped one loads; a broken one names file, key and reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from policies.loader import DEFAULT_POLICY, PolicyError, load_policy, parse_policy


def _rule(name: str = "r", **extra: Any) -> dict[str, Any]:
    return {"name": name, "match": ["*"], "action": "review", "explanation": "why", **extra}


def _error(data: Any, variables: dict[str, str] | None = None) -> PolicyError:
    with pytest.raises(PolicyError) as caught:
        parse_policy(data, source="p.toml", variables={} if variables is None else variables)
    return caught.value


def test_the_shipped_default_policy_loads_with_its_data_folder(tmp_path: Path) -> None:
    policy = load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": str(tmp_path)})

    assert policy.defaults.action == "review"
    assert policy.paths.roots == [f"{tmp_path}/demo/project"]
    assert [rule.name for rule in policy.rules] == [
        "low-risk reads",
        "file writes",
        "outgoing messages",
        "record updates",
        "payments",
        "shell access",
        "untrusted read-only",
        "unannotated tools",
    ]
    assert {rule.name: rule.action for rule in policy.rules}["shell access"] == "deny"
    assert set(policy.users.values()) <= set(policy.roles)
    assert policy.servers.trusted == ["filesystem", "tickets", "email", "greeter", "prompts", "documents"]


def test_the_shipped_default_policy_without_its_data_folder_names_the_missing_variable() -> None:
    with pytest.raises(PolicyError) as caught:
        load_policy(DEFAULT_POLICY, variables={})

    assert caught.value.reason == "environment variable GATEHOUSE_DATA is not set"
    assert str(DEFAULT_POLICY) in caught.value.where


def test_an_empty_policy_is_the_strict_default() -> None:
    policy = parse_policy({}, source="p.toml", variables={})

    assert policy.defaults.action == "review"
    assert policy.rules == []
    assert policy.defaults.reviewer_roles == ["reviewer", "admin"]


def test_variables_are_taken_from_the_given_mapping() -> None:
    policy = parse_policy(
        {"paths": {"roots": ["${BASE}/one", "${BASE}/two"]}}, source="p.toml", variables={"BASE": "/srv"}
    )

    assert policy.paths.roots == ["/srv/one", "/srv/two"]


def test_an_unknown_action_names_the_rule_and_the_allowed_values() -> None:
    error = _error({"rules": [_rule("writes", action="maybe")]})

    assert error.where == "p.toml: rules[0] (writes).action"
    assert error.reason == "must be 'allow', 'review' or 'deny', not \"maybe\""
    assert str(error) == f"{error.where}: {error.reason}"


def test_an_unknown_default_action_names_defaults_action() -> None:
    error = _error({"defaults": {"action": "permit"}})

    assert error.where == "p.toml: defaults.action"
    assert "'allow', 'review' or 'deny'" in error.reason


def test_an_unknown_key_under_a_rule_is_refused_by_name() -> None:
    error = _error({"rules": [_rule("first"), _rule("second", colour="red")]})

    assert error.where == "p.toml: rules[1] (second).colour"
    assert error.reason.startswith(
        "unknown key 'colour'; known keys: name, match, exclude, categories, action"
    )


def test_an_unknown_key_in_a_rules_constraints_is_refused_by_name() -> None:
    error = _error({"rules": [_rule("mail", constraints={"recipient_domain": ["example.com"]})]})

    assert error.where == "p.toml: rules[0] (mail).constraints.recipient_domain"
    assert error.reason == "unknown key 'recipient_domain' (did you mean 'recipient_domains'?)"


def test_an_unknown_category_is_refused() -> None:
    error = _error({"rules": [_rule("mail", category="emails")]})

    assert error.where == "p.toml: rules[0] (mail).category"
    assert error.reason.startswith("must be 'writes files', 'sends messages'")
    assert error.reason.endswith(', not "emails"')


def test_a_user_with_an_unknown_role_names_the_user_and_the_known_roles() -> None:
    error = _error({"roles": {"reviewer": {}, "admin": {}}, "users": {"bob": "boss"}})

    assert error.where == "p.toml: users.bob"
    assert error.reason == "unknown role 'boss'; roles: admin, reviewer"


def test_two_rules_with_one_name_are_refused_at_the_second() -> None:
    error = _error({"rules": [_rule("same"), _rule("other"), _rule("same")]})

    assert error.where == "p.toml: rules[2] (same)"
    assert error.reason == "a second rule named 'same'"


def test_paths_within_roots_without_roots_is_refused() -> None:
    error = _error({"rules": [_rule("files", constraints={"paths_within_roots": True})]})

    assert error.where == "p.toml: rules[0] (files).constraints.paths_within_roots"
    assert error.reason == "needs [paths] roots"


def test_a_rule_naming_an_unknown_reviewer_role_is_refused() -> None:
    error = _error(
        {
            "defaults": {"reviewer_roles": ["reviewer"]},
            "roles": {"reviewer": {}},
            "rules": [_rule("pay", review={"reviewer_roles": ["treasurer"]})],
        }
    )

    assert error.where == "p.toml: rules[0] (pay).review.reviewer_roles"
    assert error.reason == "unknown role 'treasurer'"


def test_default_reviewer_roles_must_exist_once_roles_are_declared() -> None:
    error = _error({"roles": {"admin": {}}})

    assert error.where == "p.toml: defaults.reviewer_roles"
    assert error.reason == "unknown role 'reviewer'"


def test_out_of_range_review_settings_are_refused() -> None:
    error = _error({"defaults": {"required_approvals": 9}})

    assert error.where == "p.toml: defaults.required_approvals"
    assert error.reason == "must be less than or equal to 5, not the number 9"


def test_a_rule_without_a_match_or_categories_is_refused() -> None:
    error = _error({"rules": [_rule("empty", match=[])]})

    assert error.where == "p.toml: rules[0] (empty)"
    assert "needs match (globs) or categories" in error.reason


def test_a_policy_that_is_not_a_table_is_refused() -> None:
    error = _error([1, 2])

    assert (error.where, error.reason) == ("p.toml", "the policy must be a TOML table")


def test_invalid_toml_names_the_file_and_the_parse_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text('[defaults]\naction = "review\n', encoding="utf-8")

    with pytest.raises(PolicyError) as caught:
        load_policy(path, variables={})

    assert caught.value.where == str(path)
    assert caught.value.reason.startswith("not valid TOML: ")
    assert "line 2" in caught.value.reason


def test_a_missing_file_is_named_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "absent.toml"

    with pytest.raises(PolicyError) as caught:
        load_policy(path, variables={})

    assert caught.value.where == str(path)
    assert caught.value.reason == "cannot read the file: No such file or directory"


def test_a_missing_variable_is_refused_with_its_name_and_the_key_that_uses_it() -> None:
    error = _error({"paths": {"roots": ["${NOPE}/data"]}})

    assert error.reason == "environment variable NOPE is not set"
    assert error.where.startswith("p.toml")
    assert "paths.roots" in error.where


def test_a_variable_in_a_file_is_expanded_and_a_missing_one_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text('[paths]\nroots = ["${DATA}/project"]\n', encoding="utf-8")

    loaded = load_policy(path, variables={"DATA": "/srv/data"})
    with pytest.raises(PolicyError) as caught:
        load_policy(path, variables={"OTHER": "x"})

    assert loaded.paths.roots == ["/srv/data/project"]
    assert caught.value.reason == "environment variable DATA is not set"
    assert str(path) in caught.value.where


def test_a_missing_variable_is_reported_as_file_colon_key_like_every_other_error() -> None:
    error = _error({"paths": {"roots": ["${NOPE}/data"]}})

    assert error.where == "p.toml: paths.roots[0]"


@pytest.mark.parametrize(
    ("data", "where", "reason"),
    [
        pytest.param(
            {"defaults": {"expiry_minutes": 99999999999}},
            "defaults.expiry_minutes",
            "less than or equal to 527040",
            id="default-expiry-past-the-calendar",
        ),
        pytest.param(
            {"rules": [_rule("slow", review={"expiry_minutes": 10**12})]},
            "rules[0] (slow).review.expiry_minutes",
            "less than or equal to 527040",
            id="rule-expiry-past-the-calendar",
        ),
        pytest.param(
            {"rules": [_rule("none", review={"required_approvals": 0})]},
            "rules[0] (none).review.required_approvals",
            "greater than or equal to 1",
            id="no-approvals",
        ),
        pytest.param(
            {"output": {"max_bytes": 2**40}},
            "output.max_bytes",
            "less than or equal to 16777216",
            id="huge-cap",
        ),
        pytest.param({"output": {"max_bytes": 0}}, "output.max_bytes", "greater than 0", id="zero-cap"),
        pytest.param(
            {"rules": [_rule("pay", constraints={"numeric": {"amount": {"max": float("inf")}}})]},
            "rules[0] (pay).constraints.numeric.amount.max",
            "finite number",
            id="infinite-bound",
        ),
        pytest.param(
            {"rules": [_rule("pay", constraints={"numeric": {"amount": {"min": float("nan")}}})]},
            "rules[0] (pay).constraints.numeric.amount.min",
            "finite number",
            id="nan-bound",
        ),
        pytest.param(
            {"rules": [_rule("pay", constraints={"numeric": {"amount": {"min": 10, "max": 1}}})]},
            "rules[0] (pay).constraints.numeric.amount",
            "min 10 is above max 1",
            id="empty-range",
        ),
    ],
)
def test_every_number_in_a_policy_is_bounded_and_a_bad_one_named_by_key_and_reason(
    data: dict[str, Any], where: str, reason: str
) -> None:
    error = _error(data)

    assert error.where == f"p.toml: {where}"
    assert reason in error.reason


def test_a_policy_nested_past_the_limit_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text("[paths]\nroots = " + "[" * 100 + "]" * 100 + "\n", encoding="utf-8")

    with pytest.raises(PolicyError) as caught:
        load_policy(path, variables={})

    assert (caught.value.where, caught.value.reason) == (str(path), "nested deeper than 64 levels")
