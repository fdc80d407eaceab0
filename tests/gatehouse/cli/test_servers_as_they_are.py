"""The host takes servers as they are, on the command line: a server missing an optional list
method passes `servers check` with a warning naming the method and its error; a broken entry
of the servers file (a bad key, a missing command, an unset variable, a bad URL) is that
entry's FAIL in `servers check` (exit 2, naming the file, the entry and the key), and every
other command goes on with the good entries, naming the skipped one on stderr. Real stdio
servers, each command run in this process."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_support import Ran, run_cli
from tests.mcp_host.helpers import REPO_ROOT
from tests.support import bundled_server_entry

UNSET = "GATEHOUSE_TEST_NEVER_SET"
BROKEN: dict[str, Any] = {
    "typo": {"command": sys.executable, "argz": ["-m", "x"]},
    "nocommand": {"args": ["-m", "x"]},
    "unset": {"command": f"${{{UNSET}}}"},
    "badurl": {"type": "http", "url": "ftp://files.example/mcp"},
}
# The file, entry and key each broken entry's error names.
NAMED = {
    "typo": "mcpServers.typo.argz: unknown key for a stdio server (did you mean 'args'?)",
    "nocommand": "mcpServers.nocommand: a server needs a command (stdio) or a url (http)",
    "unset": f"mcpServers.unset.command: environment variable {UNSET} is not set",
    "badurl": "mcpServers.badurl.url: an http server needs an http:// or https:// url",
}


def _servers_file(tmp_path: Path, entries: dict[str, Any]) -> Path:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    return path


def _gatehouse(tmp_path: Path, *argv: str) -> Ran:
    env = {"GATEHOUSE_DATA": str(tmp_path / "data"), "GATEHOUSE_DB": None, UNSET: None}
    return run_cli(*argv, env=env)


def _partial(*modes: str) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": ["-m", "tests.mcp_host.partial_server", *modes],
        "cwd": str(REPO_ROOT),
    }


@pytest.mark.processes
def test_servers_check_passes_a_server_missing_templates_with_a_warning_naming_method_and_error(
    tmp_path: Path,
) -> None:
    servers = _servers_file(tmp_path, {"glossary": _partial()})

    done = _gatehouse(tmp_path, "servers", "check", "--servers", str(servers))

    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    [ok] = [line for line in lines if line.startswith("  ok    glossary")]
    assert "1 tool, 1 prompt, 1 resource " in ok
    [warning] = [line for line in lines if "warning:" in line]
    assert "resources/templates/list not served" in warning and "-32601" in warning


@pytest.mark.processes
def test_servers_check_reports_the_gap_as_a_warning_in_json(tmp_path: Path) -> None:
    servers = _servers_file(tmp_path, {"glossary": _partial("--prompts", "error")})

    done = _gatehouse(tmp_path, "servers", "check", "--json", "--servers", str(servers))

    assert done.returncode == 0, done.stderr
    [glossary] = json.loads(done.stdout)["servers"]
    assert (glossary["ok"], glossary["status"], glossary["listing"]) == (True, "warning", "partial")
    assert {gap["method"] for gap in glossary["missing"]} == {"resources/templates/list", "prompts/list"}
    assert glossary["error"] is None


@pytest.mark.usefixtures("bundled_in_process")
def test_servers_check_fails_each_broken_entry_naming_file_entry_and_key_beside_a_working_server(
    tmp_path: Path,
) -> None:
    demo = tmp_path / "data" / "demo"
    servers = _servers_file(tmp_path, {"greeter": bundled_server_entry("greeter", demo), **BROKEN})

    done = _gatehouse(tmp_path, "servers", "check", "--servers", str(servers))

    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "  ok    greeter" in done.stdout
    for name, named in NAMED.items():
        [line] = [line for line in done.stdout.splitlines() if line.startswith(f"  FAIL  {name} ")]
        assert f"config: {servers}: {named}" in line


@pytest.mark.usefixtures("bundled_in_process")
def test_ask_goes_on_with_the_good_servers_and_names_the_skipped_entry_on_stderr(tmp_path: Path) -> None:
    demo = tmp_path / "data" / "demo"
    entries = {"greeter": bundled_server_entry("greeter", demo), "unset": BROKEN["unset"]}
    servers = _servers_file(tmp_path, entries)

    done = _gatehouse(tmp_path, "ask", "--json", "--servers", str(servers), "Say hello to Ada")

    assert done.returncode == 0, done.stderr
    assert done.stderr == f"gatehouse: skipping server unset: {servers}: {NAMED['unset']}\n"
    answer = json.loads(done.stdout)
    assert answer["selected_capability"]["server"] == "greeter", answer


def test_ask_with_no_usable_entry_names_every_entrys_problem_and_that_none_could_be_used(
    tmp_path: Path,
) -> None:
    servers = _servers_file(tmp_path, BROKEN)

    done = _gatehouse(tmp_path, "ask", "--servers", str(servers), "Say hello to Ada")

    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"gatehouse: {servers}: none of the 4 entries could be used; each one's problem:",
        *(f"gatehouse:   {servers}: {named}" for named in NAMED.values()),
    ]


def test_servers_check_with_no_usable_entry_says_none_of_them_could_be_used(tmp_path: Path) -> None:
    servers = _servers_file(tmp_path, BROKEN)

    done = _gatehouse(tmp_path, "servers", "check", "--servers", str(servers))
    checked = _gatehouse(tmp_path, "servers", "check", "--json", "--servers", str(servers))

    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    for name, named in NAMED.items():
        [line] = [line for line in lines if line.startswith(f"  FAIL  {name} ")]
        assert f"config: {servers}: {named}" in line
    assert lines[-1] == f"none of the 4 entries of {servers} could be used: fix them and check again"
    report = json.loads(checked.stdout)
    assert (report["broken_entries"], report["usable_entries"]) == (4, 0)


def test_servers_check_of_a_file_of_one_broken_entry_says_it_could_not_be_used(tmp_path: Path) -> None:
    servers = _servers_file(tmp_path, {"unset": BROKEN["unset"]})

    done = _gatehouse(tmp_path, "servers", "check", "--servers", str(servers))

    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == (
        f"the one entry of {servers} could not be used: fix it and check again"
    )


# A server started through a wrapper that dies as Node does: the error first, then its stack,
# then the version it ran on; the line that says why is the error, not the last one.
_NODE_STYLE_FAILURE = (
    "import sys; sys.stderr.write("
    "\"Error: Cannot find module '/srv/mcp/index.js'\\n    at Module._resolveFilename (node:internal)\\n"
    '\\nNode.js v20.19.2\\n"); sys.exit(1)'
)


@pytest.mark.processes
def test_servers_check_says_why_a_server_failed_its_command_and_where_its_log_is(tmp_path: Path) -> None:
    secret = "s3cr3t-token-5d1e"
    failing = {"command": sys.executable, "args": ["-c", _NODE_STYLE_FAILURE, "--token", secret]}
    servers = _servers_file(tmp_path, {"node": failing})

    done = _gatehouse(tmp_path, "servers", "check", "--servers", str(servers))

    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    [fail] = [line for line in lines if line.startswith("  FAIL  node ")]
    assert "exited with status 1: Error: Cannot find module '/srv/mcp/index.js'" in fail
    assert any(line.strip().startswith("command: ") and line.endswith("--token '***'") for line in lines), (
        lines
    )
    log = tmp_path / "data" / "logs" / "servers" / "node.log"
    assert f"        log: {log}" in lines
    assert secret not in done.stdout


@pytest.mark.processes
def test_servers_check_loads_the_first_of_a_name_given_twice_and_fails_the_second(tmp_path: Path) -> None:
    # Written as text: a JSON object with one name twice, as a person's editor lets them.
    first, second = json.dumps(_partial()), json.dumps({"command": "/bin/cat"})
    servers = tmp_path / "servers.json"
    servers.write_text(
        f'{{"mcpServers": {{"glossary": {first}, "echo": {second}, "glossary": {second}}}}}', encoding="utf-8"
    )

    done = _gatehouse(tmp_path, "servers", "check", "--servers", str(servers))

    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("  ok    glossary ") for line in lines), lines
    [repeat] = [line for line in lines if line.startswith("  FAIL  glossary (2nd) ")]
    assert (
        f"config: {servers}: mcpServers.glossary (2nd): mcpServers.glossary is given 2 times in the file:"
        " the first loads and this one is left out; rename it or remove it"
    ) in repeat
    [echo] = [line for line in lines if line.startswith("  FAIL  echo ")]
    assert "protocol: /bin/cat did not answer as an MCP server: it answered initialize" in echo
