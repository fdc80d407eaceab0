"""Figures, their targets and the report (markdown and JSON) a benchmark run writes."""

from __future__ import annotations

import json
import platform
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

Comparison = Literal["<=", "<", ">=", "=="]


@dataclass(frozen=True)
class Target:
    comparison: Comparison
    limit: float

    def met(self, value: float) -> bool:
        if self.comparison == "<=":
            return value <= self.limit
        if self.comparison == "<":
            return value < self.limit
        if self.comparison == ">=":
            return value >= self.limit
        return value == self.limit

    def __str__(self) -> str:
        return f"{self.comparison} {self.limit:g}"


@dataclass(frozen=True)
class Figure:
    section: str
    name: str
    value: float
    unit: str
    target: Target | None = None
    # What was measured and how, for the report (counts, what bounds it, the other side of a ratio).
    notes: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    # Why the figure could not be measured (e.g. its database unreachable): a FAIL, whatever
    # the target, and no value.
    error: str = ""

    @property
    def verdict(self) -> str:
        if self.error:
            return "FAIL"
        if self.target is None:
            return "info"
        return "PASS" if self.target.met(self.value) else "FAIL"


def percentile(samples: Sequence[float], fraction: float) -> float:
    """The sample at ``fraction`` (0..1) of the sorted samples, nearest-rank."""
    ordered = sorted(samples)
    if not ordered:
        raise ValueError("no samples")
    rank = max(1, min(len(ordered), round(fraction * len(ordered) + 0.5)))
    return ordered[rank - 1]


def listed(ratios: Sequence[float]) -> str:
    """Ratios for a figure's notes, in order: "1.26, 1.43, 1.34"."""
    return ", ".join(f"{r:.2f}" for r in ratios)


def summary_ms(samples_s: Sequence[float]) -> dict[str, float]:
    """Median, p95, min and max of durations in seconds, in milliseconds."""
    return {
        "median_ms": statistics.median(samples_s) * 1000,
        "p95_ms": percentile(samples_s, 0.95) * 1000,
        "min_ms": min(samples_s) * 1000,
        "max_ms": max(samples_s) * 1000,
        "n": float(len(samples_s)),
    }


def format_value(value: float, unit: str, error: str = "") -> str:
    if error:
        return "not measured"
    if unit in {"ms", "s", "MB", "x", "req/s", "%"}:
        return f"{value:.2f} {unit}" if abs(value) < 100 else f"{value:.0f} {unit}"
    return f"{value:g} {unit}".strip()


def render_line(figure: Figure) -> str:
    target = f"target {figure.target}" if figure.target else ""
    value = format_value(figure.value, figure.unit, figure.error)
    line = f"{figure.verdict:4}  {figure.section} / {figure.name}: {value}  {target}".rstrip()
    return f"{line}  ({figure.error})" if figure.error else line


def environment() -> dict[str, Any]:
    import os

    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
    }


def commit() -> str:
    """The checked-out commit the figures were measured on, "+changes" when the tree differs
    from it (a figure measured on uncommitted code says so); "unknown" outside a git checkout."""
    import subprocess

    root = Path(__file__).resolve().parent.parent

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short=10", "HEAD")
    if not head:
        return "unknown"
    # Results files are written by the run itself: their changes do not make the code differ.
    dirty = git(
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        ".",
        ":(exclude)bench/results",
        ":(exclude)docs/benchmark.md",
    )
    return f"{head}+changes" if dirty else head


def _report(
    figures: Sequence[tuple[str, Figure]],
    *,
    stamp: str,
    command: str,
    seconds: float,
    machine: dict[str, Any],
    measured_on: str,
) -> dict[str, Any]:
    return {
        "when": stamp,
        "command": command,
        "commit": measured_on,
        "seconds": round(seconds, 1),
        "environment": machine,
        "passed": all(f.verdict != "FAIL" for _, f in figures),
        "figures": [
            {"figure": module} | asdict(f) | {"verdict": f.verdict} | ({"value": None} if f.error else {})
            for module, f in figures
        ],
    }


def write_report(
    figures: Sequence[tuple[str, Figure]], folder: Path, *, command: str, seconds: float
) -> tuple[Path, Path]:
    """Write results/bench-<time>.{md,json} and results/latest.{md,json}, and
    results/figures/<figure>.json for each figure module run (``figures`` pairs a module's name with each figure it measured);
    return the latest pair.

    The per-figure files are the committed record the benchmarks page is written from
    (``python -m bench.page``): a run of some figures replaces only theirs, so the page keeps
    every figure's latest measurement with its own date, machine and commit."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    machine = environment()
    measured_on = commit()
    data = _report(
        figures, stamp=stamp, command=command, seconds=seconds, machine=machine, measured_on=measured_on
    )
    lines = [
        f"# Gatehouse benchmark, {stamp}",
        "",
        f"`{command}` on {machine['cpus']} CPUs, Python {machine['python']}, commit {measured_on}, "
        f"{seconds:.0f} s in all. Targets are ratios within this run or medians over many repetitions.",
        "",
        "| | figure | value | target | notes |",
        "|---|---|---|---|---|",
    ]
    for _, f in figures:
        lines.append(
            f"| {f.verdict} | {f.section}: {f.name} | {format_value(f.value, f.unit, f.error)} | {f.target or ''} | {f.notes} |"
        )
    markdown = "\n".join(lines) + "\n"
    text = json.dumps(data, indent=2, default=str)
    for name in (f"bench-{stamp}", "latest"):
        (folder / f"{name}.md").write_text(markdown, encoding="utf-8")
        (folder / f"{name}.json").write_text(text, encoding="utf-8")
    modules = dict.fromkeys(module for module, _ in figures)
    (folder / "figures").mkdir(exist_ok=True)
    for module in modules:
        own = [(m, f) for m, f in figures if m == module]
        # The whole run's seconds are not this figure's: the per-figure file leaves them out.
        record = _report(
            own, stamp=stamp, command=command, seconds=0.0, machine=machine, measured_on=measured_on
        )
        del record["seconds"]
        (folder / "figures" / f"{module}.json").write_text(
            json.dumps(record, indent=2, default=str) + "\n", encoding="utf-8"
        )
    return folder / "latest.md", folder / "latest.json"
