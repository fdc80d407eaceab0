"""The review ledger: one row per review, decisions that count once, calls that run once.

Rows live in the same database as the checkpoints. The queue is read from indexed rows,
never by scanning checkpoints. Every state change is a compare-and-set inside a write
transaction: of any number of concurrent deciders exactly one moves a review out of
``pending``, and a call's start is recorded once, before the call.
"""

from __future__ import annotations

import json
import os
import re
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from graph.calls import call_hash
from graph.state import EffectBinding, EffectCheck
from reviews.clock import Clock, iso, utc_now
from reviews.errors import AlreadyDecidedError, AmbiguousReviewIdError, ReviewNotFoundError
from storage import Database, open_database
from storage.database import Connection, migrate

if TYPE_CHECKING:
    from graph.state import EffectCheckData, ReviewPayload
    from reviews.sampling import SamplingPayload

# "No limit" for a query that pages from an offset: larger than any table here.
_NO_LIMIT = 2**62
# A short review id as people copy it from the screen: the start of the id (letters and digits,
# at least MIN_SHORT_LENGTH of them), optionally followed by the review's round.
MIN_SHORT_LENGTH = 6
_SHORT_ID = re.compile(rf"(?P<start>[0-9A-Za-z]{{{MIN_SHORT_LENGTH},}})(?:-r(?P<round>\d+))?")
# How many candidates an ambiguous short id lists.
_AMBIGUITY_SHOWN = 5

