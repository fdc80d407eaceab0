"""Conversations: what an operator asked on a thread and every answer the thread gave.

The checkpoints hold the graph's state, not the exchange as a person saw it: a thread answered
by a reviewer's decision, minutes later and in another process, must show that answer when its
operator reopens it. Every run is recorded here by the review service (the one place every run
passes through), keyed by the checkpoint it ended in, so recording the same run twice (two
browser tabs, a retried sweep) keeps one message. Secrets in a request or an answer are
hidden before they are stored (policies/secrets.py): the Traces page lists every thread's title.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from policies.secrets import DEFAULT_REDACTOR, SecretRedactor
from reviews.clock import Clock, iso, utc_now
from storage import Database, open_database
from storage.database import Connection, migrate

TITLE_CHARS = 80
UNTITLED = "(started elsewhere)"

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS conversations (
        thread_id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        title TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        status TEXT)""",
        "CREATE INDEX IF NOT EXISTS conversations_by_owner ON conversations (owner, updated_at)",
        """CREATE TABLE IF NOT EXISTS conversation_messages (
        thread_id TEXT NOT NULL REFERENCES conversations (thread_id),
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        author TEXT,
        body TEXT NOT NULL,
        checkpoint_id TEXT,
        at TEXT NOT NULL,
        PRIMARY KEY (thread_id, seq),
        UNIQUE (thread_id, checkpoint_id))""",
        "CREATE INDEX IF NOT EXISTS conversations_by_activity ON conversations (updated_at)",
    ),
)


class Message(BaseModel):
    thread_id: str
    seq: int
    role: Literal["operator", "gatehouse"]
    author: str | None
    # The operator's text, or the thread's final_output (the output contract) for an answer.
    text: str | None = None
    output: dict[str, Any] | None = None
    at: str


class Conversation(BaseModel):
    thread_id: str
    owner: str
    title: str
    created_at: str
    updated_at: str
    # Status of the newest answer (None until the first answer arrives).
    status: str | None


