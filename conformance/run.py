"""`python -m conformance` (`make conformance`): the official MCP conformance suite's client
scenarios against Gatehouse's host (conformance/client.py), then its server scenarios against
Gatehouse's endpoint, `gatehouse serve` (conformance/endpoint.py); one line per scenario and a
closing tally per suite; exit 1 when the run fails (0 with ``--report-only``).

Two suites, both by default, the stable one first, each on both sides:

- 0.1.16 (conformance/): every client scenario it lists, and each must pass; every server
  scenario it lists, each passing but those pinned in conformance/server_expected_failures.toml.
- next, the 0.2.0 pre-release (conformance/next/): the client and the server scenarios of its
  frozen 2026-07-28 requirement set, scored and not scored, run at the 2026-07-28 wire. Each
  must pass but those pinned, with their reasons, in conformance/next/expected_failures.toml
  (client) and conformance/next/server_expected_failures.toml (server); conformance/expected.py
  says what keeps those lists true.

The suites and the Node they need (>= 22; the machine's may be older) are npm packages pinned
in each folder's package-lock.json and installed into .conformance/ the first time, from the
npm registry; nothing else is downloaded.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from conformance import expected, server_scenarios
from conformance.endpoint import EndpointError, gatehouse_endpoint
from conformance.expected import ExpectedFailure, ExpectedFailuresError, Verdict
from conformance.outcome import Outcome

ROOT = Path(__file__).resolve().parents[1]
INSTALL_ROOT = ROOT / ".conformance"
SCENARIO_TIMEOUT_MS = 60_000
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

_TALLY = re.compile(r"Passed:\s*(\d+)/(\d+),\s*(\d+)\s+failed")
# "Failed Checks:" then one "  - id: message" line each.
_FAILED_CHECK = re.compile(r"^\s+-\s+(.+)$", re.MULTILINE)


Side = Literal["client", "server"]


@dataclass(frozen=True)
class Suite:
    name: str
    pinned: Path
    description: str
    # The spec revision whose requirement set chooses the scenarios (and their wire); None: all.
    requirements: str | None = None
    expected_failures: Path | None = None
    side: Side = "client"


SUITES = {
    "0.1.16": Suite("0.1.16", ROOT / "conformance", "every client scenario"),
    "next": Suite(
        "next",
        ROOT / "conformance" / "next",
        "the client scenarios of the 2026-07-28 requirement set",
        requirements="2026-07-28",
        expected_failures=ROOT / "conformance" / "next" / "expected_failures.toml",
    ),
}
# The same packages' server scenarios, against `gatehouse serve`.
SERVER_SUITES = {
    "0.1.16": Suite(
        "0.1.16",
        ROOT / "conformance",
        "every server scenario, against gatehouse serve",
        expected_failures=ROOT / "conformance" / "server_expected_failures.toml",
        side="server",
    ),
    "next": Suite(
        "next",
        ROOT / "conformance" / "next",
        "the server scenarios of the 2026-07-28 requirement set, against gatehouse serve",
        requirements="2026-07-28",
        expected_failures=ROOT / "conformance" / "next" / "server_expected_failures.toml",
        side="server",
    ),
}


@dataclass(frozen=True)
class ScenarioSet:
    scenarios: list[str]
    # Scenarios the suite runs without scoring, with its reason (extension, added-after-release).
    not_scored: dict[str, str] = field(default_factory=dict)

    @property
    def scored(self) -> set[str]:
        return set(self.scenarios) - set(self.not_scored)


def pinned_version(suite: Suite) -> str:
    """The suite's version as its package.json pins it."""
    package = json.loads((suite.pinned / "package.json").read_text(encoding="utf-8"))
    return str(package["dependencies"]["@modelcontextprotocol/conformance"])


class SetupError(RuntimeError):
    """The suite could not be installed or listed: npm missing, the registry unreachable."""


