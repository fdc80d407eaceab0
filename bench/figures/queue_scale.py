"""Figure 3: the queue at scale. What the Reviews page reads per rerun (the expiry sweep, the
pending count and one page of pending reviews, from the ledger's indexed rows) with 100
pending reviews among 10,000 threads and over 100,000 checkpoints in the checkpointer;
beside it a naive scan of the checkpointer for the threads that wait for a person. On the
SQLite file (SqliteSaver), then on PostgreSQL (PostgresSaver, see bench/backends.py).

The data: the real graph runs a few read-only requests and a few e-mails that are approved
or rejected (the templates), and the 100 e-mails that stay pending; then SQL copies every
row of each finished template under new thread ids (checkpoints, writes and on PostgreSQL
the channel blobs, the review, its decisions and execution, the conversation) until there
are 10,000 threads, each copy's timestamps a minute further back: one INSERT ... SELECT per
table in one transaction. A copy's checkpoint blobs still name the template's thread inside
their state values; nothing read here looks at them."""

from __future__ import annotations

import itertools
import sqlite3
import statistics
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

from bench.backends import Backend, on_both
from bench.process_memory import reset_peak, vm_status
from bench.report import Figure, Target, summary_ms
from bench.workspace import READ_REQUEST, SEND_REQUEST, Workspace
from gatehouse.settings import Settings
from gatehouse.wiring import Services
from graph.runner import pending_interrupt, start_request

SECTION = "3 queue at scale"
THREADS = 10_000
MIN_CHECKPOINTS = 100_000
PENDING = 100
PAGE = 100
# What views/review_queue.py shows per page and of the history.
PAGE_SIZE = 50
HISTORY_SIZE = 50
READ_TEMPLATES = 3
APPROVED_TEMPLATES = 3
REJECTED_TEMPLATES = 2
REPEATS = 200
WARMUP = 20
INTERRUPT = "__interrupt__"


def _sqlite_earlier(column: str) -> str:
    """The template's timestamp (ISO, milliseconds, +00:00) moved back one minute per copy, so
    copies do not share created_at / decided_at values (NULL stays NULL)."""
    return (
        f"strftime('%Y-%m-%dT%H:%M:%f', substr(t.{column}, 1, 23), '-' || c.n || ' minutes')"
        f" || substr(t.{column}, 24)"
    )


def _postgres_earlier(column: str) -> str:
    """As _sqlite_earlier, in PostgreSQL's functions."""
    return (
        f"to_char(substr(t.{column}, 1, 23)::timestamp - c.n * interval '1 minute',"
        f" 'YYYY-MM-DD\"T\"HH24:MI:SS.MS') || substr(t.{column}, 24)"
    )


# Per table: the column expressions that differ in a copy (``t`` the template's row, ``c`` the
# copies row: n, template, thread_id), and how the table's template rows are found.
Copies = dict[str, tuple[dict[str, str], str]]


def _copied(checkpoint_tables: tuple[str, ...], earlier: Callable[[str], str]) -> Copies:
    """The checkpointer's tables (each keyed by thread_id), then the ledger's and the
    conversations' (parents before the rows that reference them)."""
    checkpoints: Copies = {
        table: ({"thread_id": "c.thread_id"}, f"JOIN {table} t ON t.thread_id = c.template")
        for table in checkpoint_tables
    }
    return checkpoints | {
        "reviews": (
            {
                "id": "replace(t.id, c.template, c.thread_id)",
                "thread_id": "c.thread_id",
                "payload": "replace(t.payload, c.template, c.thread_id)",
            }
            | {column: earlier(column) for column in ("created_at", "expires_at", "decided_at")},
            "JOIN reviews t ON t.thread_id = c.template",
        ),
        "review_decisions": (
            {
                "review_id": "replace(t.review_id, c.template, c.thread_id)",
                "decided_at": earlier("decided_at"),
            },
            "JOIN reviews r ON r.thread_id = c.template JOIN review_decisions t ON t.review_id = r.id",
        ),
        "review_executions": (
            {"review_id": "replace(t.review_id, c.template, c.thread_id)", "thread_id": "c.thread_id"},
            "JOIN review_executions t ON t.thread_id = c.template",
        ),
        "conversations": (
            {"thread_id": "c.thread_id"}
            | {column: earlier(column) for column in ("created_at", "updated_at")},
            "JOIN conversations t ON t.thread_id = c.template",
        ),
        "conversation_messages": (
            {"thread_id": "c.thread_id"},
            "JOIN conversation_messages t ON t.thread_id = c.template",
        ),
    }


