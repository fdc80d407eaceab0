"""The pinned list of scenarios a suite may fail (conformance/expected.py): read, checked
against the suite, and judged per scenario."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance import expected
from conformance.expected import ExpectedFailuresError, Verdict
from conformance.run import SERVER_SUITES, SUITES


def _written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "expected_failures.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_each_entry_is_read_with_its_scenario_and_reason(tmp_path: Path) -> None:
    path = _written(tmp_path, '[[failure]]\nscenario = "auth/dpop"\nreason = "  no DPoP here  "\n')

    assert expected.load(path) == {"auth/dpop": expected.ExpectedFailure("auth/dpop", "no DPoP here")}


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ('[[failure]]\nscenario = "auth/dpop"\n', "needs 'scenario' and 'reason'"),
        ('[[failure]]\nscenario = "auth/dpop"\nreason = " "\n', "non-empty"),
        ('[[failure]]\nscenario = "a"\nreason = "r"\n[[failure]]\nscenario = "a"\nreason = "r"\n', "twice"),
        ('[[failures]]\nscenario = "a"\nreason = "r"\n', "unknown key 'failures'"),
        ("[[failure]\n", "expected_failures.toml"),
    ],
)
def test_an_entry_without_its_reason_or_a_malformed_list_is_refused_saying_why(
    tmp_path: Path, text: str, complaint: str
) -> None:
    with pytest.raises(ExpectedFailuresError, match=re.escape(complaint)):
        expected.load(_written(tmp_path, text))


def test_an_entry_for_a_scenario_the_suite_does_not_run_is_untrue() -> None:
    pinned = {"auth/gone": expected.ExpectedFailure("auth/gone", "renamed upstream")}

    [problem] = expected.untrue_entries(pinned, runs=["auth/dpop"], scored=[])

    assert "'auth/gone'" in problem and "remove" in problem


def test_a_scored_scenario_cannot_be_excused() -> None:
    pinned = {"http-custom-headers": expected.ExpectedFailure("http-custom-headers", "later")}

    [problem] = expected.untrue_entries(pinned, runs=["http-custom-headers"], scored=["http-custom-headers"])

    assert "'http-custom-headers' is scored" in problem


@pytest.mark.parametrize(
    ("passed", "pinned", "verdict", "fails_run"),
    [
        (True, False, Verdict.PASS, False),
        (False, False, Verdict.FAIL, True),
        (False, True, Verdict.XFAIL, False),
        (True, True, Verdict.XPASS, True),
    ],
)
def test_a_failure_fails_the_run_unless_pinned_and_a_pinned_scenario_that_passes_fails_it_too(
    passed: bool, pinned: bool, verdict: Verdict, fails_run: bool
) -> None:
    assert expected.verdict(passed, pinned) is verdict
    assert verdict.fails_run is fails_run


def test_the_shipped_list_excuses_only_dpop_and_workload_identity_each_with_a_reason() -> None:
    path = SUITES["next"].expected_failures
    assert path is not None

    pinned = expected.load(path)

    assert sorted(pinned) == ["auth/dpop", "auth/dpop-nonce", "auth/wif-jwt-bearer"]
    assert all("extension" in entry.reason for entry in pinned.values())


def test_an_entry_may_name_the_checks_that_may_fail(tmp_path: Path) -> None:
    path = _written(tmp_path, '[[failure]]\nscenario = "s"\nchecks = ["a", "b"]\nreason = "why"\n')

    assert expected.load(path)["s"].checks == {"a", "b"}


@pytest.mark.parametrize("checks", ["[]", '"a"', "[1]", '[""]'])
def test_checks_must_be_a_list_of_check_ids(tmp_path: Path, checks: str) -> None:
    with pytest.raises(ExpectedFailuresError, match="non-empty list of check ids"):
        expected.load(_written(tmp_path, f'[[failure]]\nscenario = "s"\nchecks = {checks}\nreason = "r"\n'))


@pytest.mark.parametrize(
    ("failed", "passed", "verdict"),
    [
        (["pinned"], ["other"], Verdict.XFAIL),
        (["pinned", "other"], [], Verdict.FAIL),
        (["other"], ["pinned"], Verdict.FAIL),
        ([], ["pinned", "other"], Verdict.XPASS),
        (["pinned"], ["also pinned"], Verdict.XPASS),
        ([], ["other"], Verdict.XPASS),
    ],
)
def test_a_scenario_pinned_by_check_fails_the_run_when_another_check_fails_or_a_pinned_one_passes(
    failed: list[str], passed: list[str], verdict: Verdict
) -> None:
    assert expected.check_verdict(failed, passed, {"pinned", "also pinned"}) is verdict


def test_the_server_lists_name_scenarios_and_checks_with_their_reasons() -> None:
    for suite in SERVER_SUITES.values():
        assert suite.expected_failures is not None
        pinned = expected.load(suite.expected_failures)
        assert pinned and all(entry.reason for entry in pinned.values())
        # Pinned by check wherever a check fails: the scenario's other checks keep counting.
        whole = {name for name, entry in pinned.items() if not entry.checks}
        assert whole <= {"server-sse-multiple-streams", "tasks-status-notifications"}
