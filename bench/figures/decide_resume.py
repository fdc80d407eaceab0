"""Figure 4: decide and resume. From a reviewer's approval to the thread's final_output for
an approved call (the review service's decide: permission, the decision transaction, the
resume through the graph, the run recorded), with the tool's own time left out. On the SQLite
file, then on PostgreSQL (checkpoints and ledger in one database, see bench/backends.py)."""

from __future__ import annotations

import statistics
import time

from bench.backends import Backend, on_both
from bench.report import Figure, Target, summary_ms
from bench.timing_client import TimingClient
from bench.workspace import Workspace, email_for_review
from gatehouse.wiring import build_services, server_pool

SECTION = "4 decide and resume"
REVIEWS = 120
WARMUP = 10


def run(space: Workspace) -> list[Figure]:
    return on_both(lambda backend: measure(space, backend))


def measure(space: Workspace, backend: Backend) -> list[Figure]:
    section = backend.section(SECTION)
    settings = space.on(backend, "email")
    timing = TimingClient(server_pool(settings))
    services = build_services(settings, mcp=timing)
    try:
        review_ids = []
        for _ in range(REVIEWS + WARMUP):
            review_ids.append(email_for_review(services)["review_id"])
        overhead, tool, listing = [], [], []
        for n, review_id in enumerate(review_ids):
            timing.reset()
            began = time.perf_counter()
            result = services.reviews.decide(review_id, reviewer="reviewer", approve=True)
            elapsed = time.perf_counter() - began
            if result.run is None or result.run.final_output.status != "ok":
                raise RuntimeError(f"approval did not run the call: {result}")
            if n >= WARMUP:
                overhead.append(elapsed - timing.call_seconds)
                tool.append(timing.call_seconds)
                listing.append(timing.list_seconds)
    finally:
        services.close()
        timing.close()
    stats = summary_ms(overhead)
    notes = (
        f"{REVIEWS} approvals; tool time excluded (median {statistics.median(tool) * 1000:.2f} ms); "
        f"includes the fresh listing before the call (median {statistics.median(listing) * 1000:.2f} ms)"
    )
    return [
        Figure(
            section,
            "approval to final_output, median",
            stats["median_ms"],
            "ms",
            Target("<=", 15),
            notes,
            stats,
        ),
        Figure(section, "p95", stats["p95_ms"], "ms", None, "", stats),
    ]
