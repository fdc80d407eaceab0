"""The policy's [gateway] section: how many requests a minute each caller of the MCP endpoint
(`gatehouse serve`) may make, a role's own limit winning over the default."""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY, PolicyError, load_policy, parse_policy


def test_the_shipped_policy_lets_each_caller_make_120_requests_a_minute(tmp_path: Path) -> None:
    shipped = PolicyEngine(load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": str(tmp_path)}))

    assert shipped.gateway_rate_limit("operator") == 120
    assert shipped.gateway_rate_limit("someone off the roster") == 120


def test_a_roles_own_limit_wins_over_the_default() -> None:
    policy = PolicyEngine(
        parse_policy(
            {
                "roles": {"operator": {}, "automation": {}, "reviewer": {}, "admin": {}},
                "users": {"ci": "automation", "ann": "operator"},
                "gateway": {"requests_per_minute": 30, "roles": {"automation": 600}},
            },
            source="policy.toml",
        )
    )

    assert (policy.gateway_rate_limit("ci"), policy.gateway_rate_limit("ann")) == (600, 30)


@pytest.mark.parametrize(
    ("section", "where", "reason"),
    [
        ({"requests_per_minute": 0}, "gateway.requests_per_minute", "greater than or equal to 1"),
        ({"roles": {"operator": 0}}, "gateway.roles.operator", "greater than or equal to 1"),
        ({"roles": {"nobody": 10}}, "gateway.roles.nobody", "unknown role 'nobody'"),
        (
            {"per_token": 3},
            "gateway.per_token",
            "unknown key 'per_token'; known keys: requests_per_minute, roles",
        ),
    ],
)
def test_a_bad_gateway_setting_is_refused_by_key_and_reason(
    section: dict[str, object], where: str, reason: str
) -> None:
    with pytest.raises(PolicyError) as refused:
        parse_policy(
            {"roles": {"operator": {}, "reviewer": {}, "admin": {}}, "gateway": section}, source="policy.toml"
        )

    assert f"policy.toml: {where}" in str(refused.value)
    assert reason in str(refused.value)
