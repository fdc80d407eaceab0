"""Figure 13: `policy suggest` over 10,000 recorded decisions, replay included, against the time
of one queue read (what the Reviews page reads per rerun: the pending count and one page of
pending reviews) on the same database in the same run. On the SQLite file.

The data: 10,000 reviewed calls decided within the window, over 40 capabilities (read-only ones
always approved unchanged, side-effecting ones approved within one recipient domain, some
always rejected, some with an edit or a rejection among approvals), ended executed, failed or
outcome unknown; and 100 pending reviews. Inserted in one transaction with the ledger's own
columns, so what `policy suggest` reads is what the graph leaves there."""

from __future__ import annotations

import json
import statistics
import time
import uuid
from datetime import timedelta

from bench.report import Figure, Target, listed, summary_ms
from bench.workspace import Workspace
from reviews.clock import iso
from reviews.ledger import ReviewLedger
from reviews.suggestions import Suggestions

SECTION = "13 rules suggested from decisions"
DECISIONS = 10_000
PENDING = 100
CAPABILITIES = 40
PAGE_SIZE = 50
ROUNDS = 7
READS_PER_ROUND = 30
WARMUP = 10
TARGET_QUEUE_READS = 200.0

_COLUMNS = (
    "id, thread_id, stage, capability_key, capability, arguments, call_hash, flags, category, requester,"
    " required_approvals, four_eyes, reviewer_roles, created_at, expires_at, status, decided_by,"
    " decided_at, reason, payload"
)


def _capability(key: str) -> dict[str, object]:
    server, _, name = key.partition("__")
    return {
        "key": key,
        "server": server,
        "type": "tool",
        "name": name,
        "description": "",
        "input_schema": {"type": "object"},
        "annotations": {"readOnlyHint": name.startswith("read")},
        "fingerprint": f"fp-{key}",
    }


def _key(n: int) -> str:
    kinds = ("read_notes", "send_note", "delete_note", "update_note")
    return f"srv{n // len(kinds)}__{kinds[n % len(kinds)]}"


def _fill(ledger: ReviewLedger) -> None:
    now = ledger.now()
    reviews: list[tuple[object, ...]] = []
    decisions: list[tuple[object, ...]] = []
    for n in range(DECISIONS + PENDING):
        key = _key(n % CAPABILITIES)
        review_id = uuid.uuid4().hex
        arguments = {"to": f"u{n % 17}@example.com", "subject": f"s{n}", "amount": n % 90}
        pending = n >= DECISIONS
        kind = key.rsplit("__", 1)[1]
        # delete_note always rejected; update_note with one edit in eleven; the rest approved.
        action = "reject" if kind == "delete_note" else "approve"
        edited = kind == "update_note" and n % 11 == 0
        status = (
            "pending"
            if pending
            else ("rejected" if action == "reject" else ("executed", "failed", "outcome_unknown")[n % 3])
        )
        decided = iso(now - timedelta(minutes=n % (29 * 24 * 60)))
        reviews.append(
            (
                review_id,
                f"t-{review_id}",
                "before_execution",
                key,
                json.dumps(_capability(key)),
                json.dumps(arguments),
                review_id,
                "[]",
                None,
                "operator",
                1,
                1,
                '["reviewer"]',
                decided,
                iso(now + timedelta(days=1)),
                status,
                None if pending else "reviewer",
                None if pending else decided,
                None,
                "{}",
            )
        )
        if not pending:
            approved = arguments | {"subject": "edited"} if edited else arguments
            decisions.append(
                (
                    review_id,
                    "reviewer",
                    action,
                    None,
                    None if action == "reject" else json.dumps(approved),
                    decided,
                )
            )
    # One transaction, through the storage layer's connection (which has execute only).
    with ledger.database.write() as conn:
        for review in reviews:
            conn.execute(f"INSERT INTO reviews ({_COLUMNS}) VALUES ({', '.join('?' * 20)})", review)
        for decision in decisions:
            conn.execute(
                "INSERT INTO review_decisions (review_id, reviewer, action, reason, arguments, decided_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                decision,
            )


def _queue_read(ledger: ReviewLedger) -> float:
    began = time.perf_counter()
    ledger.count("pending")
    ledger.queue("pending", limit=PAGE_SIZE)
    return time.perf_counter() - began


def _suggest(suggestions: Suggestions) -> tuple[float, int, int]:
    began = time.perf_counter()
    found = suggestions.suggest()
    seconds = time.perf_counter() - began
    return seconds, len(found), sum(s.replay.decided for s in found)


def run(space: Workspace) -> list[Figure]:
    settings = space.settings({}, name="suggest")
    reads: list[float] = []
    runs: list[float] = []
    ratios: list[float] = []
    with space.services(settings) as services:
        _fill(services.ledger)
        suggestions = services.suggestions
        for _ in range(WARMUP):
            _queue_read(services.ledger)
        _, found, replayed = _suggest(suggestions)
        if found == 0:
            raise RuntimeError("no rule was suggested from the recorded decisions")
        # In rounds, each judged on its own: a burst of load on this shared machine hits a
        # round's queue reads and its `policy suggest` alike.
        for _ in range(ROUNDS):
            round_reads = [_queue_read(services.ledger) for _ in range(READS_PER_ROUND)]
            seconds, _, _ = _suggest(suggestions)
            ratios.append(seconds / statistics.median(round_reads))
            reads += round_reads
            runs.append(seconds)
    return [
        Figure(
            SECTION,
            "policy suggest / one queue read",
            statistics.median(ratios),
            "queue reads",
            Target("<", TARGET_QUEUE_READS),
            f"median of {ROUNDS} rounds, each one `policy suggest` over {DECISIONS:,} decisions ({found} rules"
            f" suggested, replays over {replayed:,} calls) against the median of its {READS_PER_ROUND} queue reads"
            f" (pending count and a page of {PAGE_SIZE}) of the same database ({listed(ratios)}); SQLite file",
            {"suggestions": found, "replayed_calls": replayed, "rounds": ratios},
        ),
        Figure(
            SECTION,
            "policy suggest, median",
            statistics.median(runs) * 1000,
            "ms",
            None,
            f"reading {DECISIONS:,} decisions of {CAPABILITIES} capabilities, each rule replayed and checked",
            summary_ms(runs),
        ),
        Figure(
            SECTION,
            "queue read, median",
            statistics.median(reads) * 1000,
            "ms",
            None,
            f"pending count and a page of {PAGE_SIZE} among {PENDING} pending reviews",
            summary_ms(reads),
        ),
    ]
