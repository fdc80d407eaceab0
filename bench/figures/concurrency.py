"""Figure 5: concurrency. Eight operator threads send read-only requests for 20 s, each a new
graph thread, through ``services.requests.ask`` (audit, conversation, graph), as the app does per
chat message; beside it one thread alone for 10 s in the same run, on the same services.

Besides throughput and latency the figure records what bounds it: the CPU of this process (its
operator threads by time.thread_time, the rest: the pool's event loop) and of the server process
(/proc/<pid>/stat), how busy the machine's cores were (/proc/stat), and where each request's time
went (MCP calls, MCP listings, the checkpointer, the audit and conversation stores, the rest of
the graph), accounted per operator thread."""

from __future__ import annotations

import os
import statistics
import threading
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver

from bench.report import Figure, Target, summary_ms
from bench.workspace import READ_REQUEST, Workspace
from gatehouse.wiring import Services, build_services, policy_file, server_pool
from mcp_host.client import McpClient
from mcp_host.manifest import Manifest
from mcp_host.results import McpResult

SECTION = "5 concurrency"
THREADS = 8
CONCURRENT_SECONDS = 20.0
SINGLE_SECONDS = 10.0
WARMUP = 20
# Where a request's time goes; "graph" is what is left of the request's wall time.
BUCKETS = ("mcp_call", "mcp_list", "checkpoint", "stores", "graph")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


# -- per-thread time accounting -----------------------------------------------------------------


class ThreadClock:
    """Seconds per bucket, kept per OS thread: each thread adds only to its own dict."""

    def __init__(self) -> None:
        self._by_thread: dict[int, defaultdict[str, float]] = {}

    def mine(self) -> defaultdict[str, float]:
        ident = threading.get_ident()
        seconds = self._by_thread.get(ident)
        if seconds is None:
            seconds = self._by_thread[ident] = defaultdict(float)
        return seconds

    @contextmanager
    def timed(self, bucket: str) -> Iterator[None]:
        began = time.perf_counter()
        try:
            yield
        finally:
            self.mine()[bucket] += time.perf_counter() - began

    def wrap(self, target: object, method: str, bucket: str) -> None:
        """Time an instance's method (an attribute on the instance shadows the class's)."""
        inner: Callable[..., Any] = getattr(target, method)

        def timed_method(*args: Any, **kwargs: Any) -> Any:
            with self.timed(bucket):
                return inner(*args, **kwargs)

        setattr(target, method, timed_method)


class ThreadTimingClient:
    """An McpClient that adds the seconds of calls and listings to the calling thread's clock."""

    def __init__(self, inner: McpClient, clock: ThreadClock) -> None:
        self.inner = inner
        self.clock = clock

    def discover(self, *, fresh: bool = False, only: list[str] | None = None) -> Manifest:
        with self.clock.timed("mcp_list"):
            return self.inner.discover(fresh=fresh, only=only)

    def call_tool(self, server: str, name: str, arguments: dict[str, Any]) -> McpResult:
        with self.clock.timed("mcp_call"):
            return self.inner.call_tool(server, name, arguments)

    def read_resource(self, server: str, uri: str) -> McpResult:
        with self.clock.timed("mcp_call"):
            return self.inner.read_resource(server, uri)

    def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> McpResult:
        with self.clock.timed("mcp_call"):
            return self.inner.get_prompt(server, name, arguments)

    def server_names(self) -> list[str]:
        return self.inner.server_names()

    def close(self) -> None:
        self.inner.close()


def instrument(services: Services, clock: ThreadClock) -> None:
    """Time the checkpointer's and the stores' SQLite work on these services' instances."""
    for method in ("get_tuple", "put", "put_writes", "list"):
        clock.wrap(services.checkpointer, method, "checkpoint")
    clock.wrap(services.audit, "append", "stores")
    for method in ("record_request", "record_answer"):
        clock.wrap(services.conversations, method, "stores")


# -- CPU from /proc -----------------------------------------------------------------------------


