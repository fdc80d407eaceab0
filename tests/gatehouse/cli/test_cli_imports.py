"""`gatehouse --help` and `gatehouse reviews list` import only what they use: a person waiting
for a help text or the queue does not wait for LangGraph, LangChain or the MCP SDK (over a
second on these machines). Each check runs in a fresh interpreter, since this one has imported
everything already."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reviews.ledger import ReviewLedger
from tests.gatehouse.cli.test_cli import REPO

# Starts processes of its own (servers over stdio, the CLI): not in `make quick`.
pytestmark = pytest.mark.processes

# Runs the command in-process and prints the top-level packages it left in sys.modules.
_PROBE = """
import contextlib, io, json, sys
from gatehouse.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
names = sorted(name for name in sys.modules if not name.startswith("_"))
print(json.dumps({"code": code, "modules": names}))
"""


def imported_by(*argv: str) -> tuple[int, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.stderr == "", done.stderr
    report = json.loads(done.stdout)
    return report["code"], set(report["modules"])


def test_help_imports_neither_langgraph_nor_langchain_nor_the_mcp_sdk() -> None:
    code, modules = imported_by("--help")

    assert code == 0
    heavy = {
        name for name in modules if name.split(".")[0] in {"langgraph", "langchain", "langchain_core", "mcp"}
    }
    assert heavy == set()
    # Not even pydantic: the help text is argparse and nothing else of weight.
    assert "pydantic" not in modules


@pytest.mark.parametrize(
    "command", [["reviews", "list"], ["audit", "verify"], ["policy", "check"]], ids=" ".join
)
def test_commands_that_only_read_need_neither_the_graph_nor_the_mcp_sdk(
    tmp_path: Path, command: list[str]
) -> None:
    database = tmp_path / "gatehouse.db"
    ReviewLedger(database).close()

    code, modules = imported_by(*command, "--db", str(database))

    assert code == 0
    assert {name for name in modules if name.split(".")[0] in {"langgraph", "langchain_core", "mcp"}} == set()
    assert "graph.builder" not in modules and "mcp_host.sdk_client" not in modules


def test_python_dash_m_gatehouse_is_the_command_line() -> None:
    """A new team tried `python -m gatehouse` first: it is the same command, exit codes too."""
    helped = subprocess.run(
        [sys.executable, "-m", "gatehouse", "--help"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    wrong = subprocess.run(
        [sys.executable, "-m", "gatehouse", "no-such-command"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )

    assert helped.returncode == 0, helped.stderr
    assert "reviews" in helped.stdout and "policy" in helped.stdout
    assert wrong.returncode == 2
