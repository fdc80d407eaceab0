"""A server's path arguments are held to the roots its entry in the servers file declares,
unless the policy names roots for that server itself; every message says which roots and why."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_host.config import parse_servers_config
from mcp_host.manifest import Capability
from policies.constraints import DeclaredRoots
from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY, PolicyError, load_policy, parse_policy


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
def folders(tmp_path: Path) -> dict[str, Path]:
    named = {name: tmp_path / name for name in ("data", "mine", "shared", "elsewhere")}
    for folder in named.values():
        folder.mkdir()
    (named["data"] / "demo" / "project").mkdir(parents=True)
    return named


def shipped_engine(folders: dict[str, Path], **paths: object) -> PolicyEngine:
    """The shipped policy (its [paths] roots: the demo folder), the user's servers file
    declaring roots for 'fs' only, and optionally more [paths] settings."""
    policy = load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": str(folders["data"])})
    if paths:
        policy = policy.model_copy(update={"paths": policy.paths.model_copy(update=paths)})
    servers = parse_servers_config(
        {
            "mcpServers": {
                "fs": {"command": "npx", "roots": [str(folders["mine"])]},
                "other": {"command": "x"},
            }
        },
        source="servers.json",
        environ={},
    )
    return PolicyEngine(policy, declared_roots=DeclaredRoots("servers.json", servers.declared_roots()))


def test_a_write_under_the_servers_declared_root_is_reviewed_and_one_elsewhere_refused(
    folders: dict[str, Path],
) -> None:
    engine = shipped_engine(folders)
    mine, elsewhere = folders["mine"] / "todo.txt", folders["elsewhere"] / "todo.txt"

    inside = engine.evaluate(write_file("fs"), {"path": str(mine), "content": "x"}).decision
    outside = engine.evaluate(write_file("fs"), {"path": str(elsewhere), "content": "x"}).decision

    assert inside.action == "review"
    assert inside.rule == "file writes"
    assert not [flag for flag in inside.flags if flag.code.startswith("path_")]
    assert outside.action == "deny"
    assert outside.explanation == (
        f"rule file writes: argument path: '{elsewhere}' resolves outside the roots declared for"
        f" server 'fs' in servers.json ({folders['mine']})"
    )


def test_the_policys_own_roots_no_longer_hold_a_server_that_declares_its_own(
    folders: dict[str, Path],
) -> None:
    engine = shipped_engine(folders)
    demo_file = folders["data"] / "demo" / "project" / "notes.md"

    decision = engine.evaluate(write_file("fs"), {"path": str(demo_file), "content": "x"}).decision

    assert decision.action == "deny"
    assert "outside the roots declared for server 'fs' in servers.json" in decision.explanation


def test_a_server_declaring_no_roots_is_held_to_the_policys_paths_roots(folders: dict[str, Path]) -> None:
    engine = shipped_engine(folders)
    demo_root = folders["data"] / "demo" / "project"

    inside = engine.evaluate(
        write_file("other"), {"path": str(demo_root / "notes.md"), "content": "x"}
    ).decision
    outside = engine.evaluate(
        write_file("other"), {"path": str(folders["mine"] / "todo.txt"), "content": "x"}
    ).decision

    assert inside.action == "review"
    assert outside.action == "deny"
    assert outside.explanation.endswith(f"resolves outside the policy's [paths] roots ({demo_root})")


def test_roots_the_policy_names_for_a_server_win_over_the_ones_it_declares(folders: dict[str, Path]) -> None:
    engine = shipped_engine(folders, servers={"fs": [str(folders["shared"])]})

    declared = engine.evaluate(
        write_file("fs"), {"path": str(folders["mine"] / "todo.txt"), "content": "x"}
    ).decision
    named = engine.evaluate(
        write_file("fs"), {"path": str(folders["shared"] / "todo.txt"), "content": "x"}
    ).decision

    assert declared.action == "deny"
    assert declared.explanation.endswith(
        f"resolves outside the policy's roots for server 'fs' ([paths.servers]) ({folders['shared']})"
    )
    assert named.action == "review"


def test_relative_paths_are_taken_from_the_first_declared_root(folders: dict[str, Path]) -> None:
    engine = shipped_engine(folders)

    decision = engine.evaluate(write_file("fs"), {"path": "todo.txt", "content": "x"}).decision

    assert decision.action == "review"


def test_paths_servers_in_a_policy_file_are_read_and_an_empty_list_is_refused() -> None:
    base = {"paths": {"roots": ["/srv"], "servers": {"fs": ["/home/me/notes"]}}}

    assert parse_policy(base, source="p.toml", variables={}).paths.servers == {"fs": ["/home/me/notes"]}
    with pytest.raises(PolicyError) as caught:
        parse_policy({"paths": {"roots": ["/srv"], "servers": {"fs": []}}}, source="p.toml", variables={})
    assert caught.value.where == "p.toml: paths"
    assert "servers.fs: an empty list would refuse every path" in caught.value.reason