def _cpu_seconds(stat_path: Path) -> float:
    """utime + stime of a process or task, from its stat file."""
    fields = stat_path.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def _children() -> dict[int, str]:
    """This process's child processes (the stdio servers), pid to command line."""
    me = os.getpid()
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == me:
                found[int(entry.name)] = (
                    (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
                )
        except (OSError, IndexError, ValueError):
            continue
    return found


def _loop_cpu() -> float:
    """CPU seconds of the pool's event-loop thread (anyio's blocking portal), from /proc."""
    total = 0.0
    for thread in threading.enumerate():
        if thread.name.startswith("asyncio-portal") and thread.native_id is not None:
            try:
                total += _cpu_seconds(Path(f"/proc/self/task/{thread.native_id}/stat"))
            except OSError:
                continue
    return total


def _machine_busy() -> tuple[float, float]:
    """Busy and total jiffies of all cores since boot (from /proc/stat)."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return float(sum(values) - idle), float(sum(values))


@dataclass
class CpuSnapshot:
    wall: float
    process: float
    loop: float
    servers: dict[int, float]
    machine_busy: float
    machine_total: float

    @classmethod
    def take(cls, servers: list[int]) -> CpuSnapshot:
        times = os.times()
        busy, total = _machine_busy()
        return cls(
            wall=time.perf_counter(),
            process=times.user + times.system,
            loop=_loop_cpu(),
            servers={pid: _cpu_seconds(Path(f"/proc/{pid}/stat")) for pid in servers},
            machine_busy=busy,
            machine_total=total,
        )


@dataclass
class CpuUse:
    """Cores used over a window (CPU seconds / wall seconds)."""

    wall_s: float
    process: float
    operator_threads: float
    loop_thread: float
    other_threads: float
    server: float
    machine_busy_fraction: float

    @classmethod
    def between(cls, before: CpuSnapshot, after: CpuSnapshot, operators: float) -> CpuUse:
        """``operators``: the CPU seconds the operator threads reported (time.thread_time)."""
        wall = after.wall - before.wall
        process = after.process - before.process
        server = sum(after.servers[p] - before.servers[p] for p in after.servers)
        machine = (after.machine_busy - before.machine_busy) / max(
            after.machine_total - before.machine_total, 1.0
        )
        return cls(
            wall_s=wall,
            process=process / wall,
            operator_threads=operators / wall,
            loop_thread=(after.loop - before.loop) / wall,
            other_threads=(process - operators - (after.loop - before.loop)) / wall,
            server=server / wall,
            machine_busy_fraction=machine,
        )

    def describe(self) -> str:
        return (
            f"this process {self.process:.2f} cores (operator threads {self.operator_threads:.2f}, "
            f"the pool's event loop {self.loop_thread:.2f}, LangGraph's short-lived executor threads "
            f"and the rest {self.other_threads:.2f}), server {self.server:.2f} cores, "
            f"machine {self.machine_busy_fraction:.0%} busy"
        )


# -- the load -----------------------------------------------------------------------------------


@dataclass
class Phase:
    """What one phase of operator threads did."""

    threads: int
    latencies: list[float] = field(default_factory=list)
    buckets: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    statuses: Counter[str] = field(default_factory=Counter)
    exceptions: Counter[str] = field(default_factory=Counter)
    tracebacks: dict[str, str] = field(default_factory=dict)
    thread_ids: list[str] = field(default_factory=list)
    operator_cpu_s: float = 0.0
    elapsed_s: float = 0.0
    cpu: CpuUse | None = None

    @property
    def errors(self) -> int:
        return sum(self.exceptions.values()) + sum(n for s, n in self.statuses.items() if s != "ok")

    @property
    def requests(self) -> int:
        return len(self.latencies)

    @property
    def per_second(self) -> float:
        return self.requests / self.elapsed_s

    def share_ms(self) -> dict[str, float]:
        """Mean milliseconds per request in each bucket."""
        total = sum(self.latencies)
        accounted = sum(self.buckets[b] for b in BUCKETS if b != "graph")
        means = {b: self.buckets[b] / self.requests * 1000 for b in BUCKETS if b != "graph"}
        means["graph"] = (total - accounted) / self.requests * 1000
        return means


def _operator(
    services: Services,
    clock: ThreadClock,
    seconds: float,
    start: threading.Barrier,
    phase: Phase,
    lock: threading.Lock,
) -> None:
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    exceptions: Counter[str] = Counter()
    tracebacks: dict[str, str] = {}
    thread_ids: list[str] = []
    start.wait()
    deadline = time.perf_counter() + seconds
    cpu_began = time.thread_time()
    clock.mine().clear()
    while time.perf_counter() < deadline:
        began = time.perf_counter()
        try:
            run = services.requests.ask(READ_REQUEST, requester="operator")
        except Exception as exc:  # noqa: BLE001 - every failure is counted and its traceback kept
            latencies.append(time.perf_counter() - began)
            kind = f"{type(exc).__name__}: {exc}"[:200]
            exceptions[kind] += 1
            tracebacks.setdefault(kind, traceback.format_exc())
            continue
        latencies.append(time.perf_counter() - began)
        status = run.final_output.status
        statuses[status] += 1
        thread_ids.append(run.final_output.thread_id)
        if status != "ok":
            tracebacks.setdefault(f"status {status}", run.final_output.model_dump_json()[:2000])
    cpu = time.thread_time() - cpu_began
    with lock:
        phase.operator_cpu_s += cpu
        phase.latencies += latencies
        phase.statuses += statuses
        phase.exceptions += exceptions
        for kind, text in tracebacks.items():
            phase.tracebacks.setdefault(kind, text)
        phase.thread_ids += thread_ids
        for bucket, seconds_in in clock.mine().items():
            phase.buckets[bucket] += seconds_in


def load(services: Services, clock: ThreadClock, threads: int, seconds: float, servers: list[int]) -> Phase:
    """``threads`` operator threads, each sending requests one after another for ``seconds``."""
    phase = Phase(threads=threads)
    lock = threading.Lock()
    start = threading.Barrier(threads + 1)

    def work() -> None:
        _operator(services, clock, seconds, start, phase, lock)

    workers = [threading.Thread(target=work, name=f"operator-{n}") for n in range(threads)]
    for worker in workers:
        worker.start()
    before = CpuSnapshot.take(servers)
    start.wait()
    for worker in workers:
        worker.join()
    after = CpuSnapshot.take(servers)
    phase.elapsed_s = after.wall - before.wall
    phase.cpu = CpuUse.between(before, after, phase.operator_cpu_s)
    return phase


def checkpointed_threads(services: Services) -> set[str]:
    saver = services.checkpointer
    assert isinstance(saver, SqliteSaver), "this figure runs on the SQLite file"
    with saver.lock:
        rows = saver.conn.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall()
    return {str(row[0]) for row in rows}


# -- the figure ---------------------------------------------------------------------------------


def run(space: Workspace) -> list[Figure]:
    settings = space.demo("filesystem")
    clock = ThreadClock()
    pool = server_pool(settings, output_cap_bytes=policy_file(settings).output.max_bytes)
    services = build_services(settings, mcp=ThreadTimingClient(pool, clock))
    try:
        instrument(services, clock)
        servers = list(_children())
        for _ in range(WARMUP):
            if services.requests.ask(READ_REQUEST, requester="operator").final_output.status != "ok":
                raise RuntimeError("the read-only request did not succeed before the load")
        single = load(services, clock, 1, SINGLE_SECONDS, servers)
        many = load(services, clock, THREADS, CONCURRENT_SECONDS, servers)
        stored = checkpointed_threads(services)
    finally:
        services.close()
        pool.close()
    return figures(single, many, stored)


def _breakdown(phase: Phase) -> str:
    shares = phase.share_ms()
    return ", ".join(f"{b} {shares[b]:.1f}" for b in BUCKETS)


def figures(single: Phase, many: Phase, stored: set[str]) -> list[Figure]:
    one, eight = summary_ms(single.latencies), summary_ms(many.latencies)
    assert single.cpu is not None and many.cpu is not None
    missing = [t for t in single.thread_ids + many.thread_ids if t not in stored]
    speedup = many.per_second / single.per_second
    shares = many.share_ms()
    waiting = shares["mcp_call"] + shares["mcp_list"] + shares["checkpoint"] + shares["stores"]
    bound = _what_bounds(single, many)
    errors = many.errors + single.errors + len(missing)
    error_notes = (
        "exceptions, 'database is locked' included, and final_output status other than ok, in both phases; "
        f"{len(missing)} answered threads without a checkpoint"
    )
    if errors:
        error_notes += "; " + "; ".join(
            f"{n}x {k}" for k, n in (many.exceptions + single.exceptions).most_common(5)
        )
        error_notes += "; statuses " + ", ".join(
            f"{s} {n}" for s, n in (many.statuses + single.statuses).items()
        )
    details: dict[str, Any] = {
        "threads": THREADS,
        "single": _phase_details(single),
        "concurrent": _phase_details(many),
        "tracebacks": many.tracebacks | single.tracebacks,
        "threads_without_checkpoint": missing[:20],
    }
    return [
        Figure(
            SECTION,
            f"{THREADS} threads, requests per second",
            many.per_second,
            "req/s",
            None,
            f"{many.requests} requests in {many.elapsed_s:.1f} s; {speedup:.2f}x the single thread; {bound}",
            details,
        ),
        Figure(
            SECTION,
            f"{THREADS} threads, p95",
            eight["p95_ms"],
            "ms",
            None,
            f"median {eight['median_ms']:.1f} ms; mean ms per request: {_breakdown(many)} "
            f"({waiting:.1f} of them inside the pool and SQLite calls, GIL and lock waits included)",
            eight,
        ),
        Figure(
            SECTION,
            "1 thread, requests per second",
            single.per_second,
            "req/s",
            None,
            f"{single.requests} requests in {single.elapsed_s:.1f} s, same services, just before; "
            f"{single.cpu.describe()}",
        ),
        Figure(
            SECTION,
            "1 thread, p95",
            one["p95_ms"],
            "ms",
            None,
            f"median {one['median_ms']:.1f} ms; mean ms per request: {_breakdown(single)}",
            one,
        ),
        Figure(SECTION, "errors under load", float(errors), "", Target("==", 0), error_notes),
    ]


def _phase_details(phase: Phase) -> dict[str, Any]:
    assert phase.cpu is not None
    return {
        "requests": phase.requests,
        "elapsed_s": round(phase.elapsed_s, 2),
        "per_second": round(phase.per_second, 1),
        "latency": summary_ms(phase.latencies),
        "mean_ms_per_request": {k: round(v, 2) for k, v in phase.share_ms().items()},
        "cores": {
            "process": round(phase.cpu.process, 2),
            "operator_threads": round(phase.cpu.operator_threads, 2),
            "loop_thread": round(phase.cpu.loop_thread, 2),
            "other_threads": round(phase.cpu.other_threads, 2),
            "server": round(phase.cpu.server, 2),
            "machine_busy_fraction": round(phase.cpu.machine_busy_fraction, 2),
        },
        "statuses": dict(phase.statuses),
        "exceptions": dict(phase.exceptions),
    }


def _cpu_ms_per_request(phase: Phase) -> tuple[float, float]:
    """CPU milliseconds per request of this process and of the server in a phase."""
    assert phase.cpu is not None
    per_request = phase.cpu.wall_s / phase.requests * 1000
    return phase.cpu.process * per_request, phase.cpu.server * per_request


def _what_bounds(single: Phase, many: Phase) -> str:
    """What limits the throughput, from the CPU each request costs this process and the server."""
    assert single.cpu is not None and many.cpu is not None
    alone_ms, _ = _cpu_ms_per_request(single)
    host_ms, server_ms = _cpu_ms_per_request(many)
    wall_ms = statistics.mean(single.latencies) * 1000
    parts = [
        f"under load {many.cpu.describe()}",
        f"CPU per request: this process {host_ms:.1f} ms, the server {server_ms:.1f} ms",
        f"one core at {host_ms:.1f} ms per request caps this process at {1000 / host_ms:.0f} req/s, and the GIL "
        "keeps its Python on about one core whatever the thread count",
        f"a single thread already keeps it {single.cpu.process:.2f} cores busy ({alone_ms:.1f} ms CPU in "
        f"{wall_ms:.1f} ms per request), so more threads can add at most {1 / single.cpu.process:.2f}x",
    ]
    if many.cpu.process >= 0.8:
        parts.append(
            "the bound is this process's Python on one core (graph and checkpoints, the pool's event loop "
            "serving every session, the stores), not the server"
        )
    elif many.cpu.machine_busy_fraction >= 0.9:
        parts.append(
            f"the machine's {os.cpu_count()} cores were {many.cpu.machine_busy_fraction:.0%} busy, so this "
            f"process got only {many.cpu.process:.2f} of a core: the bound is CPU, shared with the server and "
            "other load"
        )
    if many.cpu.server >= 0.8:
        parts.append("the stdio server is itself near one core and bounds the calls")
    return "; ".join(parts)
