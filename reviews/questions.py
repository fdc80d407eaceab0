"""Questions servers ask during a call (MCP elicitation), kept in the database until answered.

A question is a row: the thread and the person it belongs to, the server that asked, what it
asked (a form's schema, or a URL to open), the policy's flags, and a deadline. The process
whose call waits for the answer polls the row; whoever answers (the operator's chat page, on
this replica or another, or a terminal) writes to the same row. So the answer travels
through the database, and any replica can take it.

Answering is a compare-and-set: only a pending question, before its deadline, and only once.
Expiring is the same compare-and-set the other way, so of an answer and an expiry racing each
other exactly one wins, and the waiting call learns which.

An answer may hold what a person typed in a form. The values of fields that could hold a secret
are never stored in clear: ``content`` keeps ``***`` for them, and ``sealed_answer`` the values
sealed to the key of the waiting call (``answer_key``, its public half; reviews/sealing.py).
Once the waiting call has taken the answer, the sealed values go and the stored copy keeps no
secret of a known shape either (``keep_shown``).
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from mcp_host.reported import ConflictError
from reviews.clock import Clock, iso, utc_now
from reviews.errors import ReviewError
from storage import Database, open_database
from storage.database import migrate

QuestionStatus = Literal["pending", "answered", "expired"]
QuestionMode = Literal["form", "url"]
AnswerAction = Literal["accept", "decline", "cancel"]

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS questions (
        id TEXT PRIMARY KEY,
        thread_id TEXT NOT NULL,
        operator TEXT NOT NULL,
        server TEXT NOT NULL,
        mode TEXT NOT NULL,
        message TEXT NOT NULL,
        requested_schema TEXT,
        url TEXT,
        domain TEXT,
        elicitation_id TEXT,
        flags TEXT NOT NULL,
        created_at TEXT NOT NULL,
        deadline TEXT NOT NULL,
        status TEXT NOT NULL,
        action TEXT,
        content TEXT,
        answered_by TEXT,
        answered_at TEXT)""",
        "CREATE INDEX IF NOT EXISTS questions_by_thread ON questions (thread_id, status, created_at)",
    ),
    (
        "ALTER TABLE questions ADD COLUMN answer_key TEXT",
        "ALTER TABLE questions ADD COLUMN sealed_answer TEXT",
    ),
)


class QuestionError(ReviewError):
    """A question that cannot be answered as asked (exit 2 on the command line)."""


class QuestionNotFoundError(QuestionError):
    pass


class QuestionClosedError(QuestionError, ConflictError):
    """Answered or expired already: an answer counts once, and only in time."""

    def __init__(self, question: Question) -> None:
        if question.status == "answered":
            what = f"was already answered by {question.answered_by or 'someone'} at {question.answered_at}"
        else:  # expired, or pending past its deadline (the waiting call has not noticed yet)
            what = f"expired at {question.deadline}: the call went on without an answer"
        super().__init__(f"question {question.id} {what}")
        self.question = question


class Question(BaseModel):
    id: str
    thread_id: str
    operator: str
    server: str
    mode: QuestionMode
    message: str
    requested_schema: dict[str, Any] | None = None
    url: str | None = None
    domain: str | None = None
    elicitation_id: str | None = None
    flags: list[dict[str, Any]] = []
    created_at: str
    deadline: str
    status: QuestionStatus
    action: AnswerAction | None = None
    content: dict[str, Any] | None = None
    answered_by: str | None = None
    answered_at: str | None = None
    # The waiting call's public key, when the form could hold a secret (reviews/sealing.py).
    answer_key: str | None = None
    # The secret fields' values, sealed to that key, until the call has taken them.
    sealed_answer: str | None = None


def _row_to_question(row: Any) -> Question:
    data = dict(row)
    for name in ("requested_schema", "content", "flags"):
        data[name] = json.loads(data[name]) if data[name] is not None else None
    return Question.model_validate(data)


