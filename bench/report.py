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


def _format(value: float, unit: str, error: str = "") -> str:
    if error:
        return "not measured"
    if unit in {"ms", "s", "MB", "x", "req/s", "%"}:
        return f"{value:.2f} {unit}" if abs(value) < 100 else f"{value:.0f} {unit}"
    return f"{value:g} {unit}".strip()


def render_line(figure: Figure) -> str:
    target = f"target {figure.target}" if figure.target else ""
    value = _format(figure.value, figure.unit, figure.error)
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


def write_report(figures: list[Figure], folder: Path, *, command: str, seconds: float) -> tuple[Path, Path]:
    """Write results/bench-<time>.{md,json} and results/latest.{md,json}; return the latest pair."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    machine = environment()
    data: dict[str, Any] = {
        "when": stamp,
        "command": command,
        "seconds": round(seconds, 1),
        "environment": machine,
        "passed": all(f.verdict != "FAIL" for f in figures),
        "figures": [
            asdict(f) | {"verdict": f.verdict} | ({"value": None} if f.error else {}) for f in figures
        ],
    }
    lines = [
        f"# Gatehouse benchmark, {stamp}",
        "",
        f"`{command}` on {machine['cpus']} CPUs, Python {machine['python']}, "
        f"{seconds:.0f} s in all. Targets are ratios within this run or medians over many repetitions.",
        "",
        "| | figure | value | target | notes |",
        "|---|---|---|---|---|",
    ]
    for f in figures:
        lines.append(
            f"| {f.verdict} | {f.section}: {f.name} | {_format(f.value, f.unit, f.error)} | {f.target or ''} | {f.notes} |"
        )
    markdown = "\n".join(lines) + "\n"
    text = json.dumps(data, indent=2, default=str)
    for name in (f"bench-{stamp}", "latest"):
        (folder / f"{name}.md").write_text(markdown, encoding="utf-8")
        (folder / f"{name}.json").write_text(text, encoding="utf-8")
    return folder / "latest.md", folder / "latest.json"
