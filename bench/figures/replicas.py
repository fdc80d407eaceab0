"""Figure 8: replicas. One, two and four Gatehouse replicas (bench/replica.py: a process with
the services the web app opens) on one PostgreSQL database, serving the same mixed load from
this process, the load generator: CLIENTS client threads, each repeating a cycle of

    ask    "Send an email to ... saying <unique tag>"  (the policy stops it for a review)
    queue  read the pending reviews
    decide approve the review its ask opened

each step on the next replica round-robin, so a review opened on one replica is decided on
another. The load is the same for every replica count; only where it is served changes.

Besides throughput the figure counts what must not happen: errors (HTTP 500 from a replica:
any exception), reviews decided twice (ledger rows against decisions won) and calls run twice
(the e-mail server's outbox, written by the tool itself, against decisions won, by tag). It also
records what bounds the throughput: CPU of the replicas (with their stdio servers), of
PostgreSQL's processes and of the whole machine, which has only a few cores.

Why rounds: the speed a shared machine gives a process drifts from one minute to the next, on the same
cores, far more than the difference the figure is about. So the three replica sets run side by side for the
whole figure, idle but for the set under load, and take turns: ROUNDS rounds, each giving every
set a short window (in an order that rotates, so no set always comes first). The ratio is the
median of the rounds' ratios, each taken between windows a few seconds apart.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import psycopg

from bench.backends import postgres_server
from bench.report import Figure, Target, listed, summary_ms
from bench.workspace import Workspace
from gatehouse.settings import Settings
from gatehouse.wiring import open_services
from storage.postgres import scratch_schema, unreachable

SECTION = "8 replicas (PostgreSQL)"
# Settings, for a machine with more cores (../shared/tools/replicas-on-device/): the load
# generator's clients, and the replica counts measured side by side (1 must be among them).
CLIENTS_ENV = "FIG8_CLIENTS"
REPLICAS_ENV = "FIG8_REPLICAS"
DEFAULT_CLIENTS = 8
DEFAULT_REPLICA_COUNTS = (1, 2, 4)
# The most active database sessions of four replicas that may wait on a lock (issue 31).
LOCK_WAIT_TARGET_PERCENT = 10.0
# Below this many cores the replicas, PostgreSQL and the load generator share too few for the
# ratios of throughput to show scaling: the ratios per busy core are judged instead (the
# absolute ones are still reported).
CORES_TO_JUDGE_THROUGHPUT = 8
# Throughput per busy core of N replicas over one's: 0.75 is what 1.5x of 2x was.
PER_CORE_TARGET = 0.75
# Absolute targets, judged where CORES_TO_JUDGE_THROUGHPUT are at hand; 8 replicas only on 16.
ABSOLUTE_TARGETS = {2: (1.5, CORES_TO_JUDGE_THROUGHPUT), 8: (7.0, 16)}
ROUNDS = 5
WARMUP_SECONDS = 2.0
WINDOW_SECONDS = 6.0
READY_SECONDS = 120.0
REQUEST_SECONDS = 120.0
# Connections per replica's pool: CLIENTS threads at most, and four replicas of it must fit
# in the server's max_connections beside whatever else uses it.
POOL_SIZE = 6
REVIEWER = "reviewer"
ROOT = Path(__file__).resolve().parents[2]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# The replicas' connections carry this name and their set's count, so their sessions can be
# told from others' in pg_stat_activity (the server is shared with whatever else runs on the
# machine, the other replica sets included).
APPLICATION_NAME = "gatehouse-bench-replica"
SAMPLE_SECONDS = 0.05


def clients() -> int:
    return _positive(os.environ.get(CLIENTS_ENV), CLIENTS_ENV, DEFAULT_CLIENTS)


def replica_counts() -> tuple[int, ...]:
    value = os.environ.get(REPLICAS_ENV)
    if not value:
        return DEFAULT_REPLICA_COUNTS
    counts = tuple(sorted({_positive(part.strip(), REPLICAS_ENV, 0) for part in value.split(",")}))
    if 1 not in counts:
        raise ValueError(
            f"{REPLICAS_ENV}={value!r}: the counts must include 1, which the others are held against"
        )
    return counts


def _positive(value: str | None, variable: str, default: int) -> int:
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise ValueError(f"{variable}={value!r}: a whole number of 1 or more")
    return number


def application_name(count: int) -> str:
    return f"{APPLICATION_NAME}-{count}"


# -- the replicas ---------------------------------------------------------------------------


@dataclass
class Replica:
    process: subprocess.Popen[str]
    port: int


@contextmanager
def replicas(count: int, env: dict[str, str]) -> Iterator[list[Replica]]:
    """Start ``count`` replicas at once, wait until each has its services open; stop them after."""
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "bench.replica"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    try:
        started = [Replica(p, _ready_port(p)) for p in processes]
        yield started
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGINT)  # closes its services and servers cleanly
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    stream.close()


def _ready_port(process: subprocess.Popen[str]) -> int:
    assert process.stdout is not None and process.stderr is not None
    deadline = threading.Timer(READY_SECONDS, process.kill)
    deadline.start()
    try:
        line = process.stdout.readline()
    finally:
        deadline.cancel()
    if not line.startswith("READY "):
        raise RuntimeError(f"a replica did not start: {process.stderr.read()[-3000:]}")
    return int(line.split()[1])


# -- the load generator ---------------------------------------------------------------------


@dataclass
class ClientLog:
    """What one client thread saw; each thread writes only its own."""

    done: list[tuple[str, float, float]] = field(default_factory=list)  # (step, ended at, seconds)
    errors: list[str] = field(default_factory=list)
    decisions: Counter[str] = field(default_factory=Counter)
    approved_tags: list[str] = field(default_factory=list)


class Client:
    """One keep-alive connection per replica (so one server thread each, as one browser tab)."""

    def __init__(self, ports: list[int]) -> None:
        self._connections = [
            http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_SECONDS) for port in ports
        ]

    def request(
        self, replica: int, method: str, path: str, body: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        connection = self._connections[replica % len(self._connections)]
        if body is None:
            connection.request(method, path)
        else:
            payload = json.dumps(body).encode()
            connection.request(method, path, body=payload, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        answer: dict[str, Any] = json.loads(response.read())
        if response.status != 200:
            raise RuntimeError(f"{path} on replica {replica % len(self._connections)}: {answer.get('error')}")
        return answer

    def close(self) -> None:
        for connection in self._connections:
            connection.close()


def client_loop(number: int, ports: list[int], stop: threading.Event, log: ClientLog, round_: int) -> None:
    client = Client(ports)
    replica = number  # clients start on different replicas
    cycle = 0
    try:
        while not stop.is_set():
            tag = f"r{round_}c{number}-{cycle}"  # unique across rounds: the outbox is counted by tag
            cycle += 1
            try:
                began = time.perf_counter()
                asked = client.request(
                    replica, "POST", "/ask", {"text": f"Send an email to bob@example.com saying {tag}"}
                )
                log.done.append(("ask", time.perf_counter(), time.perf_counter() - began))
                if asked["status"] != "needs_review" or not asked["review"]:
                    raise RuntimeError(f"the send did not wait for a review: {asked}")
                replica += 1
                began = time.perf_counter()
                client.request(replica, "GET", "/queue")
                log.done.append(("queue", time.perf_counter(), time.perf_counter() - began))
                replica += 1
                began = time.perf_counter()
                decided = client.request(
                    replica,
                    "POST",
                    "/decide",
                    {"review": asked["review"], "reviewer": REVIEWER, "approve": True},
                )
                log.done.append(("decide", time.perf_counter(), time.perf_counter() - began))
                log.decisions[decided["outcome"]] += 1
                if decided["outcome"] == "won":
                    if decided["status"] != "ok":
                        raise RuntimeError(f"an approved send did not run: {decided}")
                    log.approved_tags.append(tag)
            except Exception as exc:  # noqa: BLE001 - counted and reported by the figure
                log.errors.append(f"{type(exc).__name__}: {exc}")
                client.close()
                client = Client(ports)  # a broken keep-alive connection is not reused
    finally:
        client.close()


# -- CPU from /proc -------------------------------------------------------------------------


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _tree_cpu(root: int) -> float:
    """CPU seconds of a process and its live descendants (a replica and its stdio servers)."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = _stat(int(entry.name))
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
            cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo.extend(child for child, parent in parents.items() if parent == pid)
    return total


