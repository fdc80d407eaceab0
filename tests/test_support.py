"""The test machinery itself: a policy engine belongs to one MCP client and goes with it; the
slow tests are marked so."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_host.sdk_client import SdkMcpClient
from tests import support
from tests.in_process_servers import bundled_server_of
from tests.support import bundled_server_entry


def test_a_collected_clients_engine_is_never_handed_to_a_new_client() -> None:
    first = SdkMcpClient({})
    engine = support.context_for(first).policy
    assert support.context_for(first).policy is engine  # one engine per client while it lives
    first.close()
    del first
    gc.collect()

    # Nothing is left that a new client with a reused id could be given.
    assert all(kept is not engine for kept in support._ENGINES.values())
    second = SdkMcpClient({})
    try:
        assert support.context_for(second).policy is not engine
    finally:
        second.close()


@pytest.mark.processes
def test_markers_say_what_tests_do_processes_browser_and_postgres() -> None:
    def collected(marker: str) -> str:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "--collect-only",
                "-q",
                "-m",
                marker,
                "tests/replicas",
                "tests/browser/test_smoke.py",
                "tests/test_readme.py",
                "tests/reviews/test_withdraw.py",
            ],
            capture_output=True,
            text=True,
            check=False,
            cwd=Path(__file__).resolve().parents[1],
        ).stdout

    processes, browser, postgres = collected("processes"), collected("browser"), collected("postgres")
    assert "tests/replicas/test_several_processes.py::" in processes
    assert "tests/browser/test_smoke.py::" in processes
    assert "test_readme" not in processes
    # `make pytest` runs the browser tests on their own, everything else on several workers.
    assert "tests/browser/test_smoke.py::" in browser
    assert "tests/replicas" not in browser and "test_readme" not in browser
    # A test on both backends: its PostgreSQL run is marked, its SQLite twin is not.
    assert "tests/reviews/test_withdraw.py::" in postgres and "[postgres]" in postgres
    assert "[sqlite]" not in postgres and "test_readme" not in postgres


_PROBE = """
import subprocess
import sys
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def started_for_the_module() -> Iterator[None]:
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    yield


def test_uses_a_module_fixture_that_starts_a_process(started_for_the_module: None) -> None:
    pass


def test_starts_a_process_without_saying_so() -> None:
    subprocess.run([sys.executable, "-c", "pass"], check=True)


@pytest.mark.processes
def test_starts_a_process_and_says_so() -> None:
    subprocess.run([sys.executable, "-c", "pass"], check=True)
"""


@pytest.mark.processes
def test_the_quick_lane_fails_a_test_that_starts_a_process_without_its_marker(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parents[1]
    (tmp_path / "conftest.py").write_text(
        "from tests.conftest import (pytest_collection_modifyitems, pytest_runtest_call,\n"
        "    pytest_runtest_setup, pytest_runtest_teardown)\n"
        "__all__ = ['pytest_collection_modifyitems', 'pytest_runtest_call', 'pytest_runtest_setup',\n"
        "    'pytest_runtest_teardown']\n",
        encoding="utf-8",
    )
    (tmp_path / "test_probe.py").write_text(_PROBE, encoding="utf-8")
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "markers=processes: x",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(repo), "GATEHOUSE_QUICK_LANE": "1"},
    )

    # The unmarked one fails, and so does one whose module-scoped fixture starts a process (its
    # setup is an error); the marked one passes.
    assert "1 failed, 1 passed, 1 error" in ran.stdout, ran.stdout + ran.stderr
    assert "test_starts_a_process_without_saying_so starts a process" in ran.stdout
    assert "test_uses_a_module_fixture_that_starts_a_process starts a process" in ran.stdout
    assert "mark it processes" in ran.stdout


def test_only_entries_starting_a_bundled_server_as_the_shipped_file_does_are_served_in_process(
    tmp_path: Path,
) -> None:
    shipped = bundled_server_entry("email", tmp_path / "demo")["args"]
    assert isinstance(shipped, list)
    assert bundled_server_of(shipped) == ("email", tmp_path / "demo")
    # Tests about stdio start the server module itself: that keeps its process, as does
    # anything that is not a bundled server or names no data folder.
    assert bundled_server_of(["-m", "servers.email", "--data-dir", str(tmp_path)]) is None
    assert bundled_server_of(["-m", "servers.launch", "nosuch", "--data-dir", str(tmp_path)]) is None
    assert bundled_server_of(["-m", "servers.launch", "email"]) is None
    assert bundled_server_of(["-m", "tests.questions_server", "--ask", "form"]) is None