ReviewStatus = Literal[
    "pending",
    "approved",
    "rejected",
    "expired",
    "cancelled",
    "executed",
    "failed",
    "outcome_unknown",
    "not_run",
]

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS reviews (
        id TEXT PRIMARY KEY,
        thread_id TEXT NOT NULL,
        checkpoint_id TEXT,
        interrupt_id TEXT,
        stage TEXT NOT NULL,
        capability_key TEXT,
        capability TEXT NOT NULL,
        arguments TEXT NOT NULL,
        call_hash TEXT NOT NULL,
        flags TEXT NOT NULL,
        category TEXT,
        requester TEXT NOT NULL,
        required_approvals INTEGER NOT NULL,
        four_eyes INTEGER NOT NULL,
        reviewer_roles TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        status TEXT NOT NULL,
        decided_by TEXT,
        decided_at TEXT,
        reason TEXT,
        payload TEXT NOT NULL)""",
        "CREATE INDEX IF NOT EXISTS reviews_by_status ON reviews (status, created_at)",
        "CREATE INDEX IF NOT EXISTS reviews_by_thread ON reviews (thread_id, created_at)",
        """CREATE TABLE IF NOT EXISTS review_decisions (
        review_id TEXT NOT NULL REFERENCES reviews (id),
        reviewer TEXT NOT NULL,
        action TEXT NOT NULL,
        reason TEXT,
        arguments TEXT,
        decided_at TEXT NOT NULL,
        PRIMARY KEY (review_id, reviewer))""",
        """CREATE TABLE IF NOT EXISTS review_executions (
        review_id TEXT PRIMARY KEY REFERENCES reviews (id),
        call_hash TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        started_at TEXT NOT NULL,
        owner_host TEXT NOT NULL,
        owner_pid INTEGER NOT NULL,
        finished_at TEXT,
        outcome TEXT)""",
        "CREATE INDEX IF NOT EXISTS reviews_by_decision ON reviews (decided_at)",
    ),
    (
        # Who carries out a decision, and when it was carried out (the thread resumed with it):
        # a decision whose process died before that is finished by the next sweep, once.
        "ALTER TABLE reviews ADD COLUMN decider_host TEXT",
        "ALTER TABLE reviews ADD COLUMN decider_pid INTEGER",
        "ALTER TABLE reviews ADD COLUMN carried_out_at TEXT",
        "UPDATE reviews SET carried_out_at = decided_at WHERE decided_at IS NOT NULL",
        "CREATE INDEX IF NOT EXISTS reviews_not_carried_out ON reviews (decided_at)"
        " WHERE carried_out_at IS NULL AND decided_at IS NOT NULL",
        # The result of a reviewed call, so a thread continued after a crash uses it instead
        # of calling again.
        "ALTER TABLE review_executions ADD COLUMN result TEXT",
    ),
    (
        # What an approver was shown of the file a write acts on (graph.state.EffectBinding as
        # JSON), checked again right before the call: NULL when there was nothing to bind.
        "ALTER TABLE review_decisions ADD COLUMN effect TEXT",
    ),
    (
        # When a started call is past its time limit: until then (and STALE_AFTER more) a call
        # in a process that cannot be seen to be gone is its owner's, however old the decision.
        "ALTER TABLE review_executions ADD COLUMN deadline TEXT",
    ),
    (
        # What the approved call's effect read back as after it ran (graph.state.EffectCheckData
        # as JSON: verified, mismatch or not_verified, and why), for the reviewer's history:
        # NULL when nothing was read back (no preview declared, or a row an older release wrote).
        "ALTER TABLE reviews ADD COLUMN effect_check TEXT",
    ),
    (
        # Where the review's thread is checkpointed when not in this database: 'langgraph-api'
        # for a graph served by `langgraph dev` (gatehouse/langgraph_server.py). NULL: here, and
        # the review service resumes it; otherwise the service records decisions and the API's
        # caller resumes with one (reviews/resume_check.py checks it).
        "ALTER TABLE reviews ADD COLUMN served_by TEXT",
    ),
)
# A decision whose process cannot be seen to be gone (another host's, or a pid reused) is taken
# as still being carried out for this long; after that a sweep anywhere finishes it. For a call
# that started, the time counts from the call's deadline (its start plus its time limit).
STALE_AFTER = timedelta(minutes=10)


class Decision(BaseModel):
    reviewer: str
    action: Literal["approve", "reject"]
    reason: str | None = None
    arguments: dict[str, Any] | None = None
    decided_at: str
    # What the approver was shown of the file the call writes: the approval is bound to it.
    effect: EffectBinding | None = None


class Review(BaseModel):
    id: str
    thread_id: str
    checkpoint_id: str | None = None
    interrupt_id: str | None = None
    stage: str
    capability_key: str | None = None
    capability: dict[str, Any]
    arguments: dict[str, Any]
    call_hash: str
    flags: list[dict[str, Any]]
    category: str | None = None
    requester: str
    required_approvals: int
    four_eyes: bool
    reviewer_roles: list[str]
    created_at: str
    expires_at: str
    status: ReviewStatus
    decided_by: str | None = None
    decided_at: str | None = None
    reason: str | None = None
    # What the review was opened with (a ReviewPayload or a SamplingPayload), as stored: a row
    # an older release wrote lacks the keys added since, so it stays a dict read with .get.
    payload: dict[str, Any]
    decisions: list[Decision] = []
    decider_host: str | None = None
    decider_pid: int | None = None
    carried_out_at: str | None = None
    # What the approved call's effect read back as after it ran (graph/effect_readback.py);
    # None when nothing was read back.
    effect_check: EffectCheck | None = None
    # Where the thread lives when its checkpoints are not in this database ('langgraph-api'):
    # the review service records decisions on it and resumes nothing (docs/langgraph-studio.md).
    served_by: str | None = None

    def secret_sources(self) -> list[Any]:
        """What the review holds that may carry a secret a person or a server wrote: the
        request, the arguments (proposed and edited) and the result it was opened on
        (policies/secrets.py remembers what it finds there for the thread)."""
        sources = [self.payload.get("request"), self.arguments, self.payload.get("result")]
        sources += [d.arguments for d in self.decisions if d.arguments]
        return [source for source in sources if source]

    def approvals(self) -> list[Decision]:
        """The approvals recorded so far, oldest first."""
        return [d for d in self.decisions if d.action == "approve"]

    def approved_effects(self, arguments: dict[str, Any]) -> list[EffectBinding] | None:
        """What the approvals of exactly these arguments were given on of the file the call
        writes, each distinct view once, oldest first; None when none was bound to one."""
        bound: list[EffectBinding] = []
        for decision in self.approvals():
            if (
                decision.arguments == arguments
                and decision.effect is not None
                and decision.effect not in bound
            ):
                bound.append(decision.effect)
        return bound or None

    def approved_arguments(self) -> dict[str, Any] | None:
        """The arguments the settling approval carried (edited or as proposed), once approved."""
        final = next(
            (d for d in self.decisions if d.reviewer == self.decided_by and d.action == "approve"), None
        )
        return final.arguments if final is not None else None


class DecisionRecorded(BaseModel):
    """What one decide() did: final (the review left pending) or one approval of several."""

    review: Review
    final: bool
    approvals: int
    required: int


@dataclass(frozen=True)
class ReviewState:
    """Where a review stands, without its contents (ReviewLedger.latest_states)."""

    review_id: str
    status: ReviewStatus
    expires_at: str
    # When the thread was resumed with the decision (None: pending, or decided and not yet
    # carried out, e.g. an approved call still running).
    carried_out_at: str | None

    @property
    def settled(self) -> bool:
        """Decided, and the thread resumed with the decision: nothing more happens to it."""
        return self.status != "pending" and self.carried_out_at is not None


def _alive(host: str, pid: int) -> bool:
    """Whether the process that started a call still runs. Only this host's processes can be
    checked; another host's are taken as alive (a replica decides about its own calls)."""
    if host != socket.gethostname():
        return True
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _call_under_way(row: Any) -> bool:
    """Whether a review's approved call started and has not finished (nor been declared lost):
    whether its process is gone is the call's question (unfinished_executions), not the
    decision's, so a live call is never taken over for an old decision."""
    return row["started_at"] is not None and row["finished_at"] is None and row["status"] != "outcome_unknown"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _row_to_review(row: Any, decisions: list[Decision]) -> Review:
    data = dict(row)
    for field in ("capability", "arguments", "flags", "reviewer_roles", "payload"):
        data[field] = json.loads(data[field])
    data["four_eyes"] = bool(data["four_eyes"])
    checked = data.get("effect_check")
    data["effect_check"] = EffectCheck.model_validate_json(checked) if checked else None
    return Review.model_validate(data | {"decisions": decisions})


