"""A misspelt key in a servers file is named, with the key meant: "comand" once read as an
entry with no command at all, and the error never said which key was wrong."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_host.config import ConfigError, parse_servers_config
from mcp_host.known_keys import closest_key


def _error(entry: dict[str, Any]) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse_servers_config({"mcpServers": {"team-files": entry}}, source="s.json", environ={})
    return caught.value


def test_a_misspelt_command_is_named_with_the_key_meant() -> None:
    error = _error({"comand": "node", "args": ["index.js"]})

    assert error.where == "s.json: mcpServers.team-files.comand"
    assert error.reason == (
        "unknown key 'comand' (did you mean 'command'?): a server needs a command (stdio) or a url (http)"
    )


def test_a_misspelt_url_is_named_with_the_key_meant() -> None:
    error = _error({"ulr": "https://mcp.example/mcp", "headers": {}})

    assert error.where == "s.json: mcpServers.team-files.ulr"
    assert error.reason.startswith("unknown key 'ulr' (did you mean 'url'?)")


def test_every_unknown_key_of_an_entry_without_command_or_url_is_named() -> None:
    error = _error({"Command": "node", "arguments": ["index.js"]})

    assert error.where == "s.json: mcpServers.team-files.Command"
    assert error.reason == (
        "unknown keys 'Command' (did you mean 'command'?), 'arguments' (did you mean 'args'?): "
        "a server needs a command (stdio) or a url (http)"
    )


def test_an_entry_with_neither_and_no_unknown_key_says_what_it_needs() -> None:
    error = _error({"args": ["index.js"]})

    assert (error.where, error.reason) == (
        "s.json: mcpServers.team-files",
        "a server needs a command (stdio) or a url (http)",
    )


@pytest.mark.parametrize(
    ("entry", "where", "reason"),
    [
        pytest.param(
            {"command": "x", "enviroment": {"TZ": "UTC"}},
            "enviroment",
            "unknown key for a stdio server (did you mean 'env'?)",
            id="stdio-environment",
        ),
        pytest.param(
            {"command": "x", "argz": []},
            "argz",
            "unknown key for a stdio server (did you mean 'args'?)",
            id="stdio-args",
        ),
        pytest.param(
            {"url": "https://h/mcp", "header": {}},
            "header",
            "unknown key for an http server (did you mean 'headers'?)",
            id="http-headers",
        ),
        pytest.param(
            {"command": "x", "capabilities": {"read_query": {"exmples": ["How much?"]}}},
            "capabilities.read_query.exmples",
            "unknown key for a capability (examples, aliases) (did you mean 'examples'?)",
            id="capability-examples",
        ),
        pytest.param(
            {"command": "x", "roots": [{"url": "file:///srv"}]},
            "roots[0].url",
            "unknown key for a root (uri, name) (did you mean 'uri'?)",
            id="root-uri",
        ),
        pytest.param(
            {"url": "https://h/mcp", "oauth": {"clientID": "x"}},
            "oauth.clientID",
            "(did you mean 'clientId'?)",
            id="oauth-client-id",
        ),
    ],
)
def test_an_unknown_key_anywhere_in_an_entry_names_the_key_meant(
    entry: dict[str, Any], where: str, reason: str
) -> None:
    error = _error(entry)

    assert error.where == f"s.json: mcpServers.team-files.{where}"
    assert reason in error.reason


def test_a_key_like_none_is_named_without_a_guess() -> None:
    error = _error({"command": "x", "colour": "red"})

    assert error.reason == "unknown key for a stdio server"


@pytest.mark.parametrize(
    ("key", "meant"),
    [("comand", "command"), ("ENV", "env"), ("env_file", "envFile"), ("enviroment", "env"), ("colour", None)],
)
def test_the_closest_key_is_a_near_spelling_another_case_or_a_known_key_it_begins_with(
    key: str, meant: str | None
) -> None:
    known = ["type", "command", "args", "env", "cwd", "envFile", "disabled", "timeout", "roots"]

    assert closest_key(key, known) == meant
