"""`python -m conformance` (`make conformance`): every client scenario of the official MCP
conformance suite against Gatehouse's host (conformance/client.py), one line per scenario and a
closing ``N passed, M failed``; exit 1 when one failed (0 with ``--report-only``).

The suite and the Node it needs (>= 22; the machine's may be older) are npm packages pinned in
conformance/package-lock.json (conformance/next/ for the pre-release) and installed into
.conformance/ the first time, from the npm registry; nothing else is downloaded.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PINNED = {"0.1.16": ROOT / "conformance", "next": ROOT / "conformance" / "next"}
INSTALL_ROOT = ROOT / ".conformance"
SCENARIO_TIMEOUT_MS = 60_000
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

_TALLY = re.compile(r"Passed:\s*(\d+)/(\d+),\s*(\d+)\s+failed")
# "Failed Checks:" then one "  - id: message" line each.
_FAILED_CHECK = re.compile(r"^\s+-\s+(.+)$", re.MULTILINE)


class SetupError(RuntimeError):
    """The suite could not be installed or listed: npm missing, the registry unreachable."""


@dataclass(frozen=True)
class Outcome:
    scenario: str
    passed_checks: int
    checks: int
    failed_checks: int
    seconds: float
    detail: str

    @property
    def passed(self) -> bool:
        # A scenario the client never exercised reports 0/0 and "PASSED": that is no pass.
        return self.checks > 0 and self.failed_checks == 0


def install(version: str) -> Path:
    """The folder whose node_modules/.bin holds `conformance` and Node 22, installed once."""
    source = PINNED[version]
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


def client_scenarios(installed: Path) -> list[str]:
    """The suite's own list of client scenarios (`conformance list`)."""
    listed = subprocess.run(
        ["conformance", "list"], env=_environment(installed), capture_output=True, text=True, check=False
    )
    if listed.returncode != 0:
        raise SetupError(f"conformance list failed: {listed.stderr.strip()[-300:]}")
    # The client section runs until the next heading (the pre-release lists more kinds).
    section = listed.stdout.split("Client scenarios", 1)[-1].split("\n\n", 1)[0]
    return re.findall(r"^\s*-\s+(\S+)", section, re.MULTILINE)


def run_scenario(installed: Path, scenario: str) -> Outcome:
    command = f"{sys.executable} -m conformance.client"
    started = time.perf_counter()
    done = subprocess.run(
        [
            "conformance",
            "client",
            "--command",
            command,
            "--scenario",
            scenario,
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
    parser.add_argument("--suite", choices=sorted(PINNED), default="0.1.16", help="which pinned suite")
    parser.add_argument("-k", dest="selector", metavar="TEXT", help="only scenarios whose name contains TEXT")
    parser.add_argument("--report-only", action="store_true", help="exit 0 whatever the outcome")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        installed = install(args.suite)
        scenarios = client_scenarios(installed)
    except SetupError as exc:
        print(f"python -m conformance: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.selector:
        scenarios = [s for s in scenarios if args.selector in s]
    if not scenarios:
        print(f"python -m conformance: no client scenario matches {args.selector!r}", file=sys.stderr)
        return EXIT_USAGE
    outcomes = []
    for scenario in scenarios:
        outcome = run_scenario(installed, scenario)
        outcomes.append(outcome)
        mark = "PASS" if outcome.passed else "FAIL"
        checks = f"{outcome.passed_checks}/{outcome.checks} checks"
        detail = f"  {outcome.detail}" if outcome.detail and not outcome.passed else ""
        print(f"{mark} {scenario:<45} {checks:>12} {outcome.seconds:5.1f} s{detail}", flush=True)
    failed = sum(1 for o in outcomes if not o.passed)
    print(f"{len(outcomes) - failed} passed, {failed} failed (conformance suite {args.suite})")
    return EXIT_OK if failed == 0 or args.report_only else EXIT_FAILED
