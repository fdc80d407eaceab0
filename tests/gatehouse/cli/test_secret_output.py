"""`gatehouse servers check` shows where each server is without the credentials in its address:
a token in a URL's query, a password in its user part, a token on a command line."""

from __future__ import annotations

import json
import secrets
import string
import sys
from pathlib import Path

import pytest

from mcp_host.config import parse_servers_config
from tests.gatehouse.cli.test_cli import gatehouse


def made_up(length: int = 24) -> str:
    return "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(length))


@pytest.mark.processes
def test_servers_check_masks_tokens_in_server_urls_and_command_lines(tmp_path: Path) -> None:
    api_key, token, password, flag_token = made_up(), made_up(), made_up(), made_up()
    # Nothing listens on port 9: each remote server fails, and its error is printed too.
    entries = {
        "keyed": {"type": "http", "url": f"http://127.0.0.1:9/mcp?api_key={api_key}&region=eu"},
        "tokened": {"type": "http", "url": f"http://127.0.0.1:9/mcp?token={token}"},
        "userinfo": {"type": "http", "url": f"http://admin:{password}@127.0.0.1:9/mcp"},
        "flagged": {
            "command": sys.executable,
            "args": ["-m", "servers.greeter", "--data-dir", str(tmp_path), "--token", flag_token],
        },
    }
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")

    done = {
        fmt: gatehouse(tmp_path, "servers", "check", "--servers", str(config), *extra)
        for fmt, extra in (("json", ["--json"]), ("text", []))
    }

    assert done["json"].returncode == 0, done["json"].stderr
    leaks = [
        (fmt, i)
        for fmt, run in done.items()
        for i, s in enumerate((api_key, token, password, flag_token))
        if s in run.stdout + run.stderr
    ]
    assert leaks == []
    shown = {s["name"]: s["transport"] for s in json.loads(done["json"].stdout)["servers"]}
    assert shown["keyed"]["url"] == "http://127.0.0.1:9/mcp?api_key=***&region=eu"
    assert shown["tokened"]["url"] == "http://127.0.0.1:9/mcp?token=***"
    assert shown["userinfo"]["url"] == "http://***@127.0.0.1:9/mcp"
    assert shown["flagged"]["args"][-2:] == ["--token", "***"]


def test_a_servers_description_keeps_ordinary_urls_and_arguments_as_they_are(tmp_path: Path) -> None:
    entries = {
        "remote": {"type": "http", "url": "https://mcp.example.com/mcp?region=eu&page=2"},
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv/share"]},
    }

    described = parse_servers_config({"mcpServers": entries}, source="servers.json").describe()["servers"]

    assert described["remote"]["url"] == "https://mcp.example.com/mcp?region=eu&page=2"
    assert described["files"]["args"] == ["-y", "@modelcontextprotocol/server-filesystem", "/srv/share"]