def _postgres_cpu() -> float:
    total = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() in {"postgres", "postmaster"}:
                    fields = _stat(int(entry.name))
                    total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
            except OSError:
                continue
    return total


def _machine() -> tuple[float, float]:
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return float(sum(values) - idle), float(sum(values))


def _process_cpu(pid: int) -> float:
    try:
        fields = _stat(pid)
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


@dataclass(frozen=True)
class CpuSample:
    replicas: float
    postgres: float
    generator: float
    busy: float
    total: float
    # CPU seconds of each PostgreSQL backend serving the replica set, by pid.
    sessions: dict[int, float] = field(default_factory=dict)

    @classmethod
    def take(cls, pids: list[int], sessions: list[int] | None = None) -> CpuSample:
        busy, total = _machine()
        times = os.times()
        return cls(
            sum(_tree_cpu(pid) for pid in pids),
            _postgres_cpu(),
            times.user + times.system,
            busy,
            total,
            {pid: _process_cpu(pid) for pid in sessions or []},
        )


def used_seconds(before: CpuSample, after: CpuSample) -> float:
    """CPU seconds the figure's own processes used between two samples: the replicas with their
    servers, the PostgreSQL backends serving them (one started meanwhile from nothing), and the
    load generator. Not what others running on a shared machine used."""
    sessions = sum(cpu - before.sessions.get(pid, 0.0) for pid, cpu in after.sessions.items())
    return (after.replicas - before.replicas) + sessions + (after.generator - before.generator)


