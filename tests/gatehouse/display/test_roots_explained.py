"""`policy explain` and the Servers page on a team's own server (issue 30's first hour): the
roots they show say whether they belong to this server at all, and a root the policy names that
does not exist on this machine is marked missing, never shown as a folder the server works in.
The decision itself is untouched: a missing root still holds path arguments (nothing widens)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gatehouse.display.policy_report import explain, render_explanation, roots_line
from gatehouse.wiring import declared_roots
from mcp_host.config import parse_servers_config
from mcp_host.manifest import Capability, Manifest, ServerManifest
from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY, load_policy
from tests.policies.test_declared_roots import write_file


def _engine(data: Path, entries: dict[str, Any]) -> PolicyEngine:
    # The shipped policy, whose [paths] roots are the demo project under the data folder.
    policy = load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": str(data)})
    servers = parse_servers_config({"mcpServers": entries}, source="team.mcp.json", environ={})
    return PolicyEngine(policy, declared_roots=declared_roots(servers))


def _manifest(*capabilities: Capability) -> Manifest:
    servers = {c.server for c in capabilities}
    return Manifest(
        servers=[
            ServerManifest(name=name, ok=True, capabilities=[c for c in capabilities if c.server == name])
            for name in sorted(servers)
        ]
    )


def test_a_team_server_held_to_a_demo_root_that_does_not_exist_is_told_so_and_why(tmp_path: Path) -> None:
    data = tmp_path / "data"  # no demo/project in it: a team's data folder
    engine = _engine(data, {"shell": {"command": "mcp-shell-server"}})
    demo = data / "demo" / "project"

    report = explain(
        engine, _manifest(write_file("shell")), "shell__write_file", {"path": "/etc/x", "content": ""}
    )
    text = render_explanation(report)

    assert report["roots"]["missing"] == [str(demo)]
    assert f"  roots: {demo} (missing) (the policy's [paths] roots)" in text
    assert "server 'shell' has no folders of its own" in text
    assert f"{demo} does not exist on this machine" in text
    assert roots_line(engine, "shell") == f"Paths stay in: {demo} (missing) (the policy's [paths] roots)"
    # Nothing widens: a path elsewhere still fails the roots, missing or not.
    assert report["action"] == "deny"
    assert "path_outside_roots" in [flag["code"] for flag in report["flags"]]


def test_a_server_started_on_its_own_folder_shows_that_folder_and_no_catch_all_note(tmp_path: Path) -> None:
    team = tmp_path / "team"
    team.mkdir()
    entry = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", str(team)]}
    engine = _engine(tmp_path / "data", {"files": entry})

    arguments = {"path": str(team / "plan.md"), "content": ""}
    report = explain(engine, _manifest(write_file("files")), "files__write_file", arguments)

    assert report["roots"]["paths"] == [str(team)] and report["roots"]["missing"] == []
    assert report["roots"]["notes"] == []
    assert "(missing)" not in render_explanation(report)
