"""A relative path argument is held inside the server's roots however the server reads it. A
server given its folders (as roots, or in its arguments) reads it from them, as the reference
filesystem server does; one given none, held only by the policy's roots, can only read it from
the folder it runs in. Checking it against the policy's first root alone let a reviewed
"notes.md" be written wherever Gatehouse had been started."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gatehouse.display.policy_report import explain, roots_line
from gatehouse.wiring import declared_roots
from mcp_host.config import parse_servers_config
from mcp_host.manifest import Capability, Manifest, ServerManifest
from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY, load_policy
from tests.policies.test_declared_roots import write_file


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The shipped policy's root (the demo project), a team folder, a subfolder of each, and
    the folder Gatehouse is started in (elsewhere: the test process's working folder)."""
    named = {
        "data": tmp_path / "data",
        "project": tmp_path / "data" / "demo" / "project",
        "team": tmp_path / "team",
        "elsewhere": tmp_path / "gatehouse",
    }
    for folder in named.values():
        folder.mkdir(parents=True, exist_ok=True)
    named["drafts"] = named["project"] / "drafts"
    named["drafts"].mkdir()
    monkeypatch.chdir(named["elsewhere"])
    return named


def engine_for(place: dict[str, Path], entry: dict[str, object], **paths: object) -> PolicyEngine:
    """The shipped policy (optionally with more [paths] settings) and a servers file with one
    server, 'notes', as ``entry`` says."""
    policy = load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": str(place["data"])})
    if paths:
        policy = policy.model_copy(update={"paths": policy.paths.model_copy(update=paths)})
    config = parse_servers_config({"mcpServers": {"notes": entry}}, source="servers.json", environ={})
    return PolicyEngine(policy, declared_roots=declared_roots(config))


def outside(engine: PolicyEngine, path: str) -> list[str]:
    decision = engine.evaluate(write_file("notes"), {"path": path, "content": "x"}).decision
    return [flag.message for flag in decision.flags if flag.code == "path_outside_roots"]


def test_a_relative_path_is_refused_when_a_server_given_no_folder_runs_outside_the_roots(
    place: dict[str, Path],
) -> None:
    engine = engine_for(place, {"command": "notes-server"})

    decision = engine.evaluate(write_file("notes"), {"path": "notes.md", "content": "x"}).decision

    assert decision.action == "deny"
    assert outside(engine, "notes.md") == [
        f"argument path: 'notes.md' is relative, and the server, given no folder of its own, reads it"
        f" from the folder it runs in ({place['elsewhere']}: its entry's cwd, else the folder Gatehouse"
        f" was started in), which puts it outside the policy's [paths] roots ({place['project']})"
    ]


@pytest.mark.parametrize("cwd", ["project", "drafts"])
def test_a_relative_path_is_reviewed_when_a_server_given_no_folder_runs_inside_the_roots(
    place: dict[str, Path], cwd: str
) -> None:
    engine = engine_for(place, {"command": "notes-server", "cwd": str(place[cwd])})

    decision = engine.evaluate(write_file("notes"), {"path": "notes.md", "content": "x"}).decision

    assert decision.action == "review"
    assert outside(engine, "notes.md") == []


def test_the_policys_own_roots_for_a_server_given_no_folder_are_held_the_same_way(
    place: dict[str, Path],
) -> None:
    engine = engine_for(place, {"command": "notes-server"}, servers={"notes": [str(place["team"])]})

    assert outside(engine, "notes.md") != []
    assert outside(engine, str(place["team"] / "notes.md")) == []


