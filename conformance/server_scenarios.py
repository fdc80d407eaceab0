"""The conformance suite's server scenarios against Gatehouse's endpoint (conformance/endpoint.py):
the suite's `conformance server` command, which writes each scenario's checks to
``DIR/server-SCENARIO-TIMESTAMP/checks.json``, read back here as one Outcome per scenario.

A whole set runs in one Node process (the stable suite's ``--suite all``, or the pre-release's
``--requirements REVISION``, which runs at that revision's wire): starting Node is most of a
short scenario's time. A selection (``-k``) runs each chosen scenario in a process of its own,
at the revision's wire too.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

from conformance.outcome import Outcome

# A whole set: the stable one's 32 scenarios take seconds; this only stops a hung run.
RUN_TIMEOUT_SECONDS = 900
_RESULT_FOLDER = re.compile(r"^server-(?P<scenario>.+)-(?P<started>\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)$")

Runner = Callable[[list[str]], subprocess.CompletedProcess[str]]


def outcome_of(scenario: str, checks: list[dict[str, Any]], started: datetime | None) -> Outcome:
    """A scenario's Outcome from its checks.json: SUCCESS and FAILURE count, WARNING and
    SKIPPED do not (as the suite counts them)."""
    failed = [c for c in checks if c.get("status") == "FAILURE"]
    passed = [c for c in checks if c.get("status") == "SUCCESS"]
    detail = ""
    if failed:
        first = failed[0]
        detail = (
            f"{first.get('id', '?')}: {first.get('errorMessage') or first.get('description') or ''}".strip()
        )
    stamps = [_instant(c.get("timestamp")) for c in checks]
    ended = max((s for s in stamps if s is not None), default=None)
    seconds = (ended - started).total_seconds() if ended and started else 0.0
    return Outcome(
        scenario,
        len(passed),
        len(passed) + len(failed),
        len(failed),
        max(seconds, 0.0),
        " ".join(detail.split())[:300],
        tuple(str(c.get("id")) for c in failed),
        tuple(str(c.get("id")) for c in passed),
    )


def _instant(text: object) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def read_results(folder: Path) -> dict[str, Outcome]:
    """Every scenario whose checks the suite wrote under ``folder``, by name."""
    outcomes: dict[str, Outcome] = {}
    for result in sorted(folder.iterdir()):
        named = _RESULT_FOLDER.match(result.name)
        checks_file = result / "checks.json"
        if named is None or not checks_file.is_file():
            continue
        date, time = named["started"].split("T")
        hours, minutes, seconds, millis = time.rstrip("Z").split("-")
        started = _instant(f"{date}T{hours}:{minutes}:{seconds}.{millis}Z")
        checks = json.loads(checks_file.read_text(encoding="utf-8"))
        outcomes[named["scenario"]] = outcome_of(named["scenario"], checks, started)
    return outcomes


def commands(
    url: str, scenarios: Sequence[str], whole_set: bool, requirements: str | None, folder: Path
) -> list[list[str]]:
    """The `conformance server` runs: one for the whole set, else one per scenario."""
    common = ["conformance", "server", "--url", url, "--output-dir", str(folder)]
    if whole_set:
        return [[*common, *(["--requirements", requirements] if requirements else ["--suite", "all"])]]
    # --force: the set holds extensions, which carry no spec version of their own.
    wire = ["--spec-version", requirements, "--force"] if requirements else []
    return [[*common, "--scenario", scenario, *wire] for scenario in scenarios]


def run_set(
    run: Runner,
    url: str,
    scenarios: Sequence[str],
    *,
    whole_set: bool,
    requirements: str | None,
    jobs: int,
) -> list[Outcome]:
    """Run the scenarios against ``url``; their Outcomes in the given order. A scenario the suite
    wrote nothing for (it crashed before its checks) is a failure saying so."""
    with tempfile.TemporaryDirectory(prefix="gatehouse-conformance-results-") as name:
        folder = Path(name)
        runs = commands(url, scenarios, whole_set, requirements, folder)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            done = list(pool.map(run, runs))
        outcomes = read_results(folder)
    said = "\n".join(d.stdout + d.stderr for d in done).strip()
    missing = (
        f"the suite wrote no result for it: {said[-200:]}" if said else "the suite wrote no result for it"
    )
    return [outcomes.get(s) or Outcome(s, 0, 0, 1, 0.0, " ".join(missing.split())) for s in scenarios]


def subprocess_runner(environment: dict[str, str], cwd: Path) -> Runner:
    def run(command: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command,
            cwd=cwd,
            env=environment,
            capture_output=True,
            text=True,
            check=False,
            timeout=RUN_TIMEOUT_SECONDS,
        )

    return run