def session_pids(server: str, name: str) -> list[int]:
    """The PostgreSQL backends of the sessions named ``name`` (a replica set's)."""
    with psycopg.connect(server, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (name,)
        ).fetchall()
    return [int(pid) for (pid,) in rows]


# -- what the replicas' database sessions wait on -------------------------------------------


class DatabaseWaits:
    """Samples one replica set's sessions in pg_stat_activity (they connect with its
    application_name) every SAMPLE_SECONDS: how many are running a statement, what each waits
    on (by wait_event_type: a waiting moved from a row lock to anything else shows there), and
    which wait on a lock (a row lock held by another session: the ledger's review rows, an
    audit chain's head row)."""

    def __init__(self, server: str, name: str = APPLICATION_NAME) -> None:
        self._server = server
        self.name = name
        self.samples = 0
        self.active = 0
        self.lock_waits: Counter[str] = Counter()
        self.waits: Counter[str] = Counter()
        self.events: Counter[str] = Counter()

    def run(self, stop: threading.Event) -> None:
        with psycopg.connect(self._server, autocommit=True) as conn:
            while not stop.wait(SAMPLE_SECONDS):
                rows = conn.execute(
                    "SELECT wait_event_type, wait_event, left(regexp_replace(query, '\\s+', ' ', 'g'), 70) "
                    "FROM pg_stat_activity WHERE application_name = %s AND state = 'active'",
                    (self.name,),
                ).fetchall()
                self.samples += 1
                self.active += len(rows)
                for wait_type, event, query in rows:
                    self.waits[str(wait_type or "running")] += 1
                    if wait_type is not None:
                        self.events[f"{wait_type}:{event}"] += 1
                    if wait_type == "Lock":
                        self.lock_waits[str(query)] += 1

    def summary(self) -> dict[str, Any]:
        samples = max(self.samples, 1)
        return {
            "samples": self.samples,
            "active_sessions": self.active / samples,
            "waiting_on_a_lock": sum(self.lock_waits.values()) / samples,
            # Of the active sessions sampled, the share waiting on a lock (0 to 1).
            "lock_wait_share": sum(self.lock_waits.values()) / self.active if self.active else 0.0,
            "waits_by_type": {kind: n / max(self.active, 1) for kind, n in self.waits.most_common()},
            # Sessions waiting on each wait event, on average (mean of samples).
            "top_wait_events": {event: n / samples for event, n in self.events.most_common(5)},
            "top_lock_waits": dict(self.lock_waits.most_common(3)),
        }


