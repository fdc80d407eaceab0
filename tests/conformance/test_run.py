"""The conformance runner's reading of the suite and its report (conformance/run.py); the
suite itself runs in `make conformance`."""

from __future__ import annotations

from conformance.expected import ExpectedFailure, Verdict
from conformance.outcome import Outcome
from conformance.run import (
    closing_lines,
    parse_client_section,
    parse_requirements,
    parse_section,
    scenario_line,
)

# `conformance list --requirements 2026-07-28` of 0.2.0-alpha.12, shortened.
REQUIREMENTS_LISTING = """Required for 2026-07-28 (69 scenarios, frozen; run at the 2026-07-28 wire):

Server scenarios (test against a server):
  - server-stateless
  - tools-list

Client scenarios (test against a client):
  - tools_call
  - http-custom-headers

Run and reported, but never scored:
  extension (3):
    - auth/dpop [client]
    - auth/wif-jwt-bearer [client]
    - tasks-lifecycle [server]
  added-after-release (1):
    - json-schema-2020-12-preservation [client]
  pending (1):
    - json-schema-2020-12 [server]
"""


def _outcome(scenario: str, passed: bool) -> Outcome:
    return Outcome(scenario, 3 if passed else 2, 3, 0 if passed else 1, 1.5, "" if passed else "Check: why")


def test_a_requirement_set_runs_its_scored_client_scenarios_then_the_unscored_with_their_reasons() -> None:
    chosen = parse_requirements(REQUIREMENTS_LISTING)

    assert chosen.scenarios == [
        "tools_call",
        "http-custom-headers",
        "auth/dpop",
        "auth/wif-jwt-bearer",
        "json-schema-2020-12-preservation",
    ]
    assert chosen.not_scored == {
        "auth/dpop": "extension",
        "auth/wif-jwt-bearer": "extension",
        "json-schema-2020-12-preservation": "added-after-release",
    }
    assert chosen.scored == {"tools_call", "http-custom-headers"}


def test_the_plain_listing_yields_only_the_client_section() -> None:
    assert parse_client_section(REQUIREMENTS_LISTING) == ["tools_call", "http-custom-headers"]


def test_a_pinned_failure_says_its_reason_and_a_pinned_pass_says_to_take_it_off() -> None:
    dpop = ExpectedFailure("auth/dpop", "no DPoP here")

    xfail, failing_line = scenario_line(_outcome("auth/dpop", passed=False), dpop, "extension")
    xpass, passing_line = scenario_line(_outcome("auth/dpop", passed=True), dpop, "extension")
    fail, unpinned_line = scenario_line(_outcome("tools_call", passed=False), None, None)

    assert (xfail, xpass, fail) == (Verdict.XFAIL, Verdict.XPASS, Verdict.FAIL)
    assert failing_line.startswith("XFAIL auth/dpop") and failing_line.endswith("pinned: no DPoP here")
    assert passing_line.endswith("take it off the pinned list")
    assert unpinned_line.endswith("Check: why")


def test_the_closing_lines_name_what_newly_fails_and_what_newly_passes() -> None:
    verdicts = {
        "tools_call": Verdict.PASS,
        "http-custom-headers": Verdict.FAIL,
        "auth/dpop": Verdict.XFAIL,
        "auth/wif-jwt-bearer": Verdict.XPASS,
    }

    lines = closing_lines("next", verdicts, "conformance/next/expected_failures.toml")

    assert lines == [
        "1 passed, 1 pinned, 1 failed, 1 pinned but passing (conformance suite next)",
        "failing and not on conformance/next/expected_failures.toml: http-custom-headers",
        "on conformance/next/expected_failures.toml but passing, remove them: auth/wif-jwt-bearer",
    ]


def test_a_suite_without_a_pinned_list_closes_with_the_plain_tally() -> None:
    lines = closing_lines("0.1.16", {"tools_call": Verdict.PASS, "sse-retry": Verdict.FAIL}, None)

    assert lines == ["1 passed, 1 failed (conformance suite 0.1.16)"]


def test_a_requirement_set_runs_its_server_scenarios_then_the_unscored_server_ones() -> None:
    chosen = parse_requirements(REQUIREMENTS_LISTING, "server")

    assert chosen.scenarios == ["server-stateless", "tools-list", "tasks-lifecycle", "json-schema-2020-12"]
    assert chosen.not_scored == {"tasks-lifecycle": "extension", "json-schema-2020-12": "pending"}


def test_the_plain_listing_yields_the_server_section_without_the_spec_versions() -> None:
    listing = (
        "Server scenarios (test against a server):\n"
        "  - server-initialize [2025-06-18,2025-11-25]\n"
        "  - ping [2025-06-18,2025-11-25]\n\n"
        "Client scenarios (test against a client):\n"
        "  - initialize [2025-06-18,2025-11-25]\n"
    )

    assert parse_section(listing, "server") == ["server-initialize", "ping"]
    assert parse_section(listing, "client") == ["initialize"]


def _checked(failed: tuple[str, ...], passed: tuple[str, ...]) -> Outcome:
    return Outcome(
        "server-stateless", len(passed), len(passed) + len(failed), len(failed), 0.5, "x", failed, passed
    )


def test_a_scenario_pinned_by_check_names_the_check_that_fails_unpinned_or_passes_now() -> None:
    pinned = ExpectedFailure("server-stateless", "bare name", frozenset({"needs-fixture"}))

    excused, excused_line = scenario_line(_checked(("needs-fixture",), ("wire",)), pinned, None)
    failed, failed_line = scenario_line(_checked(("needs-fixture", "wire"), ()), pinned, None)
    stale, stale_line = scenario_line(_checked((), ("needs-fixture", "wire")), pinned, None)

    assert (excused, failed, stale) == (Verdict.XFAIL, Verdict.FAIL, Verdict.XPASS)
    assert excused_line.endswith("pinned (needs-fixture): bare name")
    assert failed_line.endswith("not pinned: wire")
    assert stale_line.endswith("needs-fixture passes now: take it off the pinned list")