def _insert_copies(table: str, columns: list[str], copies: Copies) -> str:
    changed, source = copies[table]
    select = ", ".join(changed.get(column, f"t.{column}") for column in columns)
    return f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select} FROM copies c {source}"


# The ledger's statements behind a rerun of the Reviews page, for the query plans.
_STATEMENTS = {
    "page": "SELECT * FROM reviews WHERE status = 'pending' ORDER BY created_at, id LIMIT 100 OFFSET 0",
    "count": "SELECT COUNT(*) FROM reviews WHERE status = 'pending'",
    "expiry sweep": "SELECT id FROM reviews WHERE status = 'pending' AND expires_at <= '9999'",
    "history": "SELECT * FROM reviews WHERE decided_at IS NOT NULL ORDER BY decided_at DESC, id DESC LIMIT 50",
    "count decided": "SELECT COUNT(*) FROM reviews WHERE decided_at IS NOT NULL",
}
_COUNTS = {
    "threads": "SELECT COUNT(DISTINCT thread_id) FROM checkpoints",
    "checkpoints": "SELECT COUNT(*) FROM checkpoints",
    "reviews": "SELECT COUNT(*) FROM reviews",
    "pending": "SELECT COUNT(*) FROM reviews WHERE status = 'pending'",
    "decided": "SELECT COUNT(*) FROM reviews WHERE decided_at IS NOT NULL",
}


