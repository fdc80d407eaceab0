"""Which folders a stdio server is started on stand for its roots: the team's folder does; the
filesystem root, home directories, folders that are not there and a launcher's program folder
never do."""

from __future__ import annotations

import pwd
from pathlib import Path

import pytest

from mcp_host.config import HttpServer, StdioServer
from mcp_host.folders import root_folders


def stdio(*args: str, cwd: str | None = None) -> StdioServer:
    return StdioServer(name="files", command="npx", args=list(args), cwd=cwd)


def test_an_existing_folder_among_the_arguments_is_a_root_and_so_is_one_after_an_option(
    tmp_path: Path,
) -> None:
    team, repo, extra = tmp_path / "team", tmp_path / "repo", tmp_path / "extra"
    for folder in (team, repo, extra):
        folder.mkdir()

    entry = stdio(
        "-y",
        "@modelcontextprotocol/server-filesystem",
        str(team),
        "--repository",
        str(repo),
        f"--also={extra}",
    )

    assert root_folders(entry) == [str(team.resolve()), str(repo.resolve()), str(extra.resolve())]


def test_the_filesystem_root_and_a_folder_that_does_not_exist_are_never_roots(tmp_path: Path) -> None:
    entry = stdio("/", str(tmp_path / "not-yet"), "relative/folder", str(Path(__file__)))

    assert root_folders(entry) == []


def test_home_directories_and_the_folders_holding_them_are_never_roots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project = tmp_path / "people" / "ada", tmp_path / "people" / "ada" / "project"
    project.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))

    entry = stdio(str(home), str(home.parent), str(project), "/root")

    assert root_folders(entry) == [str(project.resolve())]


def test_a_launchers_program_folder_is_not_a_root_but_the_folder_given_to_the_server_is(
    tmp_path: Path,
) -> None:
    program, data = tmp_path / "weather", tmp_path / "data"
    program.mkdir()
    data.mkdir()

    entry = StdioServer(
        name="weather", command="uv", args=["--directory", str(program), "run", "weather.py", str(data)]
    )

    assert root_folders(entry) == [str(data.resolve())]


def test_the_working_folder_and_a_remote_server_give_no_roots(tmp_path: Path) -> None:
    assert root_folders(stdio("-m", "server", cwd=str(tmp_path))) == []
    assert root_folders(HttpServer(name="remote", url="http://127.0.0.1:9/mcp")) == []


def test_a_server_started_on_no_folder_is_answered_without_reading_the_user_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every command asks this of every server it configures; few are started on a folder.
    def user_database() -> list[object]:
        raise AssertionError("the user database was read")

    monkeypatch.setattr(pwd, "getpwall", user_database)

    assert root_folders(stdio("-y", "@modelcontextprotocol/server-everything", "stdio")) == []
