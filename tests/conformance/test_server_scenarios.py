"""How the runner drives the suite's server scenarios and reads what they found
(conformance/server_scenarios.py); the suite itself runs against `gatehouse serve` in
`make conformance`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from conformance.server_scenarios import commands, outcome_of, read_results, run_set

URL = "http://127.0.0.1:9/mcp"


def _check(
    check_id: str, status: str, at: str = "2026-07-28T10:00:01.500Z", message: str = ""
) -> dict[str, Any]:
    return {"id": check_id, "status": status, "timestamp": at, "errorMessage": message or None}


def _write(folder: Path, scenario: str, checks: list[dict[str, Any]]) -> None:
    result = folder / f"server-{scenario}-2026-07-28T10-00-00-000Z"
    result.mkdir()
    (result / "checks.json").write_text(json.dumps(checks), encoding="utf-8")


def test_successes_and_failures_count_and_warnings_do_not() -> None:
    outcome = outcome_of(
        "server-stateless",
        [
            _check("a", "SUCCESS"),
            _check("b", "FAILURE", message="MUST reject\n  with -32021"),
            _check("c", "WARNING"),
            _check("d", "SKIPPED"),
            _check("e", "FAILURE"),
        ],
        None,
    )

    assert (outcome.passed_checks, outcome.checks, outcome.failed_checks) == (1, 3, 2)
    assert outcome.failed_ids == ("b", "e") and outcome.passed_ids == ("a",)
    assert outcome.detail == "b: MUST reject with -32021"
    assert not outcome.passed


def test_each_scenarios_folder_is_read_under_its_own_name_with_its_duration(tmp_path: Path) -> None:
    _write(tmp_path, "tools-call-simple-text", [_check("tools-call-simple-text", "SUCCESS")])
    _write(
        tmp_path, "server-sse-multiple-streams", [_check("server-sse-multiple-streams-session", "WARNING")]
    )
    (tmp_path / "not-a-result").mkdir()

    outcomes = read_results(tmp_path)

    assert set(outcomes) == {"tools-call-simple-text", "server-sse-multiple-streams"}
    assert outcomes["tools-call-simple-text"].passed
    assert outcomes["tools-call-simple-text"].seconds == 1.5
    # A scenario that checked nothing is no pass.
    assert not outcomes["server-sse-multiple-streams"].passed


def test_a_whole_set_is_one_run_and_a_selection_one_run_per_scenario_at_the_sets_wire(tmp_path: Path) -> None:
    stable = commands(URL, ["ping", "tools-list"], True, None, tmp_path)
    required = commands(URL, ["tools-list"], True, "2026-07-28", tmp_path)
    chosen = commands(URL, ["ping", "tools-list"], False, "2026-07-28", tmp_path)

    common = ["conformance", "server", "--url", URL, "--output-dir", str(tmp_path)]
    assert stable == [[*common, "--suite", "all"]]
    assert required == [[*common, "--requirements", "2026-07-28"]]
    assert chosen == [
        [*common, "--scenario", "ping", "--spec-version", "2026-07-28", "--force"],
        [*common, "--scenario", "tools-list", "--spec-version", "2026-07-28", "--force"],
    ]


def test_the_outcomes_come_in_the_sets_order_and_a_scenario_without_a_result_fails() -> None:
    def fake_suite(command: list[str]) -> subprocess.CompletedProcess[str]:
        folder = Path(command[command.index("--output-dir") + 1])
        _write(folder, "tools-list", [_check("tools-list", "SUCCESS")])
        _write(folder, "ping", [_check("ping", "FAILURE", message="no pong")])
        return subprocess.CompletedProcess(command, 1, "Running all suite\n", "ping crashed the runner")

    outcomes = run_set(
        fake_suite, URL, ["tools-list", "ping", "caching"], whole_set=True, requirements=None, jobs=2
    )

    assert [o.scenario for o in outcomes] == ["tools-list", "ping", "caching"]
    assert [o.passed for o in outcomes] == [True, False, False]
    assert outcomes[1].detail == "ping: no pong"
    assert outcomes[2].detail.startswith("the suite wrote no result for it")
    assert "ping crashed the runner" in outcomes[2].detail