# -- one replica count ------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    count: int
    steps_per_s: float
    cycles_per_s: float
    latency: dict[str, dict[str, float]]
    errors: list[str]
    decisions_won: int
    already_decided: int
    decided_twice: int
    run_twice: int
    lost: int
    cores: dict[str, float]
    # Throughput in each round's window, in round order.
    rounds: list[float] = field(default_factory=list)
    # The same per core the machine kept busy in that window (0.0 where it measured none).
    rounds_per_core: list[float] = field(default_factory=list)
    # The cores the machine kept busy in each round's window.
    rounds_busy_cores: list[float] = field(default_factory=list)
    waits: dict[str, Any] = field(default_factory=dict)


@dataclass
class Window:
    """One replica set's turn in one round: what its clients saw and what the machine did."""

    logs: list[ClientLog]
    start: float
    end: float
    before: CpuSample
    after: CpuSample

    @property
    def seconds(self) -> float:
        return self.end - self.start

    def steps(self) -> list[tuple[str, float]]:
        """(step, seconds) of the requests that ended inside the window."""
        return [
            (step, s) for log in self.logs for step, ended, s in log.done if self.start <= ended < self.end
        ]

    def steps_per_s(self) -> float:
        return len(self.steps()) / self.seconds

    def busy_cores(self) -> float:
        """How many of the machine's cores were busy, on average, during the window."""
        ticks = self.after.total - self.before.total
        return (self.after.busy - self.before.busy) / ticks * (os.cpu_count() or 1) if ticks else 0.0

    def used_cores(self) -> float:
        """How many cores the figure's own processes kept busy, on average, during the window
        (used_seconds): on a shared machine, what others run is not counted against them."""
        return used_seconds(self.before, self.after) / self.seconds if self.seconds > 0 else 0.0

    def steps_per_busy_core(self) -> float:
        """Throughput per core the figure's own processes kept busy."""
        cores = self.used_cores()
        return self.steps_per_s() / cores if cores > 0 else 0.0


@dataclass
class ReplicaSet:
    """``count`` replicas on a database schema of their own, started once for the whole figure."""

    count: int
    settings: Settings
    ports: list[int]
    pids: list[int]
    windows: list[Window] = field(default_factory=list)


@contextmanager
def replica_set(space: Workspace, server: str, count: int) -> Iterator[ReplicaSet]:
    with scratch_schema(server, prefix=f"bench_replicas{count}") as url:
        settings = space.demo("email", name=f"replicas-{count}", db_url=url)
        env = {k: v for k, v in os.environ.items() if not k.startswith("GATEHOUSE_")} | {
            "GATEHOUSE_DB": f"{url}&application_name={application_name(count)}",
            "GATEHOUSE_DATA": str(settings.data_dir),
            "GATEHOUSE_SERVERS": str(settings.servers_path),
            "GATEHOUSE_DB_POOL_SIZE": str(POOL_SIZE),
        }
        # Create the tables once, before the replicas race to (they would wait on the migration lock).
        with open_services(settings, connect_servers=False):
            pass
        with replicas(count, env) as started:
            yield ReplicaSet(count, settings, [r.port for r in started], [r.process.pid for r in started])


