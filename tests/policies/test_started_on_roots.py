"""A user's own servers file, as written for other hosts: a file server started on the team's
folder (the folder as its argument, no `roots` key) with the shipped policy unchanged. The
folder it is started on stands for its roots: writes there go to a reviewer, paths elsewhere
are refused, and every message says where the roots came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gatehouse.wiring import declared_roots
from mcp_host.config import parse_servers_config
from mcp_host.manifest import Capability
from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY, load_policy


def write_file(server: str) -> Capability:
    schema = {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}
    return Capability(
        key=f"{server}__write_file",
        server=server,
        type="tool",
        name="write_file",
        description="Write a text file.",
        input_schema=schema,
    )


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    (folder / "demo" / "project").mkdir(parents=True)
    return folder


def engine(data: Path, entries: dict[str, Any], **paths: object) -> PolicyEngine:
    policy = load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": str(data)})
    if paths:
        policy = policy.model_copy(update={"paths": policy.paths.model_copy(update=paths)})
    servers = parse_servers_config({"mcpServers": entries}, source="servers.json", environ={})
    return PolicyEngine(policy, declared_roots=declared_roots(servers))


def filesystem_on(folder: Path) -> dict[str, Any]:
    return {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", str(folder)]}


def test_a_write_in_the_folder_a_server_is_started_on_is_reviewed_and_one_elsewhere_refused(
    tmp_path: Path, data: Path
) -> None:
    team, elsewhere = tmp_path / "team", tmp_path / "elsewhere"
    team.mkdir()
    elsewhere.mkdir()
    policy = engine(data, {"files": filesystem_on(team)})

    inside = policy.evaluate(write_file("files"), {"path": str(team / "todo.txt"), "content": "x"}).decision
    outside = policy.evaluate(
        write_file("files"), {"path": str(elsewhere / "todo.txt"), "content": "x"}
    ).decision

    assert inside.action == "review", inside.explanation
    assert inside.rule == "file writes"
    assert not [flag for flag in inside.flags if flag.code.startswith("path_")]
    assert outside.action == "deny"
    assert outside.explanation == (
        f"rule file writes: argument path: '{elsewhere / 'todo.txt'}' resolves outside the folders"
        f" server 'files' is started on (from its arguments) ({team.resolve()})"
    )


def test_the_demo_project_stays_out_of_reach_of_a_server_started_on_the_teams_folder(
    tmp_path: Path, data: Path
) -> None:
    team = tmp_path / "team"
    team.mkdir()
    policy = engine(data, {"files": filesystem_on(team)})

    demo = policy.evaluate(
        write_file("files"), {"path": str(data / "demo" / "project" / "notes.md"), "content": "x"}
    ).decision

    assert demo.action == "deny"


def test_a_server_started_on_a_home_directory_is_held_to_the_policys_roots(
    tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "ada"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    policy = engine(data, {"files": filesystem_on(home)})

    decision = policy.evaluate(write_file("files"), {"path": str(home / "todo.txt"), "content": "x"}).decision

    assert decision.action == "deny"
    assert decision.explanation.endswith(f"the policy's [paths] roots ({data / 'demo' / 'project'})")


def test_a_folder_that_does_not_exist_is_no_root(tmp_path: Path, data: Path) -> None:
    policy = engine(data, {"files": filesystem_on(tmp_path / "not-yet")})

    assert policy.roots_for("files").origin == "the policy's [paths] roots"


def test_declared_roots_and_the_policys_roots_for_the_server_win_over_the_folder_it_is_started_on(
    tmp_path: Path, data: Path
) -> None:
    team, declared, named = tmp_path / "team", tmp_path / "declared", tmp_path / "named"
    for folder in (team, declared, named):
        folder.mkdir()
    entries = {
        "a": filesystem_on(team) | {"roots": [str(declared)]},
        "b": filesystem_on(team),
    }

    policy = engine(data, entries, servers={"b": [str(named)]})

    assert policy.roots_for("a").paths == (str(declared.resolve()),)
    assert policy.roots_for("b").paths == (str(named),)


def test_the_policys_roots_inside_the_folder_a_server_is_started_on_narrow_it(data: Path) -> None:
    # The bundled demo servers are started on the demo data folder: paths stay in its project.
    policy = engine(data, {"filesystem": {"command": "python", "args": ["--data-dir", str(data / "demo")]}})

    roots = policy.roots_for("filesystem")

    assert roots.paths == (str(data / "demo" / "project"),)
    assert roots.origin == (
        "the policy's [paths] roots inside the folders server 'filesystem' is started on (from its arguments)"
    )