class Conversations:
    def __init__(
        self,
        db: Database | Path | str,
        *,
        clock: Clock = utc_now,
        secrets: SecretRedactor = DEFAULT_REDACTOR,
    ) -> None:
        self._db = open_database(db)
        self._clock = clock
        self._secrets = secrets
        migrate(self._db, "conversations", _MIGRATIONS)

    @property
    def database(self) -> Database:
        """Where the rows are: what storage/transactions.py one_transaction takes."""
        return self._db

    def close(self) -> None:
        self._db.close()

    def record_request(self, thread_id: str, owner: str, text: str) -> Message:
        """The operator's message; the first one opens the conversation and titles it."""
        now = iso(self._clock())
        text = self._secrets.text(text, thread_id=thread_id)
        title = " ".join(text.split())[:TITLE_CHARS] or "(empty request)"
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO conversations (thread_id, owner, title, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (thread_id) DO UPDATE SET updated_at = excluded.updated_at,"
                # A thread whose answer arrived before any request (started outside a
                # conversation) takes its title from the first request it gets.
                " title = CASE WHEN conversations.title = ? THEN excluded.title ELSE conversations.title END",
                (thread_id, owner, title, now, now, UNTITLED),
            )
            seq = self._append(conn, thread_id, "operator", owner, {"text": text}, None, now)
        return Message(thread_id=thread_id, seq=seq, role="operator", author=owner, text=text, at=now)

    def record_answer(
        self,
        thread_id: str,
        output: dict[str, Any],
        *,
        checkpoint_id: str | None,
        owner: str,
        author: str | None = None,
    ) -> bool:
        """The thread's answer after a run; False when this checkpoint's answer is already here.

        A thread started outside a conversation (a test driving the graph directly) gets one,
        owned by its requester, so its answers are never dropped."""
        now = iso(self._clock())
        # Stored with its secrets hidden like the request's text: an answer carries the
        # arguments it proposed and what the call returned (hidden before the row is locked).
        shown = self._secrets.value(output, thread_id=thread_id)
        with self._db.write() as conn:
            # The upsert locks the thread's conversation row first: the duplicate check and the
            # next sequence number below are then the only ones for this thread. A checkpoint
            # whose answer is here already leaves the row as it is.
            conn.execute(
                "INSERT INTO conversations (thread_id, owner, title, created_at, updated_at, status)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (thread_id) DO UPDATE"
                " SET updated_at = excluded.updated_at, status = excluded.status"
                " WHERE NOT EXISTS (SELECT 1 FROM conversation_messages m"
                " WHERE m.thread_id = excluded.thread_id AND m.checkpoint_id = ?)",
                (thread_id, owner, UNTITLED, now, now, output.get("status"), checkpoint_id),
            )
            # Read again after the lock: an answer another writer committed meanwhile is seen.
            if (
                checkpoint_id is not None
                and conn.execute(
                    "SELECT 1 AS found FROM conversation_messages WHERE thread_id = ? AND checkpoint_id = ?",
                    (thread_id, checkpoint_id),
                ).fetchone()
            ):
                # Returned, not raised: this write may be part of a larger transaction
                # (storage/transactions.py), which an error would roll back whole.
                return False
            self._append(conn, thread_id, "gatehouse", author, {"output": shown}, checkpoint_id, now)
        return True

    @staticmethod
    def _append(
        conn: Connection,
        thread_id: str,
        role: str,
        author: str | None,
        body: dict[str, Any],
        checkpoint_id: str | None,
        now: str,
    ) -> int:
        # Inside the write transaction: no other writer can take the same sequence number.
        row = conn.execute(
            "INSERT INTO conversation_messages (thread_id, seq, role, author, body, checkpoint_id, at)"
            " SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ? FROM conversation_messages WHERE thread_id = ?"
            " RETURNING seq",
            (thread_id, role, author, json.dumps(body, ensure_ascii=False), checkpoint_id, now, thread_id),
        ).fetchone()
        return int(row["seq"])

    def messages(self, thread_id: str, *, after: int = 0) -> list[Message]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM conversation_messages WHERE thread_id = ? AND seq > ? ORDER BY seq",
                (thread_id, after),
            ).fetchall()
        return [
            Message(
                thread_id=row["thread_id"],
                seq=row["seq"],
                role=row["role"],
                author=row["author"],
                at=row["at"],
                **json.loads(row["body"]),
            )
            for row in rows
        ]

    def last_seq(self, thread_id: str) -> int:
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) AS last FROM conversation_messages WHERE thread_id = ?",
                (thread_id,),
            ).fetchone()
        return int(row["last"])

    def get(self, thread_id: str) -> Conversation | None:
        with self._db.read() as conn:
            row = conn.execute("SELECT * FROM conversations WHERE thread_id = ?", (thread_id,)).fetchone()
        return Conversation.model_validate(dict(row)) if row else None

    def of_owner(self, owner: str, *, limit: int = 50) -> list[Conversation]:
        """The owner's conversations, most recently active first."""
        return self._listed("WHERE owner = ?", (owner,), limit)

    def recent(self, *, limit: int = 50) -> list[Conversation]:
        """Everyone's conversations, most recently active first (the traces page)."""
        return self._listed("", (), limit)

    def starting_with(self, start: str, *, limit: int) -> list[Conversation]:
        """Conversations whose thread id starts with ``start`` (letters and digits only: no
        LIKE wildcard can be in it), at most ``limit`` of them, by thread id."""
        if not start.isalnum() or not start.isascii():
            raise ValueError(f"a thread id's start is letters and digits, not {start!r}")
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM conversations WHERE thread_id LIKE ? ORDER BY thread_id LIMIT ?",
                (f"{start}%", limit),
            ).fetchall()
        # LIKE ignores case in SQLite and not in PostgreSQL: the comparison here is exact on both.
        found = [Conversation.model_validate(dict(row)) for row in rows]
        return [c for c in found if c.thread_id.startswith(start)]

    def _listed(self, where: str, params: tuple[Any, ...], limit: int) -> list[Conversation]:
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT * FROM conversations {where} ORDER BY updated_at DESC, thread_id LIMIT ?",
                (*params, limit),
            ).fetchall()
        return [Conversation.model_validate(dict(row)) for row in rows]