def load_window(replica_set: ReplicaSet, round_: int, waits: DatabaseWaits, server: str) -> Window:
    """The load on one replica set: WARMUP_SECONDS, then WINDOW_SECONDS measured."""
    stop = threading.Event()
    count = clients()
    logs = [ClientLog() for _ in range(count)]
    threads = [
        threading.Thread(target=client_loop, args=(n, replica_set.ports, stop, logs[n], round_), daemon=True)
        for n in range(count)
    ]
    for thread in threads:
        thread.start()
    time.sleep(WARMUP_SECONDS)
    stop_sampling = threading.Event()
    sampler = threading.Thread(target=waits.run, args=(stop_sampling,), daemon=True)
    before = CpuSample.take(replica_set.pids, session_pids(server, waits.name))
    start = time.perf_counter()
    sampler.start()
    time.sleep(WINDOW_SECONDS)
    stop_sampling.set()
    end = time.perf_counter()
    after = CpuSample.take(replica_set.pids, session_pids(server, waits.name))
    stop.set()
    for thread in [*threads, sampler]:
        thread.join(timeout=REQUEST_SECONDS)
    return Window(logs, start, end, before, after)


def measure(space: Workspace, server: str) -> dict[int, Run]:
    """Every replica set side by side; ROUNDS rounds of a window each, in a rotating order."""
    with ExitStack() as stack:
        sets = [stack.enter_context(replica_set(space, server, count)) for count in replica_counts()]
        waits = {s.count: DatabaseWaits(server, application_name(s.count)) for s in sets}
        for round_ in range(ROUNDS):
            turn = round_ % len(sets)
            for taking_turn in sets[turn:] + sets[:turn]:
                taking_turn.windows.append(load_window(taking_turn, round_, waits[taking_turn.count], server))
        # Judged while the replicas still run: closing them closes nothing that was counted.
        return {s.count: replace(_judge(s), waits=waits[s.count].summary()) for s in sets}


def _judge(replica_set: ReplicaSet) -> Run:
    settings, windows = replica_set.settings, replica_set.windows
    wall = sum(w.seconds for w in windows)
    in_window = [step for w in windows for step in w.steps()]
    by_step: dict[str, list[float]] = {}
    for step, seconds in in_window:
        by_step.setdefault(step, []).append(seconds)
    logs = [log for w in windows for log in w.logs]
    won = sum(log.decisions["won"] for log in logs)
    tags = [tag for log in logs for tag in log.approved_tags]
    outbox = settings.data_dir / "demo" / "outbox.jsonl"
    sent = (
        Counter(
            json.loads(line)["body"].rsplit("saying ", 1)[-1]
            for line in outbox.read_text(encoding="utf-8").splitlines()
            if line.strip()
        )
        if outbox.exists()
        else Counter()
    )
    with open_services(settings, connect_servers=False) as services:
        executed = services.ledger.count("executed")
        decided = services.ledger.count_decided()
    ticks = sum(w.after.total - w.before.total for w in windows)
    busy = sum(w.after.busy - w.before.busy for w in windows)
    cores = {
        "replicas": sum(w.after.replicas - w.before.replicas for w in windows) / wall,
        "postgres": sum(w.after.postgres - w.before.postgres for w in windows) / wall,
        "load_generator": sum(w.after.generator - w.before.generator for w in windows) / wall,
        "machine_busy": busy / ticks * (os.cpu_count() or 1) if ticks else 0.0,
        "database_sessions": sum(
            cpu - w.before.sessions.get(pid, 0.0) for w in windows for pid, cpu in w.after.sessions.items()
        )
        / wall,
        "own": sum(used_seconds(w.before, w.after) for w in windows) / wall,
    }
    # What else ran on the machine meanwhile (other people's tests on a shared machine).
    cores["others"] = max(
        cores["machine_busy"] - cores["replicas"] - cores["postgres"] - cores["load_generator"], 0.0
    )
    return Run(
        count=replica_set.count,
        steps_per_s=len(in_window) / wall,
        cycles_per_s=len(by_step.get("decide", [])) / wall,
        rounds=[w.steps_per_s() for w in windows],
        rounds_per_core=[w.steps_per_busy_core() for w in windows],
        rounds_busy_cores=[w.busy_cores() for w in windows],
        latency={step: summary_ms(samples) for step, samples in sorted(by_step.items())},
        errors=[error for log in logs for error in log.errors],
        decisions_won=won,
        already_decided=sum(log.decisions["already_decided"] for log in logs),
        # A review the ledger counts as decided more often than decisions were won, or a
        # message the tool wrote more than once: the two things that must never happen.
        decided_twice=max(decided - won, 0) + max(executed - won, 0),
        run_twice=sum(n - 1 for n in sent.values() if n > 1) + max(sum(sent.values()) - won, 0),
        lost=sum(1 for tag in tags if tag not in sent),
        cores=cores,
    )


