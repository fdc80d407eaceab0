"""Figure 2: cold start. The first request of a new Gatehouse (server start, discovery, the
request), and discovery of five stdio servers started in parallel against the slowest of
them started alone."""

from __future__ import annotations

import os
import resource
import statistics
import time

from bench.report import Figure, Target
from bench.workspace import READ_REQUEST, Workspace
from gatehouse.wiring import server_pool
from graph.runner import start_request

SECTION = "2 cold start"
SERVERS = ("filesystem", "tickets", "email", "greeter", "documents")
ROUNDS = 3


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cold_discovery_seconds(space: Workspace, names: tuple[str, ...], round_no: int) -> tuple[float, float]:
    """(wall seconds until every server is listed, CPU seconds the servers used in all).

    The servers' CPU is read from the finished children (the pool waits for them on close)."""
    settings = space.demo(*names, name=f"discovery-{'-'.join(names)}-{round_no}")
    cpu_before = _children_cpu_seconds()
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
    return elapsed, _children_cpu_seconds() - cpu_before


def run(space: Workspace) -> list[Figure]:
    began = time.perf_counter()
    with space.services(space.demo("filesystem", name="first-request")) as services:
        outcome = start_request(services.graph, services.context, READ_REQUEST)
        first_request = time.perf_counter() - began
    if outcome.final_output.status != "ok":
        raise RuntimeError(f"the first request did not succeed: {outcome.final_output.response}")

    alone_runs = {
        name: [_cold_discovery_seconds(space, (name,), r) for r in range(ROUNDS)] for name in SERVERS
    }
    alone = {name: statistics.median(wall for wall, _ in runs) for name, runs in alone_runs.items()}
    server_cpu = sum(statistics.median(cpu for _, cpu in runs) for runs in alone_runs.values())
    together = statistics.median(_cold_discovery_seconds(space, SERVERS, r)[0] for r in range(ROUNDS))
    cores = os.cpu_count() or 1
    slowest_name = max(alone, key=lambda n: alone[n])
    ratio = together / alone[slowest_name]
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
            Target("<=", 1.5),
            "connections open in parallel (one task per server on the pool's loop)",
        ),
        Figure(
            SECTION,
            "best possible on this machine",
            max(alone[slowest_name], server_cpu / cores) / alone[slowest_name],
            "x",
            None,
            f"the 5 servers' start-up is CPU work ({server_cpu:.2f} s of CPU in all, mostly importing the "
            f"MCP SDK); {cores} cores cannot do it in less than {server_cpu / cores:.2f} s",
        ),
    ]