@pytest.mark.parametrize("given", ["argument", "roots"])
def test_a_server_given_its_folder_reads_a_relative_path_from_it_wherever_it_runs(
    place: dict[str, Path], given: str
) -> None:
    """The reference filesystem server, started on the team's folder from anywhere: its writes
    are reviewed, not refused (the first hour of a team with its own servers)."""
    entry: dict[str, object] = {"command": "server-filesystem"}
    entry |= {"args": [str(place["team"])]} if given == "argument" else {"roots": [str(place["team"])]}
    engine = engine_for(place, entry)

    decision = engine.evaluate(write_file("notes"), {"path": "notes.md", "content": "x"}).decision

    assert decision.action == "review"
    assert engine.roots_for("notes").working_folder is None
    assert outside(engine, "notes.md") == []
    assert outside(engine, str(place["elsewhere"] / "notes.md")) != []


def test_a_relative_path_through_a_link_out_of_any_root_is_refused(place: dict[str, Path]) -> None:
    """Each root is a place the server may read a relative path from, not only the first."""
    other = place["team"].parent / "other"
    other.mkdir()
    (other / "out").symlink_to(place["elsewhere"])
    engine = engine_for(place, {"command": "server-filesystem", "roots": [str(place["team"]), str(other)]})

    assert outside(engine, "out/notes.md") != []
    assert outside(engine, "notes.md") == []


def test_a_remote_server_is_held_to_its_roots_alone(place: dict[str, Path]) -> None:
    """Where a remote server runs is on another machine: only its roots place a relative path."""
    engine = engine_for(place, {"type": "http", "url": "http://127.0.0.1:9/mcp"})

    assert engine.roots_for("notes").working_folder is None
    assert outside(engine, "notes.md") == []


def test_the_working_folder_is_the_entrys_cwd_else_the_one_gatehouse_was_started_in(
    place: dict[str, Path],
) -> None:
    config = parse_servers_config(
        {"mcpServers": {"plain": {"command": "x"}, "placed": {"command": "x", "cwd": str(place["team"])}}},
        source="servers.json",
        environ={},
    )

    roots = declared_roots(config)

    assert roots is not None
    assert roots.working_folders == {"plain": os.getcwd(), "placed": str(place["team"])}


def test_policy_explain_and_the_servers_page_say_why_relative_paths_are_refused(
    place: dict[str, Path],
) -> None:
    engine = engine_for(place, {"command": "notes-server"})
    capability: Capability = write_file("notes")
    manifest = Manifest(servers=[ServerManifest(name="notes", ok=True, capabilities=[capability])])

    report = explain(engine, manifest, capability.key, {"path": "notes.md", "content": "x"})

    assert report["roots"]["working_folder"] == str(place["elsewhere"])
    assert any(
        note.startswith("server 'notes' is given no folder of its own")
        and f"reads a relative path from where it runs, {place['elsewhere']}" in note
        and "set the entry's cwd" in note
        for note in report["roots"]["notes"]
    )
    assert f"it runs in {place['elsewhere']}, outside them, so a relative path is refused" in roots_line(
        engine, "notes"
    )
    placed = engine_for(place, {"command": "notes-server", "cwd": str(place["project"])})
    assert "runs in" not in roots_line(placed, "notes")
    assert explain(placed, manifest, capability.key, {"path": "notes.md"})["roots"]["notes"] == [
        note for note in report["roots"]["notes"] if "no folder of its own" not in note
    ]


def test_a_server_started_on_a_data_folder_it_has_not_created_yet_is_not_held_to_where_it_runs(
    place: dict[str, Path],
) -> None:
    """The bundled servers on the first `make run`: their data folder appears when they start,
    and their relative paths are read inside it, not from the folder Gatehouse runs in."""
    fresh = place["data"] / "fresh"
    engine = engine_for(place, {"command": "python", "args": ["-m", "demo", "--data-dir", str(fresh)]})
    program_only = engine_for(
        place, {"command": "uv", "args": ["--directory", str(place["team"]), "run", "s"]}
    )

    assert engine.roots_for("notes").working_folder is None
    assert outside(engine, "notes.md") == []
    # A launcher's program folder is where the server's code lives, not a folder it is given.
    assert program_only.roots_for("notes").working_folder == str(place["elsewhere"])
