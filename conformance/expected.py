"""The pinned lists of scenarios a suite may fail (conformance/next/expected_failures.toml, and
the server scenarios' server_expected_failures.toml in conformance/ and conformance/next/), and
the verdict on each scenario against them.

A list stays true both ways: a scenario that fails without being on it fails the run, and so
does one on it that passes (take it off), and one it names that the suite no longer runs. An
entry may name the checks of its scenario that may fail (``checks``): then any other failing
check fails the run, and so does a named one that passes. For the client scenarios only what
the suite runs without scoring (extensions, scenarios added after the revision shipped) may be
excused, each with the reason Gatehouse does without it. Gatehouse's endpoint is a gateway, not
the suite's fixture server, so its lists may excuse scored server scenarios too, each with what
Gatehouse does not offer and why.
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection
from dataclasses import dataclass
from enum import Enum
from pathlib import Path


class ExpectedFailuresError(ValueError):
    """The pinned list cannot be read, or says something untrue about the suite."""


@dataclass(frozen=True)
class ExpectedFailure:
    scenario: str
    reason: str
    # The checks that may fail; empty: the whole scenario may.
    checks: frozenset[str] = frozenset()


class Verdict(Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    # Failed, and pinned with a reason: does not fail the run.
    XFAIL = "XFAIL"
    # Passed, but pinned as failing: fails the run until the entry goes.
    XPASS = "XPASS"

    @property
    def fails_run(self) -> bool:
        return self in (Verdict.FAIL, Verdict.XPASS)


def load(path: Path) -> dict[str, ExpectedFailure]:
    """Every ``[[failure]]`` entry of the file, by scenario; each needs a scenario and a reason."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ExpectedFailuresError(f"{path}: {exc}") from exc
    unknown = sorted(set(document) - {"failure"})
    if unknown:
        raise ExpectedFailuresError(f"{path}: unknown key {unknown[0]!r} (only [[failure]] entries)")
    entries: dict[str, ExpectedFailure] = {}
    for index, entry in enumerate(document.get("failure", []), start=1):
        where = f"{path}: failure {index}"
        if not isinstance(entry, dict) or not {"scenario", "reason"} <= set(entry) <= {
            "scenario",
            "reason",
            "checks",
        }:
            raise ExpectedFailuresError(f"{where}: needs 'scenario' and 'reason' (and 'checks' only)")
        scenario, reason, checks = entry["scenario"], entry["reason"], entry.get("checks", [])
        if not isinstance(scenario, str) or not isinstance(reason, str) or not reason.strip():
            raise ExpectedFailuresError(f"{where}: 'scenario' and 'reason' must be non-empty strings")
        if "checks" in entry and (
            not isinstance(checks, list) or not checks or not all(isinstance(c, str) and c for c in checks)
        ):
            raise ExpectedFailuresError(f"{where}: 'checks' must be a non-empty list of check ids")
        if scenario in entries:
            raise ExpectedFailuresError(f"{where}: {scenario!r} is listed twice")
        entries[scenario] = ExpectedFailure(scenario, reason.strip(), frozenset(checks))
    return entries


def untrue_entries(
    expected: dict[str, ExpectedFailure], runs: Collection[str], scored: Collection[str]
) -> list[str]:
    """What the list says that the suite contradicts, one sentence each."""
    problems = []
    for scenario in expected:
        if scenario not in runs:
            problems.append(f"{scenario!r} is not a scenario this suite runs: remove the entry")
        elif scenario in scored:
            problems.append(f"{scenario!r} is scored (required), so it cannot be excused: make it pass")
    return problems


def verdict(passed: bool, pinned: bool) -> Verdict:
    if passed:
        return Verdict.XPASS if pinned else Verdict.PASS
    return Verdict.XFAIL if pinned else Verdict.FAIL


def check_verdict(failed: Collection[str], passed: Collection[str], pinned: Collection[str]) -> Verdict:
    """A scenario pinned check by check: it fails the run when a check not named fails, or when
    a named one passes, or none fails (take it off); else it is excused. A named check the
    scenario did not reach (it stopped earlier) is neither."""
    if set(failed) - set(pinned):
        return Verdict.FAIL
    if set(passed) & set(pinned) or not failed:
        return Verdict.XPASS
    return Verdict.XFAIL