def round_ratios(runs: dict[int, Run], count: int, *, per_core: bool = False) -> list[float]:
    """Each round's throughput of ``count`` replicas over one replica's in the same round;
    ``per_core``: each throughput divided by the cores the machine kept busy meanwhile."""

    def rounds(run: Run) -> list[float]:
        return run.rounds_per_core if per_core else run.rounds

    return [many / one for many, one in zip(rounds(runs[count]), rounds(runs[1]), strict=True) if one > 0]


def run(space: Workspace) -> list[Figure]:
    server = postgres_server()
    problem = unreachable(server)
    if problem is not None:
        return [
            Figure(SECTION, "2 replicas / 1, throughput", float("nan"), "x", Target(">=", 1.5), error=problem)
        ]
    return run_figures(measure(space, server))


def run_figures(runs: dict[int, Run]) -> list[Figure]:
    """The figures of every replica set's run, judged as this machine allows."""
    figures = [_throughput(result) for result in runs.values()]
    figures += [_lock_waits(result) for result in runs.values() if result.count > 1]
    for count in runs:
        if count > 1:
            figures += _ratios(runs, count)
    return figures + _checks(runs)


def _percent_waiting(result: Run) -> float:
    return 100.0 * float(result.waits.get("lock_wait_share", 0.0))


def _throughput(result: Run) -> Figure:
    return Figure(
        SECTION,
        f"{result.count} replica{'s' if result.count > 1 else ''}: throughput",
        result.steps_per_s,
        "req/s",
        None,
        f"{clients()} clients, {ROUNDS} windows of {WINDOW_SECONDS:.0f} s (by window: "
        f"{', '.join(f'{r:.0f}' for r in result.rounds)}); {result.cycles_per_s:.1f} ask-queue-decide cycles/s; "
        f"cores busy: replicas with their servers {result.cores['replicas']:.2f}, their PostgreSQL sessions "
        f"{result.cores['database_sessions']:.2f} (the whole PostgreSQL server {result.cores['postgres']:.2f}), "
        f"load generator {result.cores['load_generator']:.2f}, other processes {result.cores['others']:.2f}; "
        f"machine {result.cores['machine_busy']:.2f} of {os.cpu_count()}; database sessions running a statement "
        f"{result.waits.get('active_sessions', 0):.1f}, waiting on a lock {result.waits.get('waiting_on_a_lock', 0):.2f} "
        f"(mean of samples: {_percent_waiting(result):.0f}% of them)",
        {
            "rounds": result.rounds,
            "latency": result.latency,
            "cores": result.cores,
            "database": result.waits,
            "errors": result.errors[:5],
        },
    )


def _lock_waits(result: Run) -> Figure:
    """The share of the set's active database sessions waiting on a lock: judged with four
    replicas, where the audit log's one head row once kept most of them waiting
    (docs/audit-log.md)."""
    waits = ", ".join(f"{kind} {share:.0%}" for kind, share in result.waits.get("waits_by_type", {}).items())
    events = ", ".join(f"{event} {n:.2f}" for event, n in result.waits.get("top_wait_events", {}).items())
    return Figure(
        SECTION,
        f"{result.count} replicas: active database sessions waiting on a lock",
        _percent_waiting(result),
        "%",
        Target("<=", LOCK_WAIT_TARGET_PERCENT) if result.count == 4 else None,
        f"{result.waits.get('samples', 0)} samples of pg_stat_activity every {SAMPLE_SECONDS * 1000:.0f} ms "
        f"in the windows, {result.waits.get('active_sessions', 0):.1f} sessions active on average; what "
        f"they waited on: {waits or 'nothing sampled'} (sessions per wait event: {events or 'none'}); "
        "the statements waiting most on a lock: "
        f"{'; '.join(result.waits.get('top_lock_waits', {})) or 'none'}",
        {"database": result.waits},
    )


