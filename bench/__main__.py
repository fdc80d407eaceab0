"""`python -m bench [--only FIGURE ...]`: run the figures, print each beside its target, write
bench/results/latest.{md,json} (and a timestamped copy) and each figure's bench/results/figures/NAME.json,
rewrite docs/benchmark.md from those (bench/page.py), exit 1 when a target is missed."""

from __future__ import annotations

import argparse
import importlib
import math
import sys
import time
import traceback
from pathlib import Path

from bench import page
from bench.report import Figure, render_line, write_report
from bench.workspace import workspace

FIGURES = (
    "warm_request",
    "cold_start",
    "queue_scale",
    "decide_resume",
    "concurrency",
    "memory",
    "ui_render",
    "replicas",
    "cli_start",
    "idle_tabs",
    "verified_call",
    "grant_cover",
    "suggest_rules",
    "traced_request",
    "gateway_call",
    "gateway_waits",
)
RESULTS = Path(__file__).resolve().parent / "results"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--only", nargs="+", choices=FIGURES, help="run only these figures")
    args = parser.parse_args(argv)
    chosen = args.only or list(FIGURES)
    started = time.perf_counter()
    figures: list[tuple[str, Figure]] = []
    for name in chosen:
        module = importlib.import_module(f"bench.figures.{name}")
        print(f"-- {name}", flush=True)
        began = time.perf_counter()
        with workspace() as space:
            try:
                for figure in module.run(space):
                    figures.append((name, figure))
                    print(render_line(figure), flush=True)
            except Exception as error:  # noqa: BLE001 - any crash is the figure's FAIL, with its error
                # A figure that crashes is a FAIL in the report (and on the page) with its
                # error, and the others still run: one figure's bug hides no other's results.
                traceback.print_exc()
                crashed = Figure(
                    getattr(module, "SECTION", name),
                    "the figure's run",
                    math.nan,
                    "",
                    error=f"crashed: {type(error).__name__}: {error}",
                )
                figures.append((name, crashed))
                print(render_line(crashed), flush=True)
        print(f"   ({time.perf_counter() - began:.1f} s)", flush=True)
    seconds = time.perf_counter() - started
    command = "make bench" if not args.only else f"python -m bench --only {' '.join(chosen)}"
    markdown, data = write_report(figures, RESULTS, command=command, seconds=seconds)
    failed = [f for _, f in figures if f.verdict == "FAIL"]
    print(f"\n{len(figures)} figures in {seconds:.0f} s; report: {markdown} and {data}")
    # The page shows every figure's latest results, these and those of earlier runs.
    page.main([])
    if failed:
        print(f"{len(failed)} target(s) missed: " + ", ".join(f"{f.section} / {f.name}" for f in failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