class ReviewLedger:
    """Reviews, their decisions and their executions, in the Gatehouse database."""

    def __init__(self, db: Database | Path | str, *, clock: Clock = utc_now) -> None:
        """Open the ledger on a database, creating its tables or bringing them to the newest
        schema (the one write here, done once per schema version whoever starts first).

        Args:
            db: a database already open, a SQLite file's path, or a postgresql:// URL.
            clock: where the ledger's time stamps and deadlines come from (tests pass their own).
        """
        self._db = open_database(db)
        self._clock = clock
        migrate(self._db, "ledger", _MIGRATIONS)

    @property
    def database(self) -> Database:
        """Where the rows are: what storage/transactions.py one_transaction takes."""
        return self._db

    def close(self) -> None:
        """Close the ledger's database, also one that was passed in open. Writes nothing."""
        self._db.close()

    def now(self) -> datetime:
        """The ledger's time: what its time stamps and deadlines are read against.

        Returns:
            The clock's current time (UTC).
        """
        return self._clock()

    # -- rows --------------------------------------------------------------------------------

    def open_review(
        self, payload: ReviewPayload | SamplingPayload, *, served_by: str | None = None
    ) -> tuple[Review, bool]:
        """Open the review a payload describes, once per review id.

        Writes one ``pending`` row unless the id has one: the review terms' deadline and approvals
        (30 minutes, one approval, four-eyes, no roles when the payload has no terms), the call hash
        of its server, fingerprint and arguments, and the payload itself. A review id seen before is
        left as it is and read: of openers racing for one id exactly one writes. (The node that
        opens a review re-runs on every resume; reviews/hooks.py reads first, so a re-run takes
        no write lock.)

        Args:
            payload: the graph's interrupt payload (graph/nodes/review.py review_payload) or a server's
                request for a model completion (reviews/sampling.py).
            served_by: where the thread is checkpointed when not in this database
                ('langgraph-api'); None: here.

        Returns:
            The review as stored, and whether this call created it.
        """
        terms = payload["review_terms"]
        capability = payload["capability"]
        arguments = payload["arguments"]
        # A server's request for a completion has no definition, so nothing to fingerprint.
        fingerprint = "" if payload["stage"] == "sampling" else payload["capability"]["fingerprint"] or ""
        opened = self._clock()
        expires = opened + timedelta(minutes=terms["expiry_minutes"] if terms else 30)
        with self._db.write() as conn:
            created = conn.execute(
                "INSERT INTO reviews (id, thread_id, stage, capability_key, capability, arguments,"
                " call_hash, flags, category, requester, required_approvals, four_eyes, reviewer_roles,"
                " created_at, expires_at, status, payload, served_by)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (id) DO NOTHING"
                " RETURNING *",
                (
                    payload["review_id"],
                    payload["thread_id"],
                    payload["stage"],
                    capability.get("key"),
                    json.dumps(capability),
                    json.dumps(arguments),
                    call_hash(capability["server"] or "", fingerprint, arguments),
                    json.dumps(payload["flags"]),
                    payload["category"],
                    payload["requester"] or "operator",
                    terms["required_approvals"] if terms else 1,
                    int(terms["four_eyes"] if terms else True),
                    json.dumps(terms["reviewer_roles"] if terms else []),
                    iso(opened),
                    iso(expires),
                    json.dumps(payload, default=str),
                    served_by,
                ),
            ).fetchone()
        if created is None:  # another opener won the race: its row is the review
            return self.require(payload["review_id"]), False
        # The row as inserted: a new review has no decisions yet, so nothing else to read.
        return _row_to_review(created, []), True

    def attach_ids(self, review_id: str, *, checkpoint_id: str | None, interrupt_id: str | None) -> None:
        """Tie a review to the checkpoint and the interrupt its thread waits in.

        Writes each id only where the row has none yet: the first recorded stays. A review id no
        row has changes nothing.

        Args:
            review_id: the review's full id.
            checkpoint_id: the checkpoint the thread paused in (None: leave it as it is).
            interrupt_id: LangGraph's id of the interrupt (None: leave it as it is).
        """
        with self._db.write() as conn:
            conn.execute(
                "UPDATE reviews SET checkpoint_id = COALESCE(checkpoint_id, ?),"
                " interrupt_id = COALESCE(interrupt_id, ?) WHERE id = ?",
                (checkpoint_id, interrupt_id, review_id),
            )

    def get(self, review_id: str) -> Review | None:
        """A review with its decisions. Writes nothing.

        Args:
            review_id: the review's full id.

        Returns:
            The review, or None when no review has that id.
        """
        with self._db.read() as conn:
            row = conn.execute("SELECT * FROM reviews WHERE id = ?", (review_id,)).fetchone()
            if row is None:
                return None
            return self._with_decisions(conn, [row])[0]

    def thread_of(self, review_id: str) -> str | None:
        """The thread a review pauses (one column, not the whole review). Writes nothing.

        Args:
            review_id: the review's full id.

        Returns:
            The thread id, or None when no review has that id.
        """
        with self._db.read() as conn:
            row = conn.execute("SELECT thread_id FROM reviews WHERE id = ?", (review_id,)).fetchone()
        return str(row["thread_id"]) if row is not None else None

    def _with_decisions(self, conn: Connection, rows: list[Any]) -> list[Review]:
        """Reviews for these rows, their decisions read in one query (not one per review)."""
        decisions: dict[str, list[Decision]] = {row["id"]: [] for row in rows}
        ids = list(decisions)
        # Chunked: SQLite limits the number of bound parameters per statement.
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for d in conn.execute(
                f"SELECT * FROM review_decisions WHERE review_id IN ({marks}) ORDER BY decided_at", chunk
            ):
                decisions[d["review_id"]].append(
                    Decision(
                        reviewer=d["reviewer"],
                        action=d["action"],
                        reason=d["reason"],
                        arguments=json.loads(d["arguments"]) if d["arguments"] else None,
                        decided_at=d["decided_at"],
                        effect=EffectBinding.model_validate_json(d["effect"]) if d["effect"] else None,
                    )
                )
        return [_row_to_review(row, decisions[row["id"]]) for row in rows]

    def resolve_id(self, review_id: str) -> str:
        """The full id of the review ``review_id`` names. Writes nothing.

        Args:
            review_id: a full id, or the short form shown on screen (gatehouse/web/short_ids.py: the
                start of its thread id, at least MIN_SHORT_LENGTH letters and digits, then
                ``-r<round>``; or just the start of the id).

        Returns:
            The full id.

        Raises:
            ReviewNotFoundError: no review matches.
            AmbiguousReviewIdError: several do (it names up to five of them).
        """
        if self.get(review_id) is not None:
            return review_id
        short = _SHORT_ID.fullmatch(review_id)
        if short is None:
            raise ReviewNotFoundError(f"no review {review_id}")
        start, round_ = short["start"], short["round"]
        with self._db.read() as conn:
            # Letters and digits only (checked above): no LIKE wildcard can be in the pattern.
            pattern = f"{start}%" if round_ is None else f"{start}%-r{round_}"
            rows = conn.execute(
                "SELECT id FROM reviews WHERE id LIKE ? ORDER BY id LIMIT ?", (pattern, _AMBIGUITY_SHOWN + 1)
            ).fetchall()
        # LIKE ignores case in SQLite and not in PostgreSQL: the comparison here is exact on both.
        matches = [
            row["id"]
            for row in rows
            if row["id"].startswith(start) and (round_ is None or row["id"].endswith(f"-r{round_}"))
        ]
        if not matches:
            raise ReviewNotFoundError(f"no review {review_id}")
        if len(matches) > 1:
            raise AmbiguousReviewIdError(review_id, matches[:_AMBIGUITY_SHOWN])
        return str(matches[0])

    def require(self, review_id: str) -> Review:
        """A review that must exist, with its decisions. Writes nothing.

        Args:
            review_id: the review's full id.

        Returns:
            The review.

        Raises:
            ReviewNotFoundError: no review has that id.
        """
        review = self.get(review_id)
        if review is None:
            raise ReviewNotFoundError(f"no review {review_id}")
        return review

    def queue(self, status: str | None = None, *, limit: int | None = None, offset: int = 0) -> list[Review]:
        """Reviews oldest first, one page of them, from the (status, created_at) index. Writes
        nothing: a review past its deadline keeps its status until expire_due or expire moves it.

        Args:
            status: only reviews with this status (None: every review).
            limit: at most this many (None: all).
            offset: skip this many first, for paging.

        Returns:
            The reviews, oldest first (ties by id).
        """
        where, params = (" WHERE status = ?", (status,)) if status is not None else ("", ())
        return self._page(f"SELECT * FROM reviews{where} ORDER BY created_at, id", params, limit, offset)

    def history(self, *, limit: int | None = None, offset: int = 0) -> list[Review]:
        """Decided reviews (approved, rejected, expired, cancelled and what followed), most
        recent decision first. Writes nothing.

        Args:
            limit: at most this many (None: all).
            offset: skip this many first, for paging.

        Returns:
            The reviews, most recent decision first (ties by id, descending).
        """
        return self._page(
            "SELECT * FROM reviews WHERE decided_at IS NOT NULL ORDER BY decided_at DESC, id DESC",
            (),
            limit,
            offset,
        )

    def count(self, status: str | None = None) -> int:
        """How many reviews there are with a status. Writes nothing.

        Args:
            status: the status counted (None: every review).

        Returns:
            The number of reviews.
        """
        where, params = (" WHERE status = ?", (status,)) if status is not None else ("", ())
        with self._db.read() as conn:
            return int(conn.execute(f"SELECT COUNT(*) AS n FROM reviews{where}", params).fetchone()["n"])

    def count_decided(self) -> int:
        """How many reviews have been decided: as many as history lists. Writes nothing.

        Returns:
            The number of reviews with a decision time.
        """
        with self._db.read() as conn:
            return int(
                conn.execute("SELECT COUNT(*) AS n FROM reviews WHERE decided_at IS NOT NULL").fetchone()["n"]
            )

    def _page(self, sql: str, params: tuple[Any, ...], limit: int | None, offset: int) -> list[Review]:
        if limit is not None or offset:
            # An offset alone needs a limit on SQLite: "all" as a number both backends take.
            sql += " LIMIT ? OFFSET ?"
            params += (limit if limit is not None else _NO_LIMIT, offset)
        with self._db.read() as conn:
            return self._with_decisions(conn, conn.execute(sql, params).fetchall())

    def latest_for_thread(self, thread_id: str) -> Review | None:
        """The review a thread opened last. Writes nothing.

        Args:
            thread_id: the thread's id.

        Returns:
            Its most recently opened review, or None when it never opened one.
        """
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT id FROM reviews WHERE thread_id = ? ORDER BY created_at DESC, id DESC LIMIT 1",
                (thread_id,),
            ).fetchone()
        return self.get(row["id"]) if row else None

    def latest_states(self, thread_ids: list[str]) -> dict[str, ReviewState]:
        """The state of the review each thread opened last, in one read: what a process
        waiting on many threads at once (MCP clients of `gatehouse serve`) looks at every
        second, without loading the reviews themselves. Threads that opened none are absent."""
        if not thread_ids:
            return {}
        marks = ", ".join("?" for _ in thread_ids)
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT thread_id, id, status, expires_at, carried_out_at, created_at FROM reviews"
                f" WHERE thread_id IN ({marks}) ORDER BY created_at, id",
                tuple(thread_ids),
            ).fetchall()
        # Oldest first: each thread's last row wins.
        return {
            row["thread_id"]: ReviewState(
                review_id=row["id"],
                status=row["status"],
                expires_at=row["expires_at"],
                carried_out_at=row["carried_out_at"],
            )
            for row in rows
        }

    # -- transitions -------------------------------------------------------------------------

    def any_due(self) -> bool:
        """Whether a pending review is past its deadline: a read, so a page that refreshes
        every few seconds takes the write lock of expire_due only when there is work for it.

        Returns:
            True when expire_due would move at least one review.
        """
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT 1 AS due FROM reviews WHERE status = 'pending' AND expires_at <= ? LIMIT 1",
                (iso(self._clock()),),
            ).fetchone()
        return row is not None

    def expire_due(self) -> list[Review]:
        """Expire every pending review past its deadline, in one transaction.

        Writes each such review ``expired``, decided now, with this process as its decider: the
        thread waiting on it is resumed by whoever carries the expiry out (ReviewService.sweep),
        or by a later sweep if this process dies first.

        Returns:
            The reviews this call moved, as they are now (none that another process moved first).
        """
        now = iso(self._clock())
        with self._db.write() as conn:
            due = [
                r["id"]
                for r in conn.execute(
                    "SELECT id FROM reviews WHERE status = 'pending' AND expires_at <= ?"
                    + self._db.dialect.lock_rows,
                    (now,),
                )
            ]
            for review_id in due:
                conn.execute(
                    "UPDATE reviews SET status = 'expired', decided_at = ?, decider_host = ?, decider_pid = ?"
                    " WHERE id = ? AND status = 'pending'",
                    (now, socket.gethostname(), os.getpid(), review_id),
                )
        return [self.require(review_id) for review_id in due]

    def record_decision(
        self,
        review_id: str,
        *,
        reviewer: str,
        action: Literal["approve", "reject"],
        reason: str | None,
        arguments: dict[str, Any] | None,
        effect: EffectBinding | None = None,
    ) -> DecisionRecorded:
        """Record one reviewer's decision; the one that settles the review moves it, once.

        Writes the reviewer's decision row. Approvals count per exact arguments (canonical JSON),
        so an edit starts its own count; a rejection, or the approval that reaches the required
        count, moves the review from ``pending`` to ``rejected`` or ``approved`` with its decider
        (who, when, why, this process). All in one transaction holding the review's row: of any
        number of concurrent deciders exactly one settles it.

        Args:
            review_id: the review's full id.
            reviewer: who decides.
            action: approve or reject.
            reason: why (the operator reads it).
            arguments: the arguments an approval is for (the proposal, or an edit); None for a
                rejection.
            effect: what the approver was shown of the file the call writes, which the
                approval is bound to (None: nothing to bind).

        Returns:
            The review as it is now, whether this decision settled it, and the approvals counted
            for these arguments against those required.

        Raises:
            ReviewNotFoundError: no review has that id.
            AlreadyDecidedError: the review is no longer pending, or this reviewer decided it before.
        """
        now = iso(self._clock())
        with self._db.write() as conn:
            row = conn.execute(
                "SELECT status, decided_by, decided_at, required_approvals FROM reviews WHERE id = ?"
                + self._db.dialect.lock_rows,
                (review_id,),
            ).fetchone()
            if row is None:
                raise ReviewNotFoundError(f"no review {review_id}")
            if row["status"] != "pending":
                raise AlreadyDecidedError(review_id, row["status"], row["decided_by"], row["decided_at"])
            previous = conn.execute(
                "SELECT action, decided_at FROM review_decisions WHERE review_id = ? AND reviewer = ?",
                (review_id, reviewer),
            ).fetchone()
            if previous is not None:
                raise AlreadyDecidedError(review_id, "pending", reviewer, previous["decided_at"])
            conn.execute(
                "INSERT INTO review_decisions (review_id, reviewer, action, reason, arguments, decided_at, effect)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    review_id,
                    reviewer,
                    action,
                    reason,
                    _canonical(arguments),
                    now,
                    effect.model_dump_json() if effect is not None else None,
                ),
            )
            # Approvals count per exact arguments (canonical JSON): an edit starts its own count.
            approvals = (
                conn.execute(
                    "SELECT COUNT(*) AS n FROM review_decisions WHERE review_id = ? AND action = 'approve'"
                    " AND arguments = ?",
                    (review_id, _canonical(arguments)),
                ).fetchone()["n"]
                if action == "approve"
                else 0
            )
            required = int(row["required_approvals"])
            final = action == "reject" or approvals >= required
            if final:
                status = "rejected" if action == "reject" else "approved"
                moved = conn.execute(
                    "UPDATE reviews SET status = ?, decided_by = ?, decided_at = ?, reason = ?,"
                    " decider_host = ?, decider_pid = ? WHERE id = ? AND status = 'pending'",
                    (status, reviewer, now, reason, socket.gethostname(), os.getpid(), review_id),
                ).rowcount
                if moved != 1:  # unreachable under the row's lock; kept as the compare-and-set's guard
                    raise AlreadyDecidedError(review_id, "decided", None, None)
        return DecisionRecorded(
            review=self.require(review_id), final=final, approvals=approvals, required=required
        )

    def cancel(self, review_id: str, by: str, *, reason: str = "withdrawn by the requester") -> bool:
        """The requester withdrew the request: pending -> cancelled, once (a compare-and-set, so
        a withdrawal and a decision racing each other cannot both win).

        Writes the review ``cancelled`` with who withdrew it, when and why, and this process as
        its decider; nothing when it is not pending.

        Args:
            review_id: the review's full id.
            by: who withdrew the request.
            reason: what the review says about it.

        Returns:
            True when this call cancelled it; False when it was no longer pending (or no review has
            that id).
        """
        now = iso(self._clock())
        with self._db.write() as conn:
            return (
                conn.execute(
                    "UPDATE reviews SET status = 'cancelled', decided_by = ?, decided_at = ?, reason = ?,"
                    " decider_host = ?, decider_pid = ? WHERE id = ? AND status = 'pending'",
                    (by, now, reason, socket.gethostname(), os.getpid(), review_id),
                ).rowcount
                == 1
            )

    def expire(self, review_id: str) -> bool:
        """This one review, pending past its deadline, becomes expired (a compare-and-set, as
        expire_due makes it for every review due).

        Writes the review ``expired``, decided now, with this process as its decider; nothing when
        it is not pending or not due yet.

        Args:
            review_id: the review's full id.

        Returns:
            True when this call expired it; False if it was decided or is not due.
        """
        now = iso(self._clock())
        with self._db.write() as conn:
            return (
                conn.execute(
                    "UPDATE reviews SET status = 'expired', decided_at = ?, decider_host = ?, decider_pid = ?"
                    " WHERE id = ? AND status = 'pending' AND expires_at <= ?",
                    (now, socket.gethostname(), os.getpid(), review_id, now),
                ).rowcount
                == 1
            )

    def count_opened_since(self, stage: str, capability_key: str, since: datetime) -> int:
        """Reviews of this stage and capability opened at or after ``since``, whatever became of
        them (how often a server asked, for its rate limit). Writes nothing.

        Args:
            stage: the review stage (``sampling`` for a server's requests for a completion).
            capability_key: the capability key the reviews were opened for.
            since: the earliest opening time counted.

        Returns:
            The number of such reviews.
        """
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT COUNT(*) AS n FROM reviews WHERE stage = ? AND capability_key = ? AND created_at >= ?",
                (stage, capability_key, iso(since)),
            ).fetchone()
        return int(row["n"])

    def set_status(self, review_id: str, status: ReviewStatus) -> None:
        """Set a review's status, whatever it was (the sweep marks a call it finds cut off
        ``outcome_unknown``). Writes the status only; a review id no row has changes nothing.

        Args:
            review_id: the review's full id.
            status: the status it gets.
        """
        with self._db.write() as conn:
            conn.execute("UPDATE reviews SET status = ? WHERE id = ?", (status, review_id))

    # -- run once ----------------------------------------------------------------------------

    def begin_execution(
        self, review_id: str, call: str, thread_id: str, *, time_limit: float | None = None
    ) -> bool:
        """Record that the approved call starts, before it is made: the run-once journal.

        Writes the execution row (call hash, thread, start time, the call's deadline, this host
        and process as its owner), keyed by the review id, so a second start of the same review
        is refused by the database whoever tries it.

        Args:
            review_id: the review whose approval the call runs under.
            call: the call's hash (graph/calls.py call_hash).
            thread_id: the thread that makes the call.
            time_limit: the call's time limit in seconds (the server's timeout); None: the
                deadline is the start.

        Returns:
            True when the start is recorded now: make the call. False if it was started before:
            never again.
        """
        # ON CONFLICT, not a caught unique violation: in PostgreSQL a failed statement aborts the
        # transaction, and this write may be part of a larger one (storage/transactions.py).
        now = self._clock()
        deadline = now + timedelta(seconds=time_limit or 0)
        with self._db.write() as conn:
            started = conn.execute(
                "INSERT INTO review_executions"
                " (review_id, call_hash, thread_id, started_at, deadline, owner_host, owner_pid)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (review_id) DO NOTHING",
                (review_id, call, thread_id, iso(now), iso(deadline), socket.gethostname(), os.getpid()),
            ).rowcount
        return started == 1

    def started(self, review_id: str) -> bool:
        """Whether the start of the call approved in this review was recorded. Writes nothing.

        Args:
            review_id: the review whose approval the call runs under.

        Returns:
            True once begin_execution recorded it (whether or not it finished).
        """
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT 1 AS started FROM review_executions WHERE review_id = ?", (review_id,)
            ).fetchone()
        return row is not None

    def finish_execution(
        self,
        review_id: str,
        outcome: Literal["executed", "failed", "not_run", "outcome_unknown"],
        result: dict[str, Any] | None = None,
    ) -> None:
        """Record how a started call ended, with its result.

        Writes the execution row's end time, outcome and result unless it has ended already, and
        the review's status to the outcome unless the review is ``outcome_unknown``: a result
        arriving after the call was declared lost does not rewrite that verdict.

        Args:
            review_id: the review whose approval the call ran under.
            outcome: executed, failed, not_run (the request never reached the server) or
                outcome_unknown.
            result: the call's result as JSON, already capped (None: nothing to keep).
        """
        now = iso(self._clock())
        with self._db.write() as conn:
            conn.execute(
                "UPDATE review_executions SET finished_at = ?, outcome = ?, result = ?"
                " WHERE review_id = ? AND finished_at IS NULL",
                (now, outcome, json.dumps(result) if result is not None else None, review_id),
            )
            # A result arriving after the call was declared lost does not rewrite that verdict.
            conn.execute(
                "UPDATE reviews SET status = ? WHERE id = ? AND status != 'outcome_unknown'",
                (outcome, review_id),
            )

    def record_effect_check(self, review_id: str, check: EffectCheckData) -> None:
        """Keep what the approved call's effect read back as after it ran, on the review: the
        reviewer's history shows it (the audit log has it as an event too: reviews/hooks.py).

        Writes the review's effect check, replacing one recorded before (the read-back runs
        once per call: only a fresh call is read back). A review id no row has changes nothing.

        Args:
            review_id: the review whose approval the call ran under.
            check: the read-back's status and detail (graph/effect_readback.py).
        """
        recorded = EffectCheck.model_validate(check).model_dump_json()
        with self._db.write() as conn:
            conn.execute("UPDATE reviews SET effect_check = ? WHERE id = ?", (recorded, review_id))

    def mark_not_run(self, review_id: str) -> bool:
        """An approved review whose call never started (the policy refused the approved, edited
        arguments, say) is ``not_run`` rather than ``approved`` for ever.

        Writes the status ``not_run`` in one statement that also checks no start is recorded, so
        it cannot race a start.

        Args:
            review_id: the review's full id.

        Returns:
            True when this call marked it; False if the call did start, or the review is not
            ``approved``.
        """
        with self._db.write() as conn:
            return (
                conn.execute(
                    "UPDATE reviews SET status = 'not_run' WHERE id = ? AND status = 'approved'"
                    " AND NOT EXISTS (SELECT 1 FROM review_executions WHERE review_id = ?)",
                    (review_id, review_id),
                ).rowcount
                == 1
            )

    def recorded_result(self, review_id: str) -> dict[str, Any] | None:
        """The result a finished reviewed call returned, as recorded right after the call: a
        thread continued after a crash uses it instead of calling again. Writes nothing.

        Args:
            review_id: the review whose approval the call ran under.

        Returns:
            The result, or None while the call has not finished (or finished without one).
        """
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT result FROM review_executions WHERE review_id = ? AND finished_at IS NOT NULL",
                (review_id,),
            ).fetchone()
        return json.loads(row["result"]) if row is not None and row["result"] else None

    # -- carrying decisions out --------------------------------------------------------------

    def mark_carried_out(self, review_id: str) -> None:
        """The thread resumed with this review's decision (or no longer waits for it).

        Writes the time it was carried out, the first time only: a later call changes nothing.

        Args:
            review_id: the review's full id.
        """
        with self._db.write() as conn:
            conn.execute(
                "UPDATE reviews SET carried_out_at = ? WHERE id = ? AND carried_out_at IS NULL",
                (iso(self._clock()), review_id),
            )

    def not_carried_out(self) -> list[Review]:
        """Decided reviews whose decision was never carried out and whose deciding process is
        gone (only this host's processes can be checked), or that were decided (or whose call
        finished) so long ago (STALE_AFTER) that the decider is taken as gone (a pid reused, a
        replica on another host). A decision whose call started and has not finished is not
        among them: unfinished_executions says when that call is lost; nor is one on a thread
        served elsewhere (``served_by``), which its API's caller resumes. Writes nothing.

        Returns:
            The reviews, oldest decision first.
        """
        stale = iso(self._clock() - STALE_AFTER)
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT r.id, r.decider_host, r.decider_pid, r.decided_at, r.status,"
                " e.started_at, e.finished_at FROM reviews r"
                " LEFT JOIN review_executions e ON e.review_id = r.id"
                " WHERE r.carried_out_at IS NULL AND r.decided_at IS NOT NULL"
                # A thread served elsewhere is resumed by the API's caller, never by a sweep here.
                " AND r.served_by IS NULL ORDER BY r.decided_at"
            ).fetchall()
        lost = [
            r["id"]
            for r in rows
            if not _call_under_way(r)
            and (
                r["decider_host"] is None
                or not _alive(r["decider_host"], int(r["decider_pid"] or 0))
                or max(r["decided_at"], r["finished_at"] or "") <= stale
            )
        ]
        return [self.require(review_id) for review_id in lost]

    def claim(self, review: Review) -> bool:
        """Take over a review's unfinished work whose process is gone (carrying out its decision,
        or marking its cut-off call): a compare-and-set on the decider, so of several sweepers
        exactly one continues the thread.

        Writes this host and process as the review's decider, only if its decision is not carried
        out yet and the decider is still the one ``review`` was read with.

        Args:
            review: the review as the sweeper read it (from not_carried_out or
                unfinished_executions).

        Returns:
            True when this process took it over; False when another did first.
        """
        here, me = socket.gethostname(), os.getpid()
        if (
            review.decider_host == here
            and review.decider_pid not in (None, me)
            and _alive(here, review.decider_pid)
        ):
            # A live process of this host holds it: most likely another sweeper that claimed it
            # between this one's listing and its read of the row. Comparing against what was
            # read then would let both take it (two sweepers marked one call outcome_unknown).
            return False
        with self._db.write() as conn:
            return (
                conn.execute(
                    "UPDATE reviews SET decider_host = ?, decider_pid = ? WHERE id = ?"
                    " AND carried_out_at IS NULL AND decider_host IS NOT DISTINCT FROM ?"
                    " AND decider_pid IS NOT DISTINCT FROM ?",
                    (here, me, review.id, review.decider_host, review.decider_pid),
                ).rowcount
                == 1
            )

    def unfinished_executions(self, *, only_lost: bool = True) -> list[Review]:
        """Calls whose start was recorded and whose result never was (the review not already
        ``outcome_unknown``). Writes nothing.

        Args:
            only_lost: only those whose process is gone, or, where that cannot be seen (another
                host's process, a pid reused), those STALE_AFTER past their deadline: a call
                still running in a live process within its time limit is not lost (False:
                every unfinished call).

        Returns:
            The reviews of those calls.
        """
        stale = iso(self._clock() - STALE_AFTER)
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT e.review_id, e.owner_host, e.owner_pid, e.started_at, e.deadline"
                " FROM review_executions e JOIN reviews r ON r.id = e.review_id"
                " WHERE e.finished_at IS NULL AND r.status != 'outcome_unknown'"
            ).fetchall()
        lost = [
            r["review_id"]
            for r in rows
            if not only_lost
            or not _alive(r["owner_host"], r["owner_pid"])
            # An owner that cannot be seen to be gone (another host's, a pid reused) keeps its
            # call until the call's time limit, and STALE_AFTER more, are past.
            or (r["deadline"] or r["started_at"]) <= stale
        ]
        return [self.require(review_id) for review_id in lost]
