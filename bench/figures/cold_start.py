"""Figure 2: cold start. The first request of a new Gatehouse (server start, discovery, the
request), and discovery of five stdio servers started in parallel against the slowest of
them started alone."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time

from bench.report import Figure, Target
from bench.workspace import READ_REQUEST, Workspace, stdio_entry
from gatehouse.wiring import server_pool
from graph.runner import start_request
from servers.names import BUNDLED

SECTION = "2 cold start"
# Five of the bundled servers, as since the figure's first run (prompts, left out then, is the
# smallest of them), so its reports stay comparable.
SERVERS = tuple(name for name in BUNDLED if name != "prompts")
ROUNDS = 3
TARGET_RATIO = 1.5


def _cold_discovery_seconds(
    space: Workspace, names: tuple[str, ...], round_no: int, *, direct: bool = False
) -> float:
    """Wall seconds from nothing running until every named server is listed.

    Each round has its own data folder, so its servers get a prefork process of their own
    (servers/prefork.py): nothing is warm from an earlier round. ``direct`` starts each as
    ``python -m servers.NAME`` instead, for comparison."""
    label = f"discovery-{'-'.join(names)}-{round_no}{'-direct' if direct else ''}"
    if direct:
        data = space.root / label
        settings = space.settings({n: stdio_entry(f"servers.{n}", data) for n in names}, name=label)
    else:
        settings = space.demo(*names, name=label)
    began = time.perf_counter()
    pool = server_pool(settings)  # starts every server in parallel and waits for them
    try:
        manifest = pool.discover()
        elapsed = time.perf_counter() - began
        missing = set(names) - set(manifest.server_names())
        if missing or manifest.problems():
            raise RuntimeError(f"discovery incomplete: missing {sorted(missing)}; {manifest.problems()}")
    finally:
        pool.close()
    return elapsed


def _import_cpu_seconds(module: str) -> float:
    """CPU seconds (user + system) a fresh interpreter spends importing ``module``: unlike wall
    time, this barely moves with how busy the machine is."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run(space: Workspace) -> list[Figure]:
    began = time.perf_counter()
    with space.services(space.demo("filesystem", name="first-request")) as services:
        outcome = start_request(services.graph, services.context, READ_REQUEST)
        first_request = time.perf_counter() - began
    if outcome.final_output.status != "ok":
        raise RuntimeError(f"the first request did not succeed: {outcome.final_output.response}")

    alone = {
        name: statistics.median(_cold_discovery_seconds(space, (name,), r) for r in range(ROUNDS))
        for name in SERVERS
    }
    together = statistics.median(_cold_discovery_seconds(space, SERVERS, r) for r in range(ROUNDS))
    direct = statistics.median(_cold_discovery_seconds(space, SERVERS, r, direct=True) for r in range(ROUNDS))
    slowest_name = max(alone, key=lambda n: alone[n])
    ratio = together / alone[slowest_name]
    # Without the prefork process, judged the same way: the same slowest server started alone
    # directly, against the five started directly in parallel (the evidence for keeping it).
    direct_alone = statistics.median(
        _cold_discovery_seconds(space, (slowest_name,), r, direct=True) for r in range(ROUNDS)
    )
    direct_ratio = direct / direct_alone
    # What each start costs the machine: a direct start imports the SDK, a launcher does not.
    server_cpu = statistics.median(_import_cpu_seconds(f"servers.{slowest_name}") for _ in range(ROUNDS))
    launcher_cpu = statistics.median(_import_cpu_seconds("servers.launch") for _ in range(ROUNDS))
    singles = ", ".join(f"{n} {alone[n] * 1000:.0f}" for n in SERVERS)
    return [
        Figure(
            SECTION,
            "first request (start, discovery, request)",
            first_request * 1000,
            "ms",
            None,
            "one stdio server",
        ),
        Figure(
            SECTION, "discovery of 5 servers in parallel", together * 1000, "ms", None, f"median of {ROUNDS}"
        ),
        Figure(
            SECTION,
            "slowest single server",
            alone[slowest_name] * 1000,
            "ms",
            None,
            f"{slowest_name}; each alone (ms): {singles}",
        ),
        Figure(
            SECTION,
            "5 in parallel / slowest alone",
            ratio,
            "x",
            Target("<=", TARGET_RATIO),
            "connections open in parallel; the servers fork from one prefork process that imported the SDK once",
        ),
        Figure(
            SECTION,
            "5 started directly in parallel",
            direct * 1000,
            "ms",
            None,
            f"python -m servers.NAME each, median of {ROUNDS}: {direct / together:.2f}x the same five through "
            f"the prefork process; each imports the SDK (about half a second of CPU) on {os.cpu_count()} cores",
        ),
        Figure(
            SECTION,
            "without prefork: 5 in parallel / slowest alone",
            direct_ratio,
            "x",
            None,
            f"{slowest_name} started directly alone: {direct_alone * 1000:.0f} ms; the target above (<= 1.5) "
            f"would be {'met' if direct_ratio <= TARGET_RATIO else 'missed'} without the prefork process",
        ),
        Figure(
            SECTION,
            "CPU of one start: direct / through the launcher",
            server_cpu / launcher_cpu,
            "x",
            None,
            f"a fresh interpreter importing servers.{slowest_name} {server_cpu * 1000:.0f} ms of CPU, importing "
            f"servers.launch {launcher_cpu * 1000:.0f} ms (the prefork process pays the server's imports once); "
            f"five direct starts need at least {5 * server_cpu / (os.cpu_count() or 1):.1f} s on {os.cpu_count()} cores",
        ),
    ]
