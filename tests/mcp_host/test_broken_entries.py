"""A servers file read with ``skip_broken``: each broken entry costs only itself (kept as a
problem naming the file, the entry and the key), while a file that names one of Gatehouse's
secrets is still refused as a whole. And the health a broken entry has in every view."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from mcp_host.config import (
    ConfigError,
    ConfigProblem,
    NoUsableServersError,
    ServersConfig,
    load_servers_config,
    parse_servers_config,
)
from mcp_host.health import broken_entry

GOOD = {"command": "python", "args": ["-m", "server"]}


def _parsed(entries: Mapping[str, object]) -> tuple[list[str], list[ConfigProblem]]:
    config = parse_servers_config({"mcpServers": entries}, source="s.json", environ={}, skip_broken=True)
    return config.names(), config.problems


def test_a_broken_entry_is_a_problem_naming_file_entry_and_key_and_the_others_load() -> None:
    names, problems = _parsed({"first": GOOD, "typo": {"command": "x", "argz": []}, "last": GOOD})

    assert names == ["first", "last"]
    assert [(p.entry, p.message) for p in problems] == [
        ("typo", "s.json: mcpServers.typo.argz: unknown key for a stdio server (did you mean 'args'?)")
    ]


def test_every_broken_entry_is_kept_in_the_files_order() -> None:
    names, problems = _parsed(
        {"unset": {"command": "${NOT_SET_HERE}"}, "ok": GOOD, "ftp": {"type": "http", "url": "ftp://x"}}
    )

    assert names == ["ok"]
    assert [p.entry for p in problems] == ["unset", "ftp"]
    assert "environment variable NOT_SET_HERE is not set" in problems[0].reason


def test_of_two_names_that_read_as_one_the_second_is_the_broken_entry() -> None:
    names, problems = _parsed({"my-server": GOOD, "my_server": GOOD})

    assert names == ["my-server"]
    [problem] = problems
    assert problem.entry == "my_server" and "mcpServers.my-server" in problem.reason


def test_a_file_none_of_whose_entries_loads_is_one_error_naming_every_entrys_problem() -> None:
    config = parse_servers_config(
        {"mcpServers": {"typo": {"comand": "x"}, "unset": {"command": "${NOT_SET_HERE}"}}},
        source="s.json",
        environ={},
        skip_broken=True,
    )

    error = config.unusable()

    assert isinstance(error, NoUsableServersError)
    assert error.lines == [
        "s.json: none of the 2 entries could be used; each one's problem:",
        "s.json: mcpServers.typo.comand: unknown key 'comand' (did you mean 'command'?): a server needs a"
        " command (stdio) or a url (http)",
        "s.json: mcpServers.unset.command: environment variable NOT_SET_HERE is not set",
    ]
    assert str(error) == "\n".join(error.lines)
    assert error.problems == config.problems


def test_a_file_of_one_broken_entry_is_that_entrys_error() -> None:
    config = parse_servers_config(
        {"mcpServers": {"typo": {"comand": "x"}}}, source="s.json", environ={}, skip_broken=True
    )

    error = config.unusable()

    assert type(error) is ConfigError
    assert error.lines == [config.problems[0].message]


def test_a_file_with_one_usable_entry_is_usable() -> None:
    config = parse_servers_config(
        {"mcpServers": {"typo": {"comand": "x"}, "ok": GOOD}}, source="s.json", environ={}, skip_broken=True
    )

    assert config.unusable() is None


def test_a_file_naming_a_gatehouse_secret_is_refused_as_a_whole_even_skipping_broken_entries() -> None:
    entries = {"fine": GOOD, "greedy": {"command": "x", "args": ["${GATEHOUSE_SECRET_KEY}"]}}

    with pytest.raises(ConfigError, match=r"mcpServers\.greedy\.args: \$\{GATEHOUSE_SECRET_KEY\}"):
        _parsed(entries)


def test_without_skip_broken_the_first_broken_entry_raises() -> None:
    with pytest.raises(ConfigError, match=r"mcpServers\.typo\.argz"):
        parse_servers_config({"mcpServers": {"typo": {"command": "x", "argz": []}}}, source="s.json")


def test_a_broken_entry_is_not_started_and_failed_with_its_problem_as_the_last_error() -> None:
    _, [problem] = _parsed({"typo": {"command": "x", "argz": []}})

    health = broken_entry(problem)

    assert (health.name, health.connection, health.verdict) == ("typo", "not_started", "failed")
    assert (
        health.last_error
        == "s.json: mcpServers.typo.argz: unknown key for a stdio server (did you mean 'args'?)"
    )


def _read(tmp_path: Path, text: str) -> ServersConfig:
    path = tmp_path / "servers.json"
    path.write_text(text, encoding="utf-8")
    return load_servers_config(path, environ={}, skip_broken=True)


def test_of_one_name_given_twice_the_first_loads_and_the_second_is_its_own_broken_entry(
    tmp_path: Path,
) -> None:
    # JSON itself keeps the last of two equal names without a word: the file is read as written.
    config = _read(
        tmp_path,
        '{"mcpServers": {"crm": {"command": "trusted-crm"}, "other": {"command": "x"},'
        ' "crm": {"command": "impostor"}, "crm": {"command": "third"}}}',
    )

    assert config.names() == ["crm", "other"]
    assert config.describe()["servers"]["crm"]["command"] == "trusted-crm"
    path = tmp_path / "servers.json"
    assert [(p.entry, p.message) for p in config.problems] == [
        (
            "crm (2nd)",
            f"{path}: mcpServers.crm (2nd): mcpServers.crm is given 2 times in the file: the first loads"
            " and this one is left out; rename it or remove it",
        ),
        (
            "crm (3rd)",
            f"{path}: mcpServers.crm (3rd): mcpServers.crm is given 3 times in the file: the first loads"
            " and this one is left out; rename it or remove it",
        ),
    ]


def test_a_key_given_twice_inside_an_entry_costs_that_entry_naming_the_key(tmp_path: Path) -> None:
    config = _read(
        tmp_path,
        '{"mcpServers": {"good": {"command": "x"},'
        ' "shell": {"command": "sh", "env": {"ALLOW": "ls", "ALLOW": "rm"}}}}',
    )

    assert config.names() == ["good"]
    [problem] = config.problems
    assert problem.entry == "shell"
    assert problem.where == f"{tmp_path / 'servers.json'}: mcpServers.shell.env.ALLOW"
    assert problem.reason.startswith("is named twice in one object")


def test_a_servers_object_given_twice_refuses_the_whole_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"'mcpServers' is named twice at the top level"):
        _read(tmp_path, '{"mcpServers": {"a": {"command": "x"}}, "mcpServers": {"b": {"command": "y"}}}')


def test_without_skip_broken_a_name_given_twice_raises_naming_the_repeat(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text('{"mcpServers": {"crm": {"command": "a"}, "crm": {"command": "b"}}}', encoding="utf-8")

    with pytest.raises(ConfigError, match=r"mcpServers\.crm \(2nd\): mcpServers\.crm is given 2 times"):
        load_servers_config(path, environ={})