def install(version: str) -> Path:
    """The folder whose node_modules/.bin holds `conformance` and Node 22, installed once."""
    source = SUITES[version].pinned
    target = INSTALL_ROOT / version
    stamp = target / ".installed"
    lock = source / "package-lock.json"
    if stamp.exists() and stamp.read_text(encoding="utf-8") == lock.read_text(encoding="utf-8"):
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise SetupError("npm is not on PATH: install Node.js and npm (Debian: apt-get install nodejs npm)")
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for name in ("package.json", "package-lock.json", ".npmrc"):
        if (source / name).exists():
            shutil.copy(source / name, target / name)
    # Scripts run: the node package's own install step places the Node 22 binary.
    done = subprocess.run(
        [npm, "ci", "--prefix", str(target), "--no-audit", "--no-fund", "--loglevel=error"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SetupError(f"npm ci for the conformance suite {version} failed: {done.stderr.strip()[-500:]}")
    stamp.write_text(lock.read_text(encoding="utf-8"), encoding="utf-8")
    return target


def _environment(installed: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{installed / 'node_modules' / '.bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def _listed(installed: Path, *options: str) -> str:
    listed = subprocess.run(
        ["conformance", "list", *options],
        env=_environment(installed),
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode != 0:
        raise SetupError(f"conformance list failed: {listed.stderr.strip()[-300:]}")
    return listed.stdout


def parse_section(listing: str, side: Side) -> list[str]:
    """The scenarios of one side's section (``Client scenarios``, ``Server scenarios``), whose
    entries may carry their spec versions after the name."""
    # A section runs until the next heading (the pre-release lists more kinds).
    section = listing.split(f"{side.capitalize()} scenarios", 1)[-1].split("\n\n", 1)[0]
    return re.findall(r"^\s*-\s+(\S+)", section, re.MULTILINE)


def parse_client_section(listing: str) -> list[str]:
    return parse_section(listing, "client")


def parse_requirements(listing: str, side: Side = "client") -> ScenarioSet:
    """`conformance list --requirements REVISION`: one side's scenarios the revision scores,
    then those it runs unscored, each under its reason's heading, marked ``[client]`` or
    ``[server]``."""
    required = parse_section(listing, side)
    not_scored: dict[str, str] = {}
    _, _, unscored = listing.partition("never scored")
    reason = ""
    for line in unscored.splitlines():
        heading = re.match(r"^\s+([\w-]+) \(\d+\):$", line)
        entry = re.match(rf"^\s+-\s+(\S+)\s+\[{side}\]$", line)
        if heading:
            reason = heading.group(1)
        elif entry:
            not_scored[entry.group(1)] = reason
    if not required:
        raise SetupError(f"conformance list --requirements names no {side} scenario")
    return ScenarioSet(required + [name for name in not_scored if name not in required], not_scored)


def scenario_set(suite: Suite, installed: Path) -> ScenarioSet:
    if suite.requirements is None:
        return ScenarioSet(parse_section(_listed(installed), suite.side))
    return parse_requirements(_listed(installed, "--requirements", suite.requirements), suite.side)


def run_scenario(installed: Path, scenario: str, spec_version: str | None = None) -> Outcome:
    command = f"{sys.executable} -m conformance.client"
    # A requirement set's scenarios run at its revision's wire (stateless for 2026-07-28);
    # --force runs the extensions it holds too, which carry no spec version of their own.
    version = ["--spec-version", spec_version, "--force"] if spec_version else []
    started = time.perf_counter()
    done = subprocess.run(
        [
            "conformance",
            "client",
            "--command",
            command,
            "--scenario",
            scenario,
            *version,
            "--timeout",
            str(SCENARIO_TIMEOUT_MS),
        ],
        cwd=ROOT,
        env=_environment(installed),
        capture_output=True,
        text=True,
        check=False,
    )
    output = done.stdout + done.stderr
    tally = _TALLY.search(output)
    passed, checks, failed = (int(g) for g in tally.groups()) if tally else (0, 0, 1)
    failed_part = output.split("Failed Checks:", 1)[1] if "Failed Checks:" in output else ""
    failures = [line.strip() for line in _FAILED_CHECK.findall(failed_part)]
    detail = failures[0] if failures else ("" if tally else output.strip()[-300:])
    return Outcome(scenario, passed, checks, failed, time.perf_counter() - started, detail)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m conformance", description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", choices=sorted(SUITES), help="one pinned suite (default: both)")
    parser.add_argument(
        "--side",
        choices=["client", "server"],
        help="only the client scenarios (Gatehouse's host) or the server ones (gatehouse serve); default: both",
    )
    parser.add_argument("-k", dest="selector", metavar="TEXT", help="only scenarios whose name contains TEXT")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="scenarios run at once (default 1)")
    parser.add_argument("--report-only", action="store_true", help="exit 0 whatever the outcome")
    return parser


def scenario_line(
    outcome: Outcome, pinned: ExpectedFailure | None, unscored: str | None
) -> tuple[Verdict, str]:
    """The scenario's verdict against the pinned list, and its line: what failed, why it may,
    or that it passes now although pinned."""
    if pinned is not None and pinned.checks:
        verdict = expected.check_verdict(outcome.failed_ids, outcome.passed_ids, pinned.checks)
        unexpected = [c for c in outcome.failed_ids if c not in pinned.checks]
        stale = sorted(pinned.checks & set(outcome.passed_ids))
    else:
        verdict = expected.verdict(outcome.passed, pinned is not None)
        unexpected, stale = [], []
    if verdict is Verdict.XFAIL and pinned is not None:
        scope = f" ({', '.join(sorted(pinned.checks))})" if pinned.checks else ""
        note = f"  pinned{scope}: {pinned.reason}"
    elif verdict is Verdict.XPASS:
        what = f"{', '.join(stale)} {'pass' if len(stale) > 1 else 'passes'} now" if stale else "passes now"
        note = f"  {what}: take it off the pinned list"
    elif verdict is Verdict.FAIL and unexpected:
        note = f"  not pinned: {', '.join(unexpected)}"
    elif verdict is Verdict.FAIL and outcome.detail:
        note = f"  {outcome.detail}"
    else:
        note = f"  (not scored: {unscored})" if unscored else ""
    checks = f"{outcome.passed_checks}/{outcome.checks} checks"
    return verdict, f"{verdict.value:<5} {outcome.scenario:<45} {checks:>12} {outcome.seconds:5.1f} s{note}"


def closing_lines(suite: str, verdicts: dict[str, Verdict], pinned_list: str | None) -> list[str]:
    """The tally, then (with a pinned list) the scenarios that make it untrue, by name."""
    count = {v: sum(1 for x in verdicts.values() if x is v) for v in Verdict}
    pinned_part = f", {count[Verdict.XFAIL]} pinned" if pinned_list else ""
    stale_part = f", {count[Verdict.XPASS]} pinned but passing" if count[Verdict.XPASS] else ""
    lines = [
        f"{count[Verdict.PASS]} passed{pinned_part}, {count[Verdict.FAIL]} failed{stale_part} (conformance suite {suite})"
    ]
    newly_failing = [s for s, v in verdicts.items() if v is Verdict.FAIL]
    newly_passing = [s for s, v in verdicts.items() if v is Verdict.XPASS]
    if pinned_list and newly_failing:
        lines.append(f"failing and not on {pinned_list}: {', '.join(newly_failing)}")
    if pinned_list and newly_passing:
        lines.append(f"on {pinned_list} but passing, remove them: {', '.join(newly_passing)}")
    return lines


SuiteResult = Literal["held", "failed", "broken", "unselected"]


def _outcomes(
    suite: Suite,
    installed: Path,
    scenarios: list[str],
    whole_set: bool,
    jobs: int,
    endpoint: Callable[[], str],
) -> Iterator[Outcome]:
    if suite.side == "client":
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            # map keeps the suite's order; each line prints as soon as its turn has finished.
            yield from pool.map(lambda s: run_scenario(installed, s, suite.requirements), scenarios)
        return
    run = server_scenarios.subprocess_runner(_environment(installed), ROOT)
    yield from server_scenarios.run_set(
        run, endpoint(), scenarios, whole_set=whole_set, requirements=suite.requirements, jobs=jobs
    )


def run_suite(suite: Suite, selector: str | None, jobs: int, endpoint: Callable[[], str]) -> SuiteResult:
    """Run one suite and print its lines and tally. "broken": it could not run (setup, or a
    pinned list the suite contradicts), said on stderr; "unselected": ``-k`` chose none of it.
    ``endpoint`` gives the URL of Gatehouse's endpoint, started on first asking (server side)."""
    try:
        installed = install(suite.name)
        chosen = scenario_set(suite, installed)
        pinned = expected.load(suite.expected_failures) if suite.expected_failures else {}
    except (SetupError, ExpectedFailuresError) as exc:
        print(f"python -m conformance: {exc}", file=sys.stderr)
        return "broken"
    pinned_list = str(suite.expected_failures.relative_to(ROOT)) if suite.expected_failures else None
    # Gatehouse's endpoint is a gateway, not the suite's fixture: its list may excuse scored ones.
    untrue = expected.untrue_entries(
        pinned, chosen.scenarios, chosen.scored if suite.side == "client" else ()
    )
    for problem in untrue:
        print(f"python -m conformance: {pinned_list}: {problem}", file=sys.stderr)
    if untrue:
        return "broken"
    scenarios = [s for s in chosen.scenarios if not selector or selector in s]
    if not scenarios:
        return "unselected"
    version = pinned_version(suite)
    label = suite.name if version == suite.name else f"{suite.name} ({version})"
    print(f"conformance suite {label}: {suite.description}", flush=True)
    verdicts: dict[str, Verdict] = {}
    try:
        for outcome in _outcomes(suite, installed, scenarios, scenarios == chosen.scenarios, jobs, endpoint):
            verdict, line = scenario_line(
                outcome, pinned.get(outcome.scenario), chosen.not_scored.get(outcome.scenario)
            )
            verdicts[outcome.scenario] = verdict
            print(line, flush=True)
    except (EndpointError, subprocess.TimeoutExpired) as exc:
        print(f"python -m conformance: {exc}", file=sys.stderr)
        return "broken"
    print("\n".join(closing_lines(f"{suite.name}, {suite.side} scenarios", verdicts, pinned_list)))
    return "failed" if any(v.fails_run for v in verdicts.values()) else "held"


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    sides = [args.side] if args.side else ["client", "server"]
    names = [args.suite] if args.suite else list(SUITES)
    suites = [(SUITES if side == "client" else SERVER_SUITES)[name] for side in sides for name in names]
    with ExitStack() as stack:
        started: list[str] = []

        def endpoint() -> str:
            # One `gatehouse serve` for every server suite, started only when one runs.
            if not started:
                started.append(stack.enter_context(gatehouse_endpoint()))
            return started[0]

        results = [run_suite(suite, args.selector, args.jobs, endpoint) for suite in suites]
    if "broken" in results:
        return EXIT_USAGE
    if all(result == "unselected" for result in results):
        print(f"python -m conformance: no scenario matches {args.selector!r}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_FAILED if "failed" in results and not args.report_only else EXIT_OK
