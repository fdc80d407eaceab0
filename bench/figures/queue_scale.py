"""Figure 3: the queue at scale. What the Reviews page reads per rerun (the expiry sweep, the
pending count and one page of pending reviews, from the ledger's indexed rows) with 100
pending reviews among 10,000 threads and over 100,000 checkpoints in the SQLite checkpointer;
beside it a naive scan of the checkpointer for the threads that wait for a person.

The data: the real graph runs a few read-only requests and a few e-mails that are approved
or rejected (the templates), and the 100 e-mails that stay pending; then SQL copies every
row of each finished template under new thread ids (checkpoints, writes, the review, its
decisions and execution, the conversation) until there are 10,000 threads, each copy's
timestamps a minute further back. A copy's checkpoint blobs still name the template's thread
inside their state values; nothing read here looks at them."""

from __future__ import annotations

import itertools
import sqlite3
import statistics
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver

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


def _earlier(column: str) -> str:
    """The template's timestamp (ISO, milliseconds, +00:00) moved back one minute per copy, so
    copies do not share created_at / decided_at values (NULL stays NULL)."""
    return (
        f"strftime('%Y-%m-%dT%H:%M:%f', substr(t.{column}, 1, 23), '-' || c.rowid || ' minutes')"
        f" || substr(t.{column}, 24)"
    )


# Per table: the column expressions that differ in a copy (``t`` the template's row, ``c`` the
# copies row: template, thread_id), and how the table's template rows are found.
_COPIED: dict[str, tuple[dict[str, str], str]] = {
    "checkpoints": ({"thread_id": "c.thread_id"}, "JOIN checkpoints t ON t.thread_id = c.template"),
    "writes": ({"thread_id": "c.thread_id"}, "JOIN writes t ON t.thread_id = c.template"),
    "reviews": (
        {
            "id": "replace(t.id, c.template, c.thread_id)",
            "thread_id": "c.thread_id",
            "payload": "replace(t.payload, c.template, c.thread_id)",
        }
        | {column: _earlier(column) for column in ("created_at", "expires_at", "decided_at")},
        "JOIN reviews t ON t.thread_id = c.template",
    ),
    "review_decisions": (
        {"review_id": "replace(t.review_id, c.template, c.thread_id)", "decided_at": _earlier("decided_at")},
        "JOIN reviews r ON r.thread_id = c.template JOIN review_decisions t ON t.review_id = r.id",
    ),
    "review_executions": (
        {"review_id": "replace(t.review_id, c.template, c.thread_id)", "thread_id": "c.thread_id"},
        "JOIN review_executions t ON t.thread_id = c.template",
    ),
    "conversations": (
        {"thread_id": "c.thread_id"} | {column: _earlier(column) for column in ("created_at", "updated_at")},
        "JOIN conversations t ON t.thread_id = c.template",
    ),
    "conversation_messages": (
        {"thread_id": "c.thread_id"},
        "JOIN conversation_messages t ON t.thread_id = c.template",
    ),
}


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


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


def _multiply(db: Path, templates: list[str], copies: int) -> None:
    """Copy the templates' rows round-robin under ``copies`` new thread ids, in one transaction."""
    conn = sqlite3.connect(str(db), isolation_level=None)
    try:
        # The services are closed: nobody else has the file open, so the bulk load may skip
        # the WAL (written once instead of to the WAL and then to the file) and go back after.
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute("CREATE TEMP TABLE copies (template TEXT NOT NULL, thread_id TEXT PRIMARY KEY)")
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO copies VALUES (?, ?)",
            ((template, uuid.uuid4().hex) for template, _ in zip(itertools.cycle(templates), range(copies))),
        )
        for table, (changed, source) in _COPIED.items():
            columns = _columns(conn, table)
            select = ", ".join(changed.get(column, f"t.{column}") for column in columns)
            conn.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select} FROM copies c {source}")
        conn.execute("COMMIT")
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()


