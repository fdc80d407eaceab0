"""The test machinery itself: a policy engine belongs to one MCP client and goes with it; the
slow tests are marked so."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from mcp_host.sdk_client import SdkMcpClient
from tests import support


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


def test_browser_and_multi_process_tests_are_marked_slow_and_only_browser_tests_browser() -> None:
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
            ],
            capture_output=True,
            text=True,
            check=False,
            cwd=Path(__file__).resolve().parents[1],
        ).stdout

    slow, browser = collected("slow"), collected("browser")
    assert "tests/replicas/test_several_processes.py::" in slow and "tests/browser/test_smoke.py::" in slow
    assert "test_readme" not in slow
    # `make pytest` runs the browser tests on their own, everything else on several workers.
    assert "tests/browser/test_smoke.py::" in browser
    assert "tests/replicas" not in browser and "test_readme" not in browser
