"""Figure 9: the command line's start. `gatehouse --help` and `gatehouse reviews list` (on a data
folder with a few reviews waiting) as wall time from process start to exit, and as a ratio to
`python -c pass` timed in the same rounds, which is the interpreter's own floor on this machine
at this moment (so a busy machine shows in both)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.report import Figure, Target
from bench.workspace import SEND_REQUEST, Workspace
from graph.runner import start_request

SECTION = "9 command line start"
REPO = Path(__file__).resolve().parents[2]
ROUNDS = 15
REVIEWS = 3
HELP_TARGET_MS = 300.0
LIST_TARGET_MS = 600.0


def _seconds(argv: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one process, start to exit; it must succeed."""
    began = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO, timeout=120, check=False)
    elapsed = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[1:])} exited {done.returncode}: {done.stderr.strip()}")
    return elapsed


def _with_reviews(space: Workspace) -> dict[str, str]:
    """A data folder whose database holds REVIEWS pending reviews (real requests that stopped
    for review), and the environment that points the command line at it."""
    settings = space.demo("email", name="cli-start")
    with space.services(settings) as services:
        for n in range(REVIEWS):
            outcome = start_request(services.graph, services.context, SEND_REQUEST, thread_id=f"cli-{n}")
            if outcome.final_output.status != "needs_review":
                raise RuntimeError(f"request {n} did not stop for review: {outcome.final_output.response}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEHOUSE_")}
    return env | {"GATEHOUSE_DATA": str(settings.data_dir), "GATEHOUSE_SERVERS": str(settings.servers_path)}


def run(space: Workspace) -> list[Figure]:
    env = _with_reviews(space)
    # `python -m gatehouse.cli` from the repository: the code of this checkout, as the tests run it.
    gatehouse = [sys.executable, "-m", "gatehouse.cli"]
    commands = {
        "floor": [sys.executable, "-c", "pass"],
        "help": [*gatehouse, "--help"],
        "list": [*gatehouse, "reviews", "list"],
    }
    samples: dict[str, list[float]] = {name: [] for name in commands}
    _seconds(commands["list"], env)  # once unmeasured: the file cache, the bytecode
    # Interleaved, so a burst of load elsewhere hits all three alike.
    for _ in range(ROUNDS):
        for name, argv in commands.items():
            samples[name].append(_seconds(argv, env))
    floor, help_s, list_s = (statistics.median(samples[name]) for name in ("floor", "help", "list"))
    rounds = f"median of {ROUNDS}, interleaved with `python -c pass`"
    return [
        Figure(SECTION, "python -c pass (the floor)", floor * 1000, "ms", None, rounds),
        Figure(
            SECTION,
            "gatehouse --help",
            help_s * 1000,
            "ms",
            Target("<=", HELP_TARGET_MS),
            f"{rounds}; imports argparse and the command line's own modules only",
        ),
        Figure(SECTION, "gatehouse --help / python -c pass", help_s / floor, "x", None, rounds),
        Figure(
            SECTION,
            f"gatehouse reviews list ({REVIEWS} reviews)",
            list_s * 1000,
            "ms",
            Target("<=", LIST_TARGET_MS),
            f"{rounds}; SQLite file; reads the ledger without the graph or the MCP SDK",
        ),
        Figure(SECTION, "gatehouse reviews list / python -c pass", list_s / floor, "x", None, rounds),
    ]
