"""The issue's user, as they configure every other host: @modelcontextprotocol/server-filesystem
started on the team's folder (the folder its only argument, no `roots` key), the shipped policy
unchanged. Writes in the folder wait for a reviewer, reads run, paths elsewhere are refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gatehouse.settings import Settings
from gatehouse.wiring import Services, open_services
from tests.cli_support import run_cli
from tests.interop.peers import filesystem_server


@dataclass
class Team:
    folder: Path
    elsewhere: Path
    servers: Path
    data: Path
    services: Services


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    base = tmp_path_factory.mktemp("team")
    folder, elsewhere, data = base / "project", base / "elsewhere", base / "data"
    for made in (folder, elsewhere, data):
        made.mkdir()
    (folder / "notes.txt").write_text("standup at ten\n", encoding="utf-8")
    started = filesystem_server(folder)
    servers = base / "servers.json"
    entry = {"command": started.command, "args": started.args}
    servers.write_text(json.dumps({"mcpServers": {"team-files": entry}}), encoding="utf-8")
    settings = Settings(data_dir=data, db_path=data / "gatehouse.db", servers_path=servers)
    with open_services(settings) as services:
        yield Team(folder.resolve(), elsewhere.resolve(), servers, data, services)


def test_a_write_in_the_folder_the_server_is_started_on_waits_for_a_reviewer(team: Team) -> None:
    target = team.folder / "todo.txt"

    paused = team.services.requests.ask(f"Write 'remember the milk' to {target}")

    final = paused.final_output
    assert final.status == "needs_review", final.response
    assert final.selected_capability is not None
    assert final.selected_capability.name == "write_file"
    assert final.review is not None
    assert not [flag for flag in final.review.flags if flag.code.startswith("path_")]
    assert not target.exists()


def test_an_edit_stated_in_words_waits_for_a_reviewer_with_its_replacement_not_a_question(
    team: Team,
) -> None:
    target = team.folder / "notes.txt"

    paused = team.services.requests.ask(f"In {target}, change 'standup at ten' to 'standup at eleven'")

    final = paused.final_output
    assert final.status == "needs_review", final.response
    assert final.selected_capability is not None
    assert final.selected_capability.name == "edit_file"
    assert paused.pending is not None
    assert paused.pending["arguments"]["edits"] == [
        {"oldText": "standup at ten", "newText": "standup at eleven"}
    ]
    assert paused.pending["argument_provenance"]["edits"]["kind"] == "stated"
    assert target.read_text(encoding="utf-8") == "standup at ten\n"


def test_a_read_in_that_folder_runs(team: Team) -> None:
    done = team.services.requests.ask(f"Read the file {team.folder / 'notes.txt'}")

    assert done.final_output.status == "ok", done.final_output.response
    assert "standup at ten" in done.final_output.response


def test_a_write_outside_the_folder_is_refused_naming_where_the_roots_came_from(team: Team) -> None:
    target = team.elsewhere / "todo.txt"

    refused = team.services.requests.ask(f"Write 'remember the milk' to {target}")

    final = refused.final_output
    assert final.status == "error"
    assert (
        f"resolves outside the folders server 'team-files' is started on (from its arguments) ({team.folder})"
    ) in final.response
    assert not target.exists()


def test_policy_explain_shows_the_folder_as_the_servers_roots_and_where_it_came_from(team: Team) -> None:
    arguments = json.dumps({"path": str(team.folder / "todo.txt"), "content": "x"})
    env = {"GATEHOUSE_DATA": str(team.data), "GATEHOUSE_DB": None, "GATEHOUSE_POLICY": None}

    done = run_cli(
        "policy",
        "explain",
        "--servers",
        str(team.servers),
        "team-files__write_file",
        "--args",
        arguments,
        env=env,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("REVIEW  team-files__write_file  (rule: file writes")
    assert (
        f"  roots: {team.folder} (the folders server 'team-files' is started on (from its arguments))"
    ) in done.stdout.splitlines()
