"""The policy's [sampling] section: how many requests for a model completion a server may make
in a minute, how long its call waits for a reviewer, and who may decide."""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY, PolicyError, load_policy, parse_policy


def engine(data: dict[str, object]) -> PolicyEngine:
    return PolicyEngine(parse_policy(data, source="policy.toml"))


def test_the_shipped_policy_reviews_every_request_within_ten_minutes_and_five_a_minute(
    tmp_path: Path,
) -> None:
    shipped = PolicyEngine(load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": str(tmp_path)}))

    assert shipped.sampling_limit("documents") == 5
    terms = shipped.sampling_terms()
    assert (terms.expiry_minutes, terms.required_approvals, terms.four_eyes) == (10, 1, True)
    assert terms.reviewer_roles == ["reviewer", "admin"]


def test_a_servers_own_limit_wins_over_the_default_and_zero_refuses_it_all() -> None:
    policy = engine({"sampling": {"requests_per_minute": 3, "servers": {"documents": 20, "web": 0}}})

    assert (policy.sampling_limit("documents"), policy.sampling_limit("web"), policy.sampling_limit("x")) == (
        20,
        0,
        3,
    )


def test_only_roles_that_review_sampling_decide_it() -> None:
    policy = engine(
        {
            "roles": {
                "reviewer": {"review": ["sends messages"]},
                "admin": {"review": ["*"]},
                "ml": {"review": ["sampling"]},
            },
            "sampling": {"reviewer_roles": ["reviewer", "admin", "ml"]},
        }
    )

    assert policy.sampling_terms().reviewer_roles == ["admin", "ml"]


def test_four_eyes_on_sampling_follows_the_defaults() -> None:
    # The person whose request caused the server to ask is kept from deciding it alone, as for
    # any call they asked for; a policy that turns four-eyes off does so here too.
    assert engine({}).sampling_terms().four_eyes
    assert not engine({"defaults": {"four_eyes": False}}).sampling_terms().four_eyes


def test_unset_reviewer_roles_are_the_defaults() -> None:
    policy = engine({"defaults": {"reviewer_roles": ["admin"]}, "roles": {"admin": {"review": ["*"]}}})

    assert policy.sampling_terms().reviewer_roles == ["admin"]


@pytest.mark.parametrize(
    ("section", "where", "reason"),
    [
        ({"requests_per_minute": -1}, "sampling.requests_per_minute", "greater than or equal to 0"),
        ({"servers": {"documents": 5000}}, "sampling.servers.documents", "less than or equal to 1000"),
        ({"wait_minutes": 0}, "sampling.wait_minutes", "greater than 0"),
        ({"reviewer_roles": ["nobody"]}, "sampling.reviewer_roles", "unknown role 'nobody'"),
        ({"limit": 3}, "sampling.limit", "unknown key 'limit'; known keys: requests_per_minute, servers"),
    ],
)
def test_a_bad_sampling_setting_is_refused_by_key_and_reason(
    section: dict[str, object], where: str, reason: str
) -> None:
    with pytest.raises(PolicyError) as refused:
        parse_policy({"roles": {"reviewer": {}, "admin": {}}, "sampling": section}, source="policy.toml")

    assert f"policy.toml: {where}" in str(refused.value)
    assert reason in str(refused.value)
