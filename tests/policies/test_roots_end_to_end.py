"""The issue's user: a file server pointed at their own folder, declared once as the server's
roots in the servers file, with the shipped policy unchanged. Through the services and the
graph as `gatehouse ask` runs them, over a real stdio server that asks the host for its roots."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gatehouse.settings import Settings
from gatehouse.wiring import Services, open_services
from tests.cli_support import run_cli
from tests.graph.routes import TO_REVIEW
from tests.mcp_host.helpers import REPO_ROOT

# Starts processes of its own (servers over stdio, the CLI): not in `make quick`.
pytestmark = pytest.mark.processes


@dataclass
class Workspace:
    data: Path
    mine: Path
    elsewhere: Path
    servers: Path


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    data, mine, elsewhere = tmp_path / "data", tmp_path / "mine", tmp_path / "elsewhere"
    for folder in (data, mine, elsewhere):
        folder.mkdir()
    entry = {
        "command": sys.executable,
        "args": ["-m", "tests.mcp_host.roots_server"],
        "cwd": str(REPO_ROOT),
        "roots": ["mine"],  # relative to the servers file, like cwd
    }
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"fs": entry}}), encoding="utf-8")
    return Workspace(data=data, mine=mine, elsewhere=elsewhere, servers=servers)


@pytest.fixture
def services(workspace: Workspace) -> Iterator[Services]:
    # No policy file: the shipped one, whose [paths] roots are the demo folder under data/.
    settings = Settings(
        data_dir=workspace.data, db_path=workspace.data / "gatehouse.db", servers_path=workspace.servers
    )
    with open_services(settings) as opened:
        yield opened


def test_a_write_under_the_declared_root_waits_for_a_reviewer_and_runs_once_approved(
    services: Services, workspace: Workspace
) -> None:
    target = workspace.mine / "todo.txt"

    paused = services.requests.ask(f"Write 'remember the milk' to {target}")

    final = paused.final_output
    assert final.status == "needs_review", final.response
    assert paused.path[: len(TO_REVIEW)] == TO_REVIEW
    assert paused.pending is not None
    assert paused.pending["arguments"]["path"] == str(target)
    assert not target.exists()
    assert final.review is not None
    assert not [flag for flag in final.review.flags if flag.code.startswith("path_")]

    done = services.reviews.decide(final.review.id, reviewer="reviewer", approve=True)

    assert done.run is not None
    assert done.run.final_output.status == "ok", done.run.final_output.response
    # The server checked the path against the roots it asked the host for, and wrote it.
    assert target.read_text(encoding="utf-8") == "remember the milk"


def test_a_write_outside_the_declared_root_is_refused_naming_the_roots_and_the_file(
    services: Services, workspace: Workspace
) -> None:
    target = workspace.elsewhere / "todo.txt"

    refused = services.requests.ask(f"Write 'remember the milk' to {target}")

    final = refused.final_output
    assert final.status == "error"
    assert (
        f"argument path: '{target}' resolves outside the roots declared for server 'fs'"
        f" in {workspace.servers} ({workspace.mine.resolve()})"
    ) in final.response
    assert final.review is None
    assert services.reviews.queue() == []
    assert not target.exists()


def test_policy_explain_checks_a_servers_paths_against_its_declared_roots(workspace: Workspace) -> None:
    env = {"GATEHOUSE_DATA": str(workspace.data), "GATEHOUSE_DB": None}

    def explain(path: Path) -> dict[str, object]:
        args = json.dumps({"path": str(path), "content": "x"})
        command = [
            "policy",
            "explain",
            "--servers",
            str(workspace.servers),
            "--json",
            "fs__write_file",
            "--args",
            args,
        ]
        done = run_cli(*command, env=env)
        assert done.returncode == 0, done.stderr
        report: dict[str, object] = json.loads(done.stdout)
        return report

    inside, outside = explain(workspace.mine / "a.txt"), explain(workspace.elsewhere / "a.txt")

    assert inside["action"] == "review"
    assert outside["action"] == "deny"
    assert "outside the roots declared for server 'fs'" in str(outside["explanation"])