def _counts(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(str(db))
    try:
        one = {
            "threads": "SELECT COUNT(DISTINCT thread_id) FROM checkpoints",
            "checkpoints": "SELECT COUNT(*) FROM checkpoints",
            "writes": "SELECT COUNT(*) FROM writes",
            "reviews": "SELECT COUNT(*) FROM reviews",
            "pending": "SELECT COUNT(*) FROM reviews WHERE status = 'pending'",
            "decided": "SELECT COUNT(*) FROM reviews WHERE decided_at IS NOT NULL",
        }
        counts = {name: int(conn.execute(sql).fetchone()[0]) for name, sql in one.items()}
    finally:
        conn.close()
    counts["megabytes"] = round(db.stat().st_size / 1e6)
    return counts


def _plans(db: Path) -> dict[str, str]:
    """How SQLite runs the queue's statements (the ledger's own SQL, its own indexes, no ANALYZE)."""
    statements = {
        "page": "SELECT * FROM reviews WHERE status = 'pending' ORDER BY created_at, id LIMIT 100 OFFSET 0",
        "count": "SELECT COUNT(*) FROM reviews WHERE status = 'pending'",
        "expiry sweep": "SELECT id FROM reviews WHERE status = 'pending' AND expires_at <= '9999'",
        "history": "SELECT * FROM reviews WHERE decided_at IS NOT NULL ORDER BY decided_at DESC, id DESC LIMIT 50",
    }
    conn = sqlite3.connect(str(db))
    try:
        return {
            name: "; ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
            for name, sql in statements.items()
        }
    finally:
        conn.close()


def _time(action: Callable[[], object], repeats: int) -> list[float]:
    for _ in range(WARMUP):
        action()
    samples = []
    for _ in range(repeats):
        began = time.perf_counter()
        action()
        samples.append(time.perf_counter() - began)
    return samples


def _scan_list(services: Services) -> tuple[float, set[str]]:
    """Naive: every checkpoint through the checkpointer's own list(None) (newest first), each
    thread's newest one checked for an interrupt among its pending writes."""
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
    return time.perf_counter() - began, waiting


def _scan_get_state(services: Services) -> tuple[float, set[str]]:
    """Every thread id (one SQL query), then graph.get_state on each for its interrupt."""
    began = time.perf_counter()
    saver = services.checkpointer
    assert isinstance(saver, SqliteSaver), "this figure builds its data in a SQLite file"
    with saver.cursor(transaction=False) as cursor:
        threads = [row[0] for row in cursor.execute("SELECT DISTINCT thread_id FROM checkpoints")]
    waiting = {thread for thread in threads if pending_interrupt(services.graph, thread) is not None}
    return time.perf_counter() - began, waiting


def run(space: Workspace) -> list[Figure]:
    began = time.perf_counter()
    settings: Settings = space.demo("filesystem", "email")
    with space.services(settings) as services:
        templates, pending = _real_threads(services)
    real_seconds = time.perf_counter() - began

    loading = time.perf_counter()
    _multiply(settings.db_path, templates, THREADS - len(templates) - len(pending))
    counts = _counts(settings.db_path)
    load_seconds = time.perf_counter() - loading
    if counts["threads"] < THREADS or counts["checkpoints"] < MIN_CHECKPOINTS or counts["pending"] != PENDING:
        raise RuntimeError(
            f"the data falls short: {counts} (wanted >= {THREADS} threads, >= {MIN_CHECKPOINTS} "
            f"checkpoints, {PENDING} pending)"
        )
    plans = _plans(settings.db_path)

    # Fresh services on the loaded file, servers included as in the app. (Not connect_servers=False:
    # build_services then leaves its empty client's portal open, and the process may hang at exit.)
    with space.services(settings) as services:

        def per_rerun() -> None:
            page = services.reviews.queue("pending", limit=PAGE)
            total = services.ledger.count("pending")
            if len(page) != PAGE or total != PENDING:
                raise RuntimeError(f"the queue read {len(page)} of {total} pending reviews")

        def whole_page() -> None:
            # Exactly the ledger reads of one rerun of views/review_queue.py, first page.
            services.reviews.sweep(recover=False)
            services.ledger.count("pending")
            services.ledger.queue("pending", limit=PAGE_SIZE, offset=0)
            services.ledger.count_decided()
            services.ledger.history(limit=HISTORY_SIZE)

        queue = summary_ms(_time(per_rerun, REPEATS))
        page = summary_ms(_time(whole_page, REPEATS))
        parts = {
            "sweep": _time(lambda: services.reviews.sweep(recover=False), REPEATS),
            "count": _time(lambda: services.ledger.count("pending"), REPEATS),
            "page": _time(lambda: services.ledger.queue("pending", limit=PAGE), REPEATS),
        }
        list_seconds, listed = _scan_list(services)
        state_seconds, stated = _scan_get_state(services)
    expected = set(pending)
    for name, found in (("list(None)", listed), ("get_state", stated)):
        if found != expected:
            raise RuntimeError(
                f"the {name} scan found {len(found)} waiting threads, not the {PENDING} pending"
            )

    data = (
        f"{counts['threads']:,} threads, {counts['checkpoints']:,} checkpoints, {counts['writes']:,} writes, "
        f"{counts['reviews']:,} reviews ({counts['pending']} pending), {counts['megabytes']} MB; "
        f"built in {real_seconds:.1f} s of real runs + {load_seconds:.1f} s of SQL copies"
    )
    split = ", ".join(f"{name} {statistics.median(samples) * 1000:.2f} ms" for name, samples in parts.items())
    queue_notes = (
        f"reviews.queue('pending', limit={PAGE}) (expiry sweep + one page) + ledger.count('pending'), "
        f"median of {REPEATS} after {WARMUP} warm-up (alone, medians: {split}); {data}; "
        f"page plan: {plans['page']}"
    )
    scan_notes = (
        f"once: checkpointer.list(None) over every checkpoint, newest per thread checked for an "
        f"interrupt write; found the {PENDING} waiting threads"
    )
    ratio = list_seconds * 1000 / queue["median_ms"]
    return [
        Figure(
            SECTION,
            f"{PAGE} pending of {counts['threads']:,} threads, median",
            queue["median_ms"],
            "ms",
            Target("<=", 20),
            queue_notes,
            queue
            | {"counts": counts, "plans": plans, "parts_ms": {n: summary_ms(v) for n, v in parts.items()}},
        ),
        Figure(SECTION, "p95", queue["p95_ms"], "ms", None, "", queue),
        Figure(
            SECTION,
            "Reviews page's ledger reads per rerun, median",
            page["median_ms"],
            "ms",
            None,
            f"sweep, count, page of {PAGE_SIZE}, count decided, history of {HISTORY_SIZE}; median of {REPEATS}",
            page,
        ),
        Figure(SECTION, "naive scan: checkpointer.list(None)", list_seconds * 1000, "ms", None, scan_notes),
        Figure(
            SECTION,
            "scan: graph.get_state per thread",
            state_seconds * 1000,
            "ms",
            None,
            "once: SELECT DISTINCT thread_id, then pending_interrupt (graph.get_state) for each thread",
        ),
        Figure(
            SECTION,
            "ratio naive scan / queue median",
            ratio,
            "x",
            None,
            f"list(None) scan / queue median; get_state scan / queue median: "
            f"{state_seconds * 1000 / queue['median_ms']:.0f} x",
        ),
    ]
