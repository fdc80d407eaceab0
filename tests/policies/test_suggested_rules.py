"""Rules proposed from reviewers' decisions (policies/suggested_rules.py): the bounds inferred
from approved arguments, what an allow rule keeps of the review rules it narrows, and its TOML,
which the policy loader reads back as the same rule."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from policies.loader import parse_policy_text
from policies.model import Constraints, NumericBound, PartialReviewSettings, Rule
from policies.names import key_matches
from policies.suggested_rules import (
    EQUALS_MAX_CHARS,
    Evidence,
    decides_alike,
    infer_bounds,
    keep_what_narrowed_rules_held,
    propose_rule,
    rule_toml,
)


def test_paths_are_bound_under_the_folder_they_share() -> None:
    bounds, free = infer_bounds(
        [
            {"path": "/srv/reports/2026/q1.md", "content": "a"},
            {"path": "/srv/reports/2025/q4.md", "content": "b"},
            {"path": "/srv/reports/summary.md", "content": "c"},
        ]
    ) or ({}, ())
    assert bounds["path"] == {"under": "/srv/reports"}
    assert free == ("content",)


@pytest.mark.parametrize(
    "paths",
    [
        ["docs/a.md", "docs/b.md"],  # relative: where they lead depends on the server
        ["/srv/a.md", "/home/b.md"],  # sharing only "/": no folder worth naming
    ],
)
def test_paths_without_a_folder_of_their_own_are_held_to_the_server_s_roots(paths: list[str]) -> None:
    bounds, _ = infer_bounds([{"path": p} for p in paths]) or ({}, ())
    assert bounds["path"] == "any"
    proposed = propose_rule(_evidence([{"path": p} for p in paths]), min_decisions=1)
    assert proposed is not None
    assert proposed.rule.constraints.paths_within_roots is True
    assert proposed.rule.constraints.under == {}


def test_an_argument_with_one_value_in_every_call_is_bound_to_it() -> None:
    approved: list[dict[str, Any]] = [
        {"repo": "acme/web", "draft": False, "labels": ["ops"], "title": f"t{n}"} for n in range(3)
    ]
    bounds, free = infer_bounds(approved) or ({}, ())
    assert bounds["repo"] == {"exact": "acme/web"}
    assert bounds["draft"] == {"exact": False}
    assert bounds["labels"] == {"exact": ["ops"]}
    assert free == ("title",)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("api_key", "k-123456"),  # a secret by its name: never written into the policy
        ("header", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"),  # by its shape
        ("note", "***"),  # hidden already when it was recorded
        ("body", "x" * (EQUALS_MAX_CHARS + 1)),  # too long to be a bound anyone reads
        ("parent", None),  # TOML has no null
        ("big", {"n": 2**64}),  # an integer TOML cannot hold
    ],
)
def test_a_value_that_cannot_or_must_not_be_written_into_the_policy_is_left_free(
    name: str, value: Any
) -> None:
    bounds, free = infer_bounds([{name: value}, {name: value}]) or ({}, ())
    assert name not in bounds
    assert free == (name,)


def test_an_argument_missing_from_one_approved_call_is_not_bound_to_a_value() -> None:
    bounds, free = infer_bounds([{"repo": "acme/web"}, {"repo": "acme/web"}, {}]) or ({}, ())
    assert "repo" not in bounds
    assert free == ("repo",)


def _evidence(approved: list[dict[str, Any]]) -> Evidence:
    return Evidence(
        key="files__write_report",
        read_only=False,
        categories=("writes files",),
        approved=len(approved),
        edited=0,
        rejected=0,
        approved_arguments=tuple(approved),
    )


def test_a_suggested_rule_states_folders_and_values_as_constraints_and_reviews_the_rest() -> None:
    proposed = propose_rule(
        _evidence([{"path": f"/srv/reports/{n}.md", "repo": "acme/web", "amount": n} for n in range(5)]),
        min_decisions=5,
    )
    assert proposed is not None
    constraints = proposed.rule.constraints
    assert constraints.under == {"path": "/srv/reports"}
    assert constraints.equals == {"repo": "acme/web"}
    assert constraints.numeric["amount"].max == 4
    assert constraints.paths_within_roots is False
    assert constraints.on_violation == "review"


# What the rules below name: a role, and roots for paths_within_roots.
_PRELUDE = """
[paths]
roots = ["/srv"]
[roles.admin]
review = ["*"]
[roles.reviewer]
review = ["*"]
"""


def _round_trip(rule: Rule) -> Rule:
    return parse_policy_text(_PRELUDE + rule_toml(rule), source="suggested.toml", variables={}).rules[0]


def test_a_suggested_rule_s_toml_reads_back_as_the_same_rule() -> None:
    proposed = propose_rule(
        _evidence(
            [
                {
                    "path": f"/srv/reports/{n}.md",
                    "repo": "acme/web",
                    # A float stays a float: 2.0 is not 2 to the comparison.
                    "options": {"depth": 1, "scale": 2.0, "tags": ["a", "b"], "odd key": "é\x7f\n"},
                    "to": "ann@example.com",
                    "amount": 10.5,
                    "title": f"t{n}",
                }
                for n in range(5)
            ]
        ),
        min_decisions=5,
    )
    assert proposed is not None
    options = proposed.rule.constraints.equals["options"]
    assert isinstance(options, dict) and options["scale"] == 2.0
    assert _round_trip(proposed.rule) == proposed.rule


def test_every_part_of_a_rule_survives_its_toml() -> None:
    rule = Rule(
        name='suggested: allow "files__write" within bounds',
        match=["files__write_report"],
        exclude=["files__write_report_draft"],
        action="allow",
        category="writes files",
        accepts=["writes files", "destructive"],
        explanation="approved\tall five",
        grantable=False,
        constraints=Constraints(
            paths_within_roots=True,
            recipient_domains=["example.com"],
            numeric={"amount": NumericBound(min=0, max=99.5), "odd name": NumericBound(max=3)},
            equals={"n": 1, "f": 1.0, "big": 1e300, "small": 1e-7, "nested": [{"a": [True]}]},
            under={"path": "/srv/reports", "other path": "/srv/x y"},
            on_violation="review",
        ),
        review=PartialReviewSettings(required_approvals=2, reviewer_roles=["admin"], four_eyes=True),
    )
    assert _round_trip(rule) == rule


def _review_rule(name: str, **extra: Any) -> Rule:
    return Rule(name=name, match=["*__write_*"], action="review", explanation="x", **extra)


def test_an_adopted_allow_rule_keeps_what_the_rules_it_narrows_held_its_calls_to() -> None:
    proposed = propose_rule(
        _evidence([{"path": f"/srv/reports/{n}.md", "amount": 10 * n} for n in range(5)]), min_decisions=5
    )
    assert proposed is not None
    file_writes = _review_rule(
        "file writes",
        category="writes files",
        constraints=Constraints(paths_within_roots=True, numeric={"amount": NumericBound(min=0, max=1000)}),
        review=PartialReviewSettings(
            required_approvals=2, reviewer_roles=["admin", "reviewer"], expiry_minutes=60
        ),
        grantable=False,
    )
    # A rule that only reviews outside its domains refused nothing: none of its constraints count.
    lenient = _review_rule(
        "lenient",
        constraints=Constraints(recipient_domains=["example.org"], on_violation="review"),
        review=PartialReviewSettings(required_approvals=1, reviewer_roles=["admin"], expiry_minutes=10),
    )

    kept = keep_what_narrowed_rules_held(proposed.rule, [file_writes, lenient])

    assert kept is not None
    assert kept.action == "allow"
    assert kept.category == "writes files"
    assert kept.grantable is False
    assert kept.review == PartialReviewSettings(
        required_approvals=2, expiry_minutes=10, reviewer_roles=["admin"]
    )
    constraints = kept.constraints
    assert constraints.on_violation == "review"  # outside the bounds: to review, never allowed
    assert constraints.paths_within_roots is True
    assert constraints.under == {"path": "/srv/reports"}
    assert constraints.numeric["amount"] == NumericBound(min=0, max=40)
    assert constraints.recipient_domains is None
    assert keep_what_narrowed_rules_held(proposed.rule, []) == proposed.rule


def test_no_rule_is_kept_where_the_narrowed_rules_leave_no_value() -> None:
    proposed = propose_rule(_evidence([{"path": f"/srv/reports/{n}.md"} for n in range(5)]), min_decisions=5)
    assert proposed is not None
    elsewhere = _review_rule("elsewhere", constraints=Constraints(under={"path": "/srv/other"}))
    assert keep_what_narrowed_rules_held(proposed.rule, [elsewhere]) is None
    inside = _review_rule("inside", constraints=Constraints(under={"path": "/srv/reports/2026"}))
    kept = keep_what_narrowed_rules_held(proposed.rule, [inside])
    assert kept is not None and kept.constraints.under == {"path": "/srv/reports/2026"}


@pytest.mark.parametrize(
    ("key", "others"),
    [
        ("files__read*", ["files__read_file", "files__reader", "files__read_x"]),
        ("tickets__get[item]", ["tickets__geti", "tickets__get_t", "tickets__get"]),
        ("tickets__what?", ["tickets__whatx", "tickets__what_a"]),
        ("ops__run]now[", ["ops__run_now_x"]),
        ("files__WriteFile", ["files__write_files", "files__write"]),
    ],
)
def test_a_suggested_rule_names_exactly_its_capability_whatever_marks_its_name_holds(
    key: str, others: list[str]
) -> None:
    proposed = propose_rule(replace(_evidence([{"n": 1}] * 5), key=key), min_decisions=5)
    assert proposed is not None
    assert key_matches(key, proposed.rule.match)
    assert [other for other in others if key_matches(other, proposed.rule.match)] == []
    assert _round_trip(proposed.rule) == proposed.rule  # a glob the policy's loader accepts


def test_rules_that_decide_the_same_are_alike_whatever_their_names_and_spelling() -> None:
    rule = Rule(
        name="suggested: allow email__send_email within bounds",
        match=["email__send_email"],
        action="allow",
        accepts=["sends messages"],
        explanation="x",
        constraints=Constraints(recipient_domains=["example.com", "example.org"], on_violation="review"),
    )
    by_hand = rule.model_copy(
        update={
            "name": "mail, by hand",
            "match": ["Email__SendEmail"],
            "explanation": "y",
            "review": PartialReviewSettings(required_approvals=2),
            "constraints": rule.constraints.model_copy(
                update={"recipient_domains": ["EXAMPLE.org", "example.com"]}
            ),
        }
    )
    assert decides_alike(rule, by_hand)
    fewer = rule.constraints.model_copy(update={"recipient_domains": ["example.com"]})
    for other in (
        rule.model_copy(update={"constraints": fewer}),
        rule.model_copy(update={"action": "review"}),
        rule.model_copy(update={"match": ["email__send_*"]}),
        rule.model_copy(update={"risk": "low"}),
    ):
        assert not decides_alike(rule, other)