class QuestionStore:
    def __init__(self, db: Database | Path | str, *, clock: Clock = utc_now) -> None:
        self._db = open_database(db)
        self._clock = clock
        migrate(self._db, "questions", _MIGRATIONS)

    @property
    def database(self) -> Database:
        """Where the rows are: what storage/transactions.py one_transaction takes."""
        return self._db

    def close(self) -> None:
        self._db.close()

    def now(self) -> datetime:
        return self._clock()

    def open(
        self,
        *,
        thread_id: str,
        operator: str,
        server: str,
        mode: QuestionMode,
        message: str,
        timeout: timedelta,
        requested_schema: dict[str, Any] | None = None,
        url: str | None = None,
        domain: str | None = None,
        elicitation_id: str | None = None,
        flags: list[dict[str, Any]] | None = None,
        answer_key: str | None = None,
    ) -> Question:
        """A new pending question, due ``timeout`` from now."""
        created = self._clock()
        question_id = uuid.uuid4().hex
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO questions (id, thread_id, operator, server, mode, message, requested_schema,"
                " url, domain, elicitation_id, flags, created_at, deadline, answer_key, status)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')",
                (
                    question_id,
                    thread_id,
                    operator,
                    server,
                    mode,
                    message,
                    json.dumps(requested_schema) if requested_schema is not None else None,
                    url,
                    domain,
                    elicitation_id,
                    json.dumps(flags or []),
                    iso(created),
                    iso(created + timeout),
                    answer_key,
                ),
            )
        return self.require(question_id)

    def get(self, question_id: str) -> Question | None:
        with self._db.read() as conn:
            row = conn.execute("SELECT * FROM questions WHERE id = ?", (question_id,)).fetchone()
        return _row_to_question(row) if row is not None else None

    def require(self, question_id: str) -> Question:
        question = self.get(question_id)
        if question is None:
            raise QuestionNotFoundError(f"no question {question_id}")
        return question

    def pending_for(self, thread_id: str) -> list[Question]:
        """The thread's questions still waiting for an answer, oldest first. One past its
        deadline is not listed even before the waiting call marks it expired (its process may
        be gone): nobody could answer it any more."""
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM questions WHERE thread_id = ? AND status = 'pending' AND deadline > ?"
                " ORDER BY created_at, id",
                (thread_id, iso(self._clock())),
            ).fetchall()
        return [_row_to_question(row) for row in rows]

    def of_thread(self, thread_id: str) -> list[Question]:
        """Every question asked on the thread, whatever became of it, oldest first."""
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM questions WHERE thread_id = ? ORDER BY created_at, id", (thread_id,)
            ).fetchall()
        return [_row_to_question(row) for row in rows]

    def answer(
        self,
        question_id: str,
        *,
        action: AnswerAction,
        content: dict[str, Any] | None,
        by: str,
        sealed: str | None = None,
    ) -> Question:
        """Record the answer once: QuestionClosedError when it was answered or expired first.
        ``content`` must hold no secret in clear: those values come ``sealed``."""
        now = iso(self._clock())
        with self._db.write() as conn:
            moved = conn.execute(
                "UPDATE questions SET status = 'answered', action = ?, content = ?, sealed_answer = ?,"
                " answered_by = ?, answered_at = ? WHERE id = ? AND status = 'pending' AND deadline > ?",
                (
                    action,
                    json.dumps(content) if content is not None else None,
                    sealed,
                    by,
                    now,
                    question_id,
                    now,
                ),
            ).rowcount
        question = self.require(question_id)
        if moved != 1:
            raise QuestionClosedError(question)
        return question

    def expire(self, question_id: str) -> bool:
        """Pending -> expired, once; False when it was answered (or expired) first."""
        now = iso(self._clock())
        with self._db.write() as conn:
            return (
                conn.execute(
                    "UPDATE questions SET status = 'expired', answered_at = ? WHERE id = ? AND status = 'pending'",
                    (now, question_id),
                ).rowcount
                == 1
            )

    def keep_shown(self, question_id: str, content: dict[str, Any] | None) -> None:
        """Replace an answer's stored content (after the call took it) by what may be kept; the
        sealed values go (nobody may open them any more)."""
        with self._db.write() as conn:
            conn.execute(
                "UPDATE questions SET content = ?, sealed_answer = NULL WHERE id = ?",
                (json.dumps(content) if content is not None else None, question_id),
            )
