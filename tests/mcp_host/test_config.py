"""Servers files in the formats users already have; every mistake named precisely."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_host.config import ConfigError, HttpServer, StdioServer, load_servers_config, parse_servers_config


def write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def test_claude_desktop_stdio_entries_are_read_with_command_args_env_and_cwd(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "mcpServers": {
                "files": {
                    "command": "npx",
                    "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv"],
                    "env": {"TOKEN": "${FILES_TOKEN}"},
                    "cwd": "work",
                }
            }
        },
    )

    config = load_servers_config(path, environ={"FILES_TOKEN": "s3cret"})

    (entry,) = config.servers
    assert isinstance(entry, StdioServer)
    assert (entry.name, entry.command) == ("files", "npx")
    assert entry.args == ["-y", "@modelcontextprotocol/server-filesystem", "/srv"]
    assert entry.env["TOKEN"].get_secret_value() == "s3cret"
    assert entry.cwd == str((tmp_path / "work").resolve())


def test_mcp_json_http_entries_keep_url_and_expanded_headers() -> None:
    data = {
        "mcpServers": {
            "remote": {
                "type": "http",
                "url": "https://mcp.example.test/mcp",
                "headers": {"Authorization": "Bearer ${T}"},
            }
        }
    }

    config = parse_servers_config(data, source="x.json", environ={"T": "tok"})

    (entry,) = config.servers
    assert isinstance(entry, HttpServer)
    assert entry.url == "https://mcp.example.test/mcp"
    assert entry.headers["Authorization"].get_secret_value() == "Bearer tok"


def test_vs_code_servers_key_with_typed_entries_is_accepted() -> None:
    data = {
        "servers": {
            "git": {"type": "stdio", "command": "uvx", "args": ["mcp-server-git"]},
            "docs": {"type": "http", "url": "http://127.0.0.1:9000/mcp"},
        }
    }

    config = parse_servers_config(data, source="settings.json", environ={"X": "1"})

    assert [type(s).__name__ for s in config.servers] == ["StdioServer", "HttpServer"]
    assert config.names() == ["git", "docs"]


def test_vs_code_env_prefix_expands_like_a_plain_variable() -> None:
    data = {"servers": {"git": {"command": "uvx", "args": ["--repo", "${env:REPO}"]}}}

    config = parse_servers_config(data, source="s.json", environ={"REPO": "/code"})

    assert isinstance(config.servers[0], StdioServer)
    assert config.servers[0].args == ["--repo", "/code"]


def test_disabled_entries_are_left_out() -> None:
    data = {"mcpServers": {"on": {"command": "a"}, "off": {"command": "b", "disabled": True}}}

    assert parse_servers_config(data, source="s.json", environ={}).names() == ["on"]


def test_secrets_never_show_in_repr_dump_or_description() -> None:
    data = {
        "mcpServers": {
            "a": {"command": "run", "env": {"API_KEY": "${KEY}"}},
            "b": {
                "type": "http",
                "url": "https://user:pw@mcp.example.test/",
                "headers": {"X-Token": "${KEY}"},
            },
        }
    }

    config = parse_servers_config(data, source="s.json", environ={"KEY": "hunter2-secret"})

    for text in (repr(config), str(config), config.model_dump_json(), json.dumps(config.describe())):
        assert "hunter2-secret" not in text
        assert ":pw@" not in json.dumps(config.describe())
    assert config.describe()["servers"]["a"]["env"] == {"API_KEY": "***"}


@pytest.mark.parametrize(
    ("data", "where", "reason"),
    [
        ([], "s.json", "top level must be a JSON object"),
        ({"other": {}}, "s.json", "no 'mcpServers'"),
        ({"mcpServers": []}, "s.json: mcpServers", "object of named servers"),
        ({"mcpServers": {"a": "npx"}}, "s.json: mcpServers.a", "must be an object"),
        ({"mcpServers": {"a": {"type": "stdio"}}}, "s.json: mcpServers.a.command", "needs a command"),
        (
            {"mcpServers": {"a": {"command": "x", "args": "-y"}}},
            "s.json: mcpServers.a.args",
            "list of strings",
        ),
        (
            {"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}},
            "s.json: mcpServers.a.env",
            "string values",
        ),
        (
            {"mcpServers": {"a": {"command": "x", "env": {"K": "${MISSING}"}}}},
            "mcpServers.a.env.K",
            "MISSING",
        ),
        ({"mcpServers": {"a": {"command": "x", "colour": "red"}}}, "mcpServers.a.colour", "unknown key"),
        ({"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}}}, "mcpServers.a.type", "deprecated"),
        ({"mcpServers": {"a": {"type": "ws", "url": "ws://h"}}}, "mcpServers.a.type", "unknown server type"),
        (
            {"mcpServers": {"a": {"type": "http", "url": "ftp://h"}}},
            "mcpServers.a.url",
            "http:// or https://",
        ),
        ({"mcpServers": {"my__srv": {"command": "x"}}}, "mcpServers.my__srv", "no '__'"),
        ({"mcpServers": {"a": {"command": "x", "envFile": ".env"}}}, "mcpServers.a.envFile", "not supported"),
    ],
)
def test_invalid_configuration_names_the_file_the_entry_and_the_reason(
    data: Any, where: str, reason: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_servers_config(data, source="s.json", environ={})

    assert where in str(caught.value)
    assert reason in str(caught.value)
    assert str(caught.value).startswith("s.json")


def test_a_file_that_is_not_json_is_reported_with_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, '{"mcpServers": {\n  "a": {"command": "x",}\n}}')

    with pytest.raises(ConfigError, match=r"servers.json: not valid JSON: .* line 2"):
        load_servers_config(path)


def test_a_missing_file_is_reported_by_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nowhere\.json: cannot read the file"):
        load_servers_config(tmp_path / "nowhere.json")


def test_a_per_server_timeout_is_read_and_checked() -> None:
    config = parse_servers_config(
        {"mcpServers": {"slow": {"command": "x", "timeout": 90}}}, source="s.json", environ={}
    )

    assert config.servers[0].timeout == 90.0
    with pytest.raises(ConfigError, match=r"mcpServers\.slow\.timeout: must be a positive number"):
        parse_servers_config(
            {"mcpServers": {"slow": {"command": "x", "timeout": "1m"}}}, source="s.json", environ={}
        )


@pytest.mark.parametrize("timeout", [1e400, 10**12, 86401])
def test_a_timeout_beyond_a_day_or_infinite_is_refused(timeout: float) -> None:
    with pytest.raises(ConfigError, match=r"mcpServers\.slow\.timeout: must be at most 86400 seconds"):
        parse_servers_config(
            {"mcpServers": {"slow": {"command": "x", "timeout": timeout}}}, source="s.json", environ={}
        )


def test_a_file_nested_past_the_limit_is_reported_with_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, '{"mcpServers": {"a": {"command": "x", "args": ' + "[" * 70 + "]" * 70 + "}}}")

    with pytest.raises(
        ConfigError, match=r"servers.json: nested deeper than 64 levels at line 1, column \d+"
    ):
        load_servers_config(path)


def test_a_file_that_is_not_utf8_is_reported_with_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_bytes(b'{"mcpServers": {"caf\xe9": {"command": "x"}}}')

    with pytest.raises(ConfigError, match=r"servers.json: not valid UTF-8 \(byte 20 of the file\)"):
        load_servers_config(path)


@pytest.mark.parametrize(
    ("entry", "where", "reason"),
    [
        pytest.param(
            {"command": "x", "args": "--db-path /tmp/shop.db"},
            "args",
            'must be a list of strings, not the string "--db-path /tmp/shop.db"'
            ' (e.g. "args": ["--db-path", "/tmp/shop.db"])',
            id="args-as-one-string",
        ),
        pytest.param(
            {"command": "x", "args": ["-y", 3]},
            "args",
            "must be a list of strings, not a list holding the number 3",
            id="args-with-a-number",
        ),
        pytest.param(
            {"command": "x", "timeout": "90"},
            "timeout",
            'must be a positive number of seconds, not the string "90" (write "timeout": 90, without quotes)',
            id="quoted-timeout",
        ),
        pytest.param(
            {"command": "x", "timeout": True},
            "timeout",
            "must be a positive number of seconds, not true",
            id="boolean-timeout",
        ),
    ],
)
def test_a_value_of_the_wrong_type_is_named_with_what_was_given(
    entry: dict[str, Any], where: str, reason: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_servers_config({"mcpServers": {"shop": entry}}, source="s.json", environ={})

    assert caught.value.where == f"s.json: mcpServers.shop.{where}"
    assert caught.value.reason == reason