class SqliteData:
    """The data in the SQLite file: SqliteSaver's checkpoints and writes, the stores' tables."""

    saver = "SqliteSaver"
    listing = "streams the checkpoints from a cursor, one query for each one's writes"

    def __init__(self, db: Path) -> None:
        self.db = db

    def multiply(self, templates: list[str], copies: int) -> None:
        """Copy the templates' rows round-robin under ``copies`` new thread ids, in one transaction."""
        statements = _copied(("checkpoints", "writes"), _sqlite_earlier)
        conn = sqlite3.connect(str(self.db), isolation_level=None)
        try:
            # The services are closed: nobody else has the file open, so the bulk load may skip
            # the WAL (written once instead of to the WAL and then to the file) and go back after.
            conn.execute("PRAGMA journal_mode=DELETE")
            conn.execute("PRAGMA synchronous=OFF")
            conn.execute(
                "CREATE TEMP TABLE copies (n INTEGER PRIMARY KEY, template TEXT NOT NULL, thread_id TEXT NOT NULL)"
            )
            conn.execute("BEGIN")
            conn.executemany(
                "INSERT INTO copies (template, thread_id) VALUES (?, ?)",
                (
                    (template, uuid.uuid4().hex)
                    for template, _ in zip(itertools.cycle(templates), range(copies))
                ),
            )
            for table in statements:
                columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
                conn.execute(_insert_copies(table, columns, statements))
            conn.execute("COMMIT")
            conn.execute("PRAGMA journal_mode=WAL")
        finally:
            conn.close()

    def counts(self) -> dict[str, int]:
        conn = sqlite3.connect(str(self.db))
        try:
            sql = _COUNTS | {"writes": "SELECT COUNT(*) FROM writes"}
            counts = {name: int(conn.execute(query).fetchone()[0]) for name, query in sql.items()}
        finally:
            conn.close()
        return counts | {"megabytes": round(self.db.stat().st_size / 1e6)}

    def plans(self) -> dict[str, str]:
        """How SQLite runs the queue's statements (the ledger's own SQL, its own indexes, no ANALYZE)."""
        conn = sqlite3.connect(str(self.db))
        try:
            return {
                name: "; ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
                for name, sql in _STATEMENTS.items()
            }
        finally:
            conn.close()

    def thread_ids(self) -> list[str]:
        conn = sqlite3.connect(str(self.db))
        try:
            return [row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")]
        finally:
            conn.close()


class PostgresData:
    """The data in the PostgreSQL schema: PostgresSaver's checkpoints, channel blobs and
    writes, the stores' tables."""

    saver = "PostgresSaver"
    listing = (
        "runs one query (channel blobs and writes aggregated per checkpoint) and fetches every "
        "row before it yields the first"
    )

    def __init__(self, url: str) -> None:
        self.url = url

    def multiply(self, templates: list[str], copies: int) -> None:
        """As SqliteData.multiply: one INSERT ... SELECT per table in one transaction, the copies'
        thread ids from generate_series. Then VACUUM ANALYZE, which autovacuum does on its own
        within a minute or so of such a load (statistics for the planner, the visibility map
        for index-only scans); without it a count of the decided reviews reads the whole heap."""
        statements = _copied(("checkpoints", "checkpoint_blobs", "checkpoint_writes"), _postgres_earlier)
        with psycopg.connect(self.url) as conn:
            conn.execute(
                "CREATE TEMP TABLE copies (n INTEGER PRIMARY KEY, template TEXT NOT NULL, thread_id TEXT NOT NULL)"
            )
            conn.execute(
                "INSERT INTO copies (n, template, thread_id) SELECT g, (%s::text[])[1 + (g - 1) %% %s],"
                " replace(gen_random_uuid()::text, '-', '') FROM generate_series(1, %s) g",
                (templates, len(templates), copies),
            )
            conn.execute("ANALYZE copies")
            for table in statements:
                columns = [
                    row[0]
                    for row in conn.execute(
                        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
                        " AND table_name = %s ORDER BY ordinal_position",
                        (table,),
                    )
                ]
                conn.execute(_insert_copies(table, columns, statements).encode())
            conn.commit()
            conn.autocommit = True
            # This schema's tables only: a bare VACUUM would go through the whole database.
            tables = [
                str(row[0])
                for row in conn.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename"
                )
            ]
            conn.execute(f"VACUUM ANALYZE {', '.join(tables)}".encode())

    def counts(self) -> dict[str, int]:
        sql = _COUNTS | {
            "writes": "SELECT COUNT(*) FROM checkpoint_writes",
            "blobs": "SELECT COUNT(*) FROM checkpoint_blobs",
            "bytes": "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
            " WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'",
        }
        with psycopg.connect(self.url) as conn:
            counts = {name: int(self._one(conn, query)) for name, query in sql.items()}
        return counts | {"megabytes": round(counts.pop("bytes") / 1e6)}

    def plans(self) -> dict[str, str]:
        """How PostgreSQL runs the queue's statements (EXPLAIN, costs off, after VACUUM ANALYZE)."""
        with psycopg.connect(self.url) as conn:
            return {
                name: "; ".join(
                    str(row[0]).strip() for row in conn.execute(f"EXPLAIN (COSTS OFF) {sql}".encode())
                )
                for name, sql in _STATEMENTS.items()
            }

    def thread_ids(self) -> list[str]:
        with psycopg.connect(self.url) as conn:
            return [str(row[0]) for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")]

    @staticmethod
    def _one(conn: psycopg.Connection[Any], query: str) -> Any:
        row = conn.execute(query.encode()).fetchone()
        assert row is not None
        return row[0]


Data = SqliteData | PostgresData


def _real_threads(services: Services) -> tuple[list[str], list[str]]:
    """Run the graph: the finished templates, and the threads left waiting for a reviewer."""
    graph, context, reviews = services.graph, services.context, services.reviews
    finished = []
    for _ in range(READ_TEMPLATES):
        outcome = start_request(graph, context, READ_REQUEST)
        reviews.record_run(outcome, actor="operator")
        if outcome.final_output.status != "ok":
            raise RuntimeError(f"the read-only request did not succeed: {outcome.final_output.response}")
        finished.append(outcome.final_output.thread_id)
    pending = []
    for n in range(APPROVED_TEMPLATES + REJECTED_TEMPLATES + PENDING):
        outcome = start_request(graph, context, SEND_REQUEST, requester="operator")
        reviews.record_run(outcome, actor="operator")
        if outcome.pending is None:
            raise RuntimeError(f"expected a review, got {outcome.final_output.status}")
        thread = outcome.final_output.thread_id
        if n < APPROVED_TEMPLATES + REJECTED_TEMPLATES:
            approve = n < APPROVED_TEMPLATES
            reason = None if approve else "not today"
            reviews.decide(outcome.pending["review_id"], reviewer="reviewer", approve=approve, reason=reason)
            finished.append(thread)
        else:
            pending.append(thread)
    return finished, pending


def _time(action: Callable[[], object], repeats: int) -> list[float]:
    for _ in range(WARMUP):
        action()
    samples = []
    for _ in range(repeats):
        began = time.perf_counter()
        action()
        samples.append(time.perf_counter() - began)
    return samples


def _scan_list(services: Services) -> tuple[float, set[str], float | None]:
    """Naive: every checkpoint through the checkpointer's own list(None) (newest first), each
    thread's newest one checked for an interrupt among its pending writes. Also the growth of
    this process's peak RSS during the scan, in MB (None if the peak cannot be reset)."""
    rss = vm_status()["VmRSS"]
    reset = reset_peak()
    began = time.perf_counter()
    seen: set[str] = set()
    waiting: set[str] = set()
    for item in services.checkpointer.list(None):
        thread = str(item.config["configurable"]["thread_id"])
        if thread in seen:
            continue
        seen.add(thread)
        if any(write[1] == INTERRUPT for write in item.pending_writes or ()):
            waiting.add(thread)
    seconds = time.perf_counter() - began
    return seconds, waiting, (vm_status()["VmHWM"] - rss) / 2**20 if reset else None


def _scan_get_state(services: Services, data: Data) -> tuple[float, set[str]]:
    """Every thread id (one SQL query), then graph.get_state on each for its interrupt."""
    began = time.perf_counter()
    threads = data.thread_ids()
    waiting = {thread for thread in threads if pending_interrupt(services.graph, thread) is not None}
    return time.perf_counter() - began, waiting


def run(space: Workspace) -> list[Figure]:
    return on_both(lambda backend: measure(space, backend))


def measure(space: Workspace, backend: Backend) -> list[Figure]:
    section = backend.section(SECTION)
    began = time.perf_counter()
    settings: Settings = space.on(backend, "filesystem", "email")
    data: Data = (
        PostgresData(settings.db_url) if settings.db_url is not None else SqliteData(settings.db_path)
    )
    with space.services(settings) as services:
        templates, pending = _real_threads(services)
    real_seconds = time.perf_counter() - began

    loading = time.perf_counter()
    data.multiply(templates, THREADS - len(templates) - len(pending))
    counts = data.counts()
    load_seconds = time.perf_counter() - loading
    if counts["threads"] < THREADS or counts["checkpoints"] < MIN_CHECKPOINTS or counts["pending"] != PENDING:
        raise RuntimeError(
            f"the data falls short: {counts} (wanted >= {THREADS} threads, >= {MIN_CHECKPOINTS} "
            f"checkpoints, {PENDING} pending)"
        )
    plans = data.plans()

    # Fresh services on the loaded data, servers included as in the app. (Not connect_servers=False:
    # build_services then leaves its empty client's portal open, and the process may hang at exit.)
    with space.services(settings) as services:

        def per_rerun() -> None:
            # Reading the queue does not sweep; the page expires what is due itself, as here.
            services.reviews.sweep(recover=False)
            page = services.reviews.queue("pending", limit=PAGE)
            total = services.ledger.count("pending")
            if len(page) != PAGE or total != PENDING:
                raise RuntimeError(f"the queue read {len(page)} of {total} pending reviews")

        # Exactly the ledger reads of one rerun of views/review_queue.py, first page.
        page_reads: dict[str, Callable[[], object]] = {
            "sweep": lambda: services.reviews.sweep(recover=False),
            "count": lambda: services.ledger.count("pending"),
            f"page of {PAGE_SIZE}": lambda: services.ledger.queue("pending", limit=PAGE_SIZE, offset=0),
            "count decided": services.ledger.count_decided,
            f"history of {HISTORY_SIZE}": lambda: services.ledger.history(limit=HISTORY_SIZE),
        }
        page_split: dict[str, list[float]] = {name: [] for name in page_reads}

        def whole_page() -> None:
            for name, read in page_reads.items():
                began = time.perf_counter()
                read()
                page_split[name].append(time.perf_counter() - began)

        queue = summary_ms(_time(per_rerun, REPEATS))
        page = summary_ms(_time(whole_page, REPEATS))
        parts = {
            "sweep": _time(lambda: services.reviews.sweep(recover=False), REPEATS),
            "count": _time(lambda: services.ledger.count("pending"), REPEATS),
            "page": _time(lambda: services.ledger.queue("pending", limit=PAGE), REPEATS),
        }
        list_seconds, listed, list_peak_mb = _scan_list(services)
        state_seconds, stated = _scan_get_state(services, data)
    expected = set(pending)
    for name, found in (("list(None)", listed), ("get_state", stated)):
        if found != expected:
            raise RuntimeError(
                f"the {name} scan found {len(found)} waiting threads, not the {PENDING} pending"
            )

    blobs = f"{counts['blobs']:,} channel blobs, " if "blobs" in counts else ""
    built = (
        f"{counts['threads']:,} threads, {counts['checkpoints']:,} checkpoints, {counts['writes']:,} writes, "
        f"{blobs}{counts['reviews']:,} reviews ({counts['pending']} pending), {counts['megabytes']} MB; "
        f"built in {real_seconds:.1f} s of real runs + {load_seconds:.1f} s of SQL copies"
    )
    split_page = ", ".join(
        f"{name} {statistics.median(samples[WARMUP:]) * 1000:.2f} ms" for name, samples in page_split.items()
    )
    split = ", ".join(f"{name} {statistics.median(samples) * 1000:.2f} ms" for name, samples in parts.items())
    queue_notes = (
        f"reviews.sweep(recover=False) + reviews.queue('pending', limit={PAGE}) + ledger.count('pending'), "
        f"median of {REPEATS} after {WARMUP} warm-up (alone, medians: {split}); {built}; "
        f"page plan: {plans['page']}"
    )
    peak = "not measured" if list_peak_mb is None else f"{list_peak_mb:,.0f} MB"
    scan_notes = (
        f"once: {data.saver}.list(None) over every checkpoint, newest per thread checked for an "
        f"interrupt write; found the {PENDING} waiting threads; {data.saver}.list {data.listing}; "
        f"peak RSS growth during the scan {peak}"
    )
    ratio = list_seconds * 1000 / queue["median_ms"]
    return [
        Figure(
            section,
            f"{PAGE} pending of {counts['threads']:,} threads, median",
            queue["median_ms"],
            "ms",
            Target("<=", 20),
            queue_notes,
            queue
            | {"counts": counts, "plans": plans, "parts_ms": {n: summary_ms(v) for n, v in parts.items()}},
        ),
        Figure(section, "p95", queue["p95_ms"], "ms", None, "", queue),
        Figure(
            section,
            "Reviews page's ledger reads per rerun, median",
            page["median_ms"],
            "ms",
            None,
            f"{', '.join(page_reads)}; median of {REPEATS} (each, medians: {split_page})",
            page | {"parts_ms": {n: summary_ms(v[WARMUP:]) for n, v in page_split.items()}},
        ),
        Figure(
            section,
            "naive scan: checkpointer.list(None)",
            list_seconds * 1000,
            "ms",
            None,
            scan_notes,
            {"peak_rss_growth_mb": list_peak_mb},
        ),
        Figure(
            section,
            "scan: graph.get_state per thread",
            state_seconds * 1000,
            "ms",
            None,
            "once: SELECT DISTINCT thread_id, then pending_interrupt (graph.get_state) for each thread",
        ),
        Figure(
            section,
            "ratio naive scan / queue median",
            ratio,
            "x",
            None,
            f"list(None) scan / queue median; get_state scan / queue median: "
            f"{state_seconds * 1000 / queue['median_ms']:.0f} x",
        ),
    ]
