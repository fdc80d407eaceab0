"""The environment that makes `gatehouse serve` an OAuth resource server: nothing set, nothing
changes; set, its audience defaults to the endpoint's own address; a mistake is one line naming
the variable, and `gatehouse serve` exits 2 with it before starting anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from gatehouse.errors import ConfigurationError
from gatehouse.gateway.resource_server import oauth_resource_from
from tests.cli_support import run_cli

ISSUER = "GATEHOUSE_OAUTH_ISSUER"
RESOURCE = "GATEHOUSE_OAUTH_RESOURCE"
GOOD = {ISSUER: "https://login.example.com/realms/team", RESOURCE: "https://gatehouse.example.com/mcp"}


def test_without_an_issuer_only_gatehouses_own_tokens_are_accepted() -> None:
    assert oauth_resource_from({}) is None


def test_tokens_must_be_for_the_endpoints_own_address_unless_audiences_are_named() -> None:
    config = oauth_resource_from(GOOD)
    assert config is not None
    assert config.audiences == ("https://gatehouse.example.com/mcp",)
    assert config.claim == "email" and config.scopes == ()
    assert config.metadata_url == "https://gatehouse.example.com/.well-known/oauth-protected-resource/mcp"
    named = oauth_resource_from(
        GOOD
        | {
            "GATEHOUSE_OAUTH_AUDIENCE": "api://gatehouse, https://gatehouse.example.com/mcp",
            "GATEHOUSE_OAUTH_CLAIM": "oid",
            "GATEHOUSE_OAUTH_SCOPES": "mcp:tools  mcp:resources",
        }
    )
    assert named is not None
    assert named.audiences == ("api://gatehouse", "https://gatehouse.example.com/mcp")
    assert (named.claim, named.scopes) == ("oid", ("mcp:tools", "mcp:resources"))


@pytest.mark.parametrize(
    ("environment", "named", "why"),
    [
        ({ISSUER: GOOD[ISSUER]}, RESOURCE, "required with GATEHOUSE_OAUTH_ISSUER"),
        ({RESOURCE: GOOD[RESOURCE]}, RESOURCE, "is set but GATEHOUSE_OAUTH_ISSUER is not"),
        (
            GOOD | {ISSUER: "http://login.example.com"},
            ISSUER,
            "plain http on a host that is not this machine",
        ),
        (GOOD | {ISSUER: "login.example.com"}, ISSUER, "expected the authorization server's issuer"),
        (GOOD | {RESOURCE: "https://gatehouse.example.com/mcp#x"}, RESOURCE, "no query or fragment"),
        (GOOD | {"GATEHOUSE_OAUTH_CLAIM": "preferred_username"}, "GATEHOUSE_OAUTH_CLAIM", "people choose"),
    ],
)
def test_a_mistake_names_the_variable(environment: dict[str, str], named: str, why: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        oauth_resource_from(environment)
    assert raised.value.message.startswith(named)
    assert why in raised.value.message


def test_gatehouse_serve_refuses_to_start_with_a_mistake_in_them(data_dir: Path) -> None:
    ran = run_cli(
        "serve",
        env={"GATEHOUSE_DATA": str(data_dir), ISSUER: GOOD[ISSUER], RESOURCE: None, "GATEHOUSE_DB": None},
    )
    assert ran.returncode == 2
    assert ran.stderr.strip().splitlines()[-1].startswith(f"gatehouse: {RESOURCE}: required with {ISSUER}")