def _ratios(runs: dict[int, Run], count: int) -> list[Figure]:
    """N replicas against one: the ratio of throughput, and the same per busy core. Which is
    judged depends on the machine: with few cores, the one per busy core (CORES_TO_JUDGE_THROUGHPUT)."""
    cores = os.cpu_count() or 1
    absolute, per_core = round_ratios(runs, count), round_ratios(runs, count, per_core=True)
    limit, cores_needed = ABSOLUTE_TARGETS.get(count, (None, 0))
    judge_absolute = limit is not None and cores >= cores_needed and cores >= CORES_TO_JUDGE_THROUGHPUT
    judge_per_core = cores < CORES_TO_JUDGE_THROUGHPUT
    figures = [
        Figure(
            SECTION,
            f"{count} replicas / 1, throughput",
            statistics.median(absolute) if absolute else float("nan"),
            "x",
            Target(">=", limit) if judge_absolute and limit is not None else None,
            f"median of {len(absolute)} rounds ({listed(absolute)}; over all windows "
            f"{runs[count].steps_per_s / runs[1].steps_per_s:.2f}x); the same load from one generator process"
            + (
                ""
                if judge_absolute or limit is None
                else f"; target >= {limit:g} on {max(cores_needed, CORES_TO_JUDGE_THROUGHPUT)}+ cores, not judged on {cores}"
            ),
            {"rounds": absolute},
        ),
        Figure(
            SECTION,
            f"{count} replicas / 1, throughput per busy core",
            statistics.median(per_core) if per_core else float("nan"),
            "x",
            Target(">=", PER_CORE_TARGET) if judge_per_core else None,
            f"median of {len(per_core)} rounds ({listed(per_core)}); each throughput over the cores the figure's "
            "own processes kept busy in its window (replicas, their servers, their PostgreSQL sessions, the load "
            "generator; not what others ran meanwhile): how well replicas use the cores they get, judged where "
            f"the machine has fewer than {CORES_TO_JUDGE_THROUGHPUT} cores, too few to give N replicas N times one's",
            {"rounds": per_core},
        ),
    ]
    if count == 2:
        # What two replicas could give at most here: every core busy, each as productive as the
        # cores one replica kept busy in the same round.
        ceiling = [cores / busy for busy in runs[1].rounds_busy_cores if busy > 0]
        figures.append(
            Figure(
                SECTION,
                "2 replicas / 1, the most this machine allows",
                statistics.median(ceiling) if ceiling else float("nan"),
                "x",
                None,
                f"median of {len(ceiling)} rounds ({listed(ceiling)}): the machine's {cores} cores "
                "over the cores it kept busy while one replica served (the replica, its servers, PostgreSQL, "
                "the load generator, and whatever else ran); two replicas exceed it only by using the cores "
                "better than one does",
                {"rounds": ceiling},
            )
        )
    return figures


def _checks(runs: dict[int, Run]) -> list[Figure]:
    all_runs = list(runs.values())
    return [
        Figure(
            SECTION,
            "errors",
            sum(len(r.errors) for r in all_runs),
            "",
            Target("==", 0),
            "; ".join(e for r in all_runs for e in r.errors[:2])[:300],
        ),
        Figure(
            SECTION,
            "reviews decided twice",
            sum(r.decided_twice for r in all_runs),
            "",
            Target("==", 0),
            f"ledger against {sum(r.decisions_won for r in all_runs)} decisions won "
            f"({sum(r.already_decided for r in all_runs)} refused as already decided)",
        ),
        Figure(
            SECTION,
            "calls run twice",
            sum(r.run_twice for r in all_runs),
            "",
            Target("==", 0),
            "the e-mail server's outbox (written by the tool), by tag, against decisions won",
        ),
        Figure(
            SECTION,
            "approved calls never run",
            sum(r.lost for r in all_runs),
            "",
            Target("==", 0),
            "a decision won whose message is not in the outbox",
        ),
    ]
