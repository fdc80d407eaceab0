"""Every mistake of a servers file entry is named at once, each by file, entry and key: an entry
with "argz" and "evn" once named only "argz", and the person fixed one key, reloaded, and met
the next (three round trips for three typos). As the policy file names every mistake of its
file (policies/loader.py), one a line in ``lines``."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_host.config import ConfigError, NoUsableServersError, SecretReferenceError, parse_servers_config
from mcp_host.health import broken_entry

AT = "s.json: mcpServers.team-files"


def _error(entry: dict[str, Any]) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse_servers_config({"mcpServers": {"team-files": entry}}, source="s.json", environ={})
    return caught.value


def test_two_unknown_keys_of_a_stdio_entry_are_each_named_with_the_key_meant() -> None:
    error = _error({"command": "python", "argz": ["x"], "evn": {}})

    assert error.lines == [
        f"{AT}.argz: unknown key for a stdio server (did you mean 'args'?)",
        f"{AT}.evn: unknown key for a stdio server (did you mean 'env'?)",
    ]
    # The first is the error's own, as every error that names one mistake.
    assert (error.where, error.reason) == (
        f"{AT}.argz",
        "unknown key for a stdio server (did you mean 'args'?)",
    )
    assert str(error) == "\n".join(error.lines)


def test_three_unknown_keys_of_a_stdio_entry_are_each_named_in_the_files_order() -> None:
    error = _error({"command": "python", "evn": {}, "argz": ["x"], "cwdir": "/srv"})

    assert error.lines == [
        f"{AT}.evn: unknown key for a stdio server (did you mean 'env'?)",
        f"{AT}.argz: unknown key for a stdio server (did you mean 'args'?)",
        f"{AT}.cwdir: unknown key for a stdio server (did you mean 'cwd'?)",
    ]


def test_three_unknown_keys_of_an_http_entry_are_each_named_with_the_key_meant() -> None:
    error = _error({"url": "https://h/mcp", "header": {}, "timout": 5, "oaut": {}})

    assert error.lines == [
        f"{AT}.header: unknown key for an http server (did you mean 'headers'?)",
        f"{AT}.timout: unknown key for an http server (did you mean 'timeout'?)",
        f"{AT}.oaut: unknown key for an http server (did you mean 'oauth'?)",
    ]


def test_an_unknown_key_and_a_value_of_the_wrong_kind_are_both_named() -> None:
    error = _error({"command": "python", "argz": ["x"], "timeout": "30"})

    assert error.lines == [
        f"{AT}.argz: unknown key for a stdio server (did you mean 'args'?)",
        f'{AT}.timeout: must be a positive number of seconds, not the string "30"'
        ' (write "timeout": 30, without quotes)',
    ]


@pytest.mark.parametrize(
    ("entry", "key", "reason"),
    [
        pytest.param(
            {"command": "x", "args": "-m server"},
            "args",
            'must be a list of strings, not the string "-m server" (e.g. "args": ["-m", "server"])',
            id="stdio-args",
        ),
        pytest.param({"command": "x", "env": ["A=1"]}, "env", "must be an object of string values", id="env"),
        pytest.param({"command": "x", "cwd": 7}, "cwd", "must be a string", id="cwd"),
        pytest.param({"command": 7}, "command", "a stdio server needs a command", id="command"),
        pytest.param(
            {"command": "x", "roots": "/srv"},
            "roots",
            "must be a list of folders (paths, or objects with a file:// uri)",
            id="roots",
        ),
        pytest.param(
            {"command": "x", "capabilities": []},
            "capabilities",
            'must be an object keyed by capability name: {"<name>": {"examples": [...]}}',
            id="capabilities",
        ),
        pytest.param(
            {"url": "https://h/mcp", "headers": ["Authorization"]},
            "headers",
            "must be an object of string values",
            id="headers",
        ),
        pytest.param(
            {"type": "http", "url": "ftp://h/mcp"},
            "url",
            "an http server needs an http:// or https:// url",
            id="url",
        ),
    ],
)
def test_a_value_of_the_wrong_kind_is_named_beside_an_unknown_key(
    entry: dict[str, Any], key: str, reason: str
) -> None:
    error = _error({**entry, "colour": "red"})

    kind = "a stdio server" if "command" in entry else "an http server"
    assert error.lines == [f"{AT}.colour: unknown key for {kind}", f"{AT}.{key}: {reason}"]


def test_every_value_of_the_wrong_kind_is_named() -> None:
    error = _error({"command": "x", "args": [1], "env": "A=1", "timeout": -1})

    assert error.lines == [
        f"{AT}.args: must be a list of strings, not a list holding the number 1",
        f"{AT}.env: must be an object of string values",
        f"{AT}.timeout: must be a positive number of seconds, not the number -1",
    ]


def test_an_entry_without_command_or_url_names_its_unknown_keys_and_its_values_of_the_wrong_kind() -> None:
    error = _error({"comand": "python", "argz": ["x"], "evn": {}, "timeout": "soon"})

    assert error.lines == [
        f"{AT}.comand: unknown keys 'comand' (did you mean 'command'?), 'argz' (did you mean 'args'?),"
        " 'evn' (did you mean 'env'?): a server needs a command (stdio) or a url (http)",
        f'{AT}.timeout: must be a positive number of seconds, not the string "soon"',
    ]


def test_an_unknown_type_is_named_with_each_unknown_key_and_value_of_the_wrong_kind() -> None:
    error = _error({"type": "htp", "url": "https://h/mcp", "header": {}, "headers": []})

    assert error.lines == [
        f"{AT}.type: unknown server type 'htp': use stdio (with command) or http (with url)",
        f"{AT}.header: unknown key for a server (did you mean 'headers'?)",
        f"{AT}.headers: must be an object of string values",
    ]


def test_every_unknown_key_of_a_root_and_every_broken_root_is_named() -> None:
    error = _error({"command": "x", "roots": [{"uri": "file:///srv", "nmae": "a", "url": "b"}, 7]})

    assert error.lines == [
        f"{AT}.roots[0].nmae: unknown key for a root (uri, name) (did you mean 'name'?)",
        f"{AT}.roots[0].url: unknown key for a root (uri, name) (did you mean 'uri'?)",
        f"{AT}.roots[1]: must be a folder path (a string) or an object with a file:// uri",
    ]


def test_a_bad_name_is_named_with_the_mistakes_inside_the_entry() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_servers_config({"mcpServers": {"a__b": {"command": "x", "argz": []}}}, source="s.json")

    assert [line.split(": ")[1] for line in caught.value.lines] == ["mcpServers.a__b", "mcpServers.a__b.argz"]


def test_a_secret_named_anywhere_in_an_entry_still_refuses_the_file_after_other_mistakes() -> None:
    entry = {"argz": [], "command": "x", "env": {"K": "${GATEHOUSE_SECRET_KEY}"}}

    with pytest.raises(SecretReferenceError):
        parse_servers_config(
            {"mcpServers": {"ok": {"command": "y"}, "greedy": entry}},
            source="s.json",
            environ={},
            skip_broken=True,
        )


def test_a_broken_entry_keeps_every_mistake_and_the_others_load() -> None:
    config = parse_servers_config(
        {"mcpServers": {"typo": {"command": "x", "argz": [], "evn": {}}, "ok": {"command": "y"}}},
        source="s.json",
        environ={},
        skip_broken=True,
    )

    assert config.names() == ["ok"]
    [problem] = config.problems
    lines = [
        "s.json: mcpServers.typo.argz: unknown key for a stdio server (did you mean 'args'?)",
        "s.json: mcpServers.typo.evn: unknown key for a stdio server (did you mean 'env'?)",
    ]
    assert (problem.entry, problem.lines) == ("typo", lines)
    # Its health (the Servers page, `servers check`) says each, one a line.
    assert broken_entry(problem).config_error == "\n".join(lines)
    # And the error it stands for, when one asks (servers login NAME), names each too.
    assert problem.error().lines == lines


def test_a_file_none_of_whose_entries_loads_names_every_mistake_of_every_entry() -> None:
    config = parse_servers_config(
        {"mcpServers": {"typo": {"command": "x", "argz": [], "evn": {}}, "nothing": {"args": []}}},
        source="s.json",
        environ={},
        skip_broken=True,
    )

    error = config.unusable()

    assert isinstance(error, NoUsableServersError)
    assert error.lines == [
        "s.json: none of the 2 entries could be used; each one's problem:",
        "s.json: mcpServers.typo.argz: unknown key for a stdio server (did you mean 'args'?)",
        "s.json: mcpServers.typo.evn: unknown key for a stdio server (did you mean 'env'?)",
        "s.json: mcpServers.nothing: a server needs a command (stdio) or a url (http)",
    ]


def test_a_file_of_one_entry_with_several_mistakes_is_that_entrys_error_naming_each() -> None:
    config = parse_servers_config(
        {"mcpServers": {"typo": {"command": "x", "argz": [], "evn": {}}}},
        source="s.json",
        environ={},
        skip_broken=True,
    )

    error = config.unusable()

    assert error is not None
    assert error.lines == config.problems[0].lines
    assert len(error.lines) == 2
