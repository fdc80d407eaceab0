"""One ``${VAR}`` expander for every file Gatehouse reads: the same syntax and the same error,
naming the file and the key, in the servers file (entries and their oauth objects) and the policy."""

from __future__ import annotations

import pytest

from mcp_host.config import ConfigError, parse_servers_config
from mcp_host.variables import UnsetVariableError, expand_variables
from policies.loader import PolicyError, parse_policy


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
