"""Fixtures for the interop tests: folders and repositories the peers work on, and the HTTP peer."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop.peers import everything_over_http, missing_peer


@pytest.fixture
def project_root(tmp_path: Path) -> Path:
    """A folder with two files, the root server-filesystem is confined to."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.md").write_text("# Notes\n\nShip the interop tests.\n", encoding="utf-8")
    (root / "sample.txt").write_text("hello from the sample file\n", encoding="utf-8")
    return root


@pytest.fixture
def git_repository(tmp_path: Path) -> Path:
    """A git repository with one commit and one untracked file."""
    if shutil.which("git") is None:
        missing_peer("git not found: the git peer's repository needs it on PATH")
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=Interop", "-c", "user.email=interop@example.invalid", *args],
            cwd=repo,
            check=True,
            capture_output=True,
            timeout=30,
        )

    git("init", "--quiet", "--initial-branch=main")
    (repo / "README.md").write_text("tracked\n", encoding="utf-8")
    git("add", "README.md")
    git("commit", "--quiet", "-m", "first commit")
    (repo / "untracked.txt").write_text("new\n", encoding="utf-8")
    return repo


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    """Where the peers' stderr goes (SdkMcpClient(log_dir=...)), one file per server."""
    folder = tmp_path / "logs"
    folder.mkdir()
    return folder


@pytest.fixture
def everything_http_url(tmp_path: Path) -> Iterator[str]:
    """server-everything over Streamable HTTP on a free 127.0.0.1 port, stopped afterwards."""
    with everything_over_http(tmp_path / "everything-http.log") as url:
        yield url
