"""One ``${VAR}`` expander for every file Gatehouse reads: the same syntax and the same error,
naming the file and the key, in the servers file (entries and their oauth objects) and the policy."""

from __future__ import annotations

import pytest

from gatehouse.settings import DB_ENV, SECRET_KEY_ENV, WEBHOOK_ENV, WEBHOOK_SECRET_ENV
from mcp_host.config import ConfigError, parse_servers_config
from mcp_host.variables import GATEHOUSE_SECRETS, SecretVariableError, UnsetVariableError, expand_variables
from policies.loader import PolicyError, parse_policy
from reviews.audit_keys import AUDIT_KEY_ENV, AUDIT_OLD_KEYS_ENV


def test_both_spellings_are_replaced_from_the_given_environment() -> None:
    assert expand_variables("${A}/x/${env:B}", {"A": "1", "B": "2"}, "f: k") == "1/x/2"


def test_text_without_a_variable_and_a_lone_dollar_are_left_alone() -> None:
    assert expand_variables("$HOME and ${ not one", {}, "f: k") == "$HOME and ${ not one"


def test_a_missing_variable_names_where_it_was_used_and_which_variable() -> None:
    with pytest.raises(UnsetVariableError) as caught:
        expand_variables("${SET}/${MISSING}", {"SET": "x"}, "servers.json: mcpServers.fs.args")

    assert caught.value.where == "servers.json: mcpServers.fs.args"
    assert caught.value.name == "MISSING"
    assert str(caught.value) == "servers.json: mcpServers.fs.args: environment variable MISSING is not set"


def test_a_set_but_empty_variable_is_used_as_it_is() -> None:
    assert expand_variables("a${EMPTY}b", {"EMPTY": ""}, "f: k") == "ab"


@pytest.mark.parametrize(
    ("entry", "where"),
    [
        ({"command": "${MISSING}"}, "servers.json: mcpServers.crm.command"),
        ({"command": "x", "env": {"TOKEN": "${env:MISSING}"}}, "servers.json: mcpServers.crm.env.TOKEN"),
        (
            {"type": "http", "url": "https://crm.example/mcp", "oauth": {"clientId": "${MISSING}"}},
            "servers.json: mcpServers.crm.oauth.clientId",
        ),
    ],
)
def test_the_servers_file_reports_a_missing_variable_by_file_entry_and_key(
    entry: dict[str, object], where: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_servers_config({"mcpServers": {"crm": entry}}, source="servers.json", environ={})

    assert (caught.value.where, caught.value.reason) == (where, "environment variable MISSING is not set")


def test_the_policy_file_reports_a_missing_variable_in_the_same_shape() -> None:
    with pytest.raises(PolicyError) as caught:
        parse_policy({"paths": {"roots": ["${env:MISSING}/data"]}}, source="policy.toml", variables={})

    assert (caught.value.where, caught.value.reason) == (
        "policy.toml: paths.roots[0]",
        "environment variable MISSING is not set",
    )


# -- Gatehouse's own secrets are never expanded ---------------------------------------------

OWN_SECRETS = sorted(GATEHOUSE_SECRETS)
VALUE = "k3y-that-must-not-leak"


def test_the_secrets_named_are_the_variables_gatehouse_reads_its_credentials_from() -> None:
    read_as_secrets = {
        SECRET_KEY_ENV,
        AUDIT_KEY_ENV,
        AUDIT_OLD_KEYS_ENV,
        DB_ENV,
        WEBHOOK_ENV,
        WEBHOOK_SECRET_ENV,
    }
    assert read_as_secrets <= GATEHOUSE_SECRETS
    assert {"OPENAI_API_KEY", "ANTHROPIC_API_KEY"} <= GATEHOUSE_SECRETS


@pytest.mark.parametrize("name", OWN_SECRETS)
@pytest.mark.parametrize("spelling", ["${%s}", "${env:%s}", "x${%s}y"])
def test_a_gatehouse_secret_is_never_expanded_set_or_not(name: str, spelling: str) -> None:
    reference = spelling % name
    for environ in ({name: VALUE}, {}):
        with pytest.raises(SecretVariableError) as caught:
            expand_variables(reference, environ, "servers.json: mcpServers.crm.args")
        assert caught.value.where == "servers.json: mcpServers.crm.args"
        assert f"${{{name}}} is one of Gatehouse's own secrets" in caught.value.reason
        assert VALUE not in str(caught.value)


def test_a_secrets_name_in_another_case_is_refused_too() -> None:
    # Windows reads environment variables whatever their case.
    with pytest.raises(SecretVariableError):
        expand_variables("${gatehouse_secret_key}", {"gatehouse_secret_key": VALUE}, "f: k")


@pytest.mark.parametrize(
    ("entry", "where"),
    [
        ({"command": "srv", "args": ["--key", "${GATEHOUSE_SECRET_KEY}"]}, "mcpServers.crm.args"),
        ({"command": "${env:GATEHOUSE_AUDIT_KEY}"}, "mcpServers.crm.command"),
        ({"command": "srv", "env": {"DB": "${GATEHOUSE_DB}"}}, "mcpServers.crm.env.DB"),
        ({"command": "srv", "cwd": "/tmp/${GATEHOUSE_SECRET_KEY}"}, "mcpServers.crm.cwd"),
        ({"command": "srv", "roots": ["${GATEHOUSE_SECRET_KEY}"]}, "mcpServers.crm.roots[0]"),
        (
            {"type": "http", "url": "https://crm.example/mcp?k=${GATEHOUSE_WEBHOOK_URL}"},
            "mcpServers.crm.url",
        ),
        (
            {"type": "http", "url": "https://crm.example/mcp", "headers": {"X-Key": "${OPENAI_API_KEY}"}},
            "mcpServers.crm.headers.X-Key",
        ),
        (
            {
                "type": "http",
                "url": "https://crm.example/mcp",
                "oauth": {"clientSecret": "${GATEHOUSE_SECRET_KEY}"},
            },
            "mcpServers.crm.oauth.clientSecret",
        ),
    ],
)
def test_a_servers_file_naming_a_gatehouse_secret_anywhere_is_refused_by_file_entry_and_key(
    entry: dict[str, object], where: str
) -> None:
    environ = dict.fromkeys(OWN_SECRETS, VALUE)
    with pytest.raises(ConfigError) as caught:
        parse_servers_config({"mcpServers": {"crm": entry}}, source=".mcp.json", environ=environ)

    assert caught.value.where == f".mcp.json: {where}"
    assert "one of Gatehouse's own secrets" in caught.value.reason
    assert VALUE not in str(caught.value)


def test_the_policy_file_cannot_expand_a_gatehouse_secret_either() -> None:
    with pytest.raises(PolicyError) as caught:
        parse_policy(
            {"paths": {"roots": ["/srv/${GATEHOUSE_AUDIT_KEY}"]}},
            source="policy.toml",
            variables={"GATEHOUSE_AUDIT_KEY": VALUE},
        )

    assert caught.value.where == "policy.toml: paths.roots[0]"
    assert "${GATEHOUSE_AUDIT_KEY} is one of Gatehouse's own secrets" in caught.value.reason
