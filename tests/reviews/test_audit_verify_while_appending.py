"""`audit verify` (and `audit anchor`, which verifies first) on a live database: other
processes (replicas) commit appends while it reads. A commit that lands between two of its
statements must never read as tampering: a head newer than the rows read, or a chain's rows
newer than its head, would otherwise be named "deleted" or "inserted outside the log".

The timing is injected, not raced for: the verify's database is wrapped so that before each of
its statements after the first a writer on its own connection (another thread, or another
process) appends and commits, and the verify goes on only once that commit is done. Whatever
statements verify makes and however it groups them, each of them after the first has a commit
the first did not see. Every test runs on a SQLite file and on PostgreSQL
(tests/reviews/conftest.py)."""

from __future__ import annotations

import secrets
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from gatehouse.cli import main
from reviews import audit as audit_module
from reviews.audit import AuditLog
from reviews.audit_anchor import anchor_problems, make_anchor
from reviews.clock import iso, utc_now
from storage import Database, open_database
from storage.database import Connection, Cursor

ROOT = Path(__file__).resolve().parents[2]
WRITER_SECONDS = 120
AUDIT_KEY_ENV = "GATEHOUSE_AUDIT_KEY"


class _Interleaved:
    """A connection that, once armed, has ``commit`` run before each of its statements but the
    first: a concurrent writer's commit between any two of the reader's statements."""

    def __init__(self, conn: Connection, interleave: _Interleaving) -> None:
        self._conn = conn
        self._interleave = interleave
        self._statements = 0

    def execute(self, sql: str, params: Sequence[Any] = (), /) -> Cursor:
        if self._interleave.armed and self._statements > 0:
            self._interleave.commit_now()
        self._statements += 1
        return self._conn.execute(sql, params)


class _Interleaving:
    def __init__(self, commit: Callable[[], None]) -> None:
        self._commit = commit
        self.armed = False
        self.commits = 0
        self._owner = threading.get_ident()

    def commit_now(self) -> None:
        if threading.get_ident() != self._owner:
            return  # only the reader's statements, never a writer's on a thread of its own
        # On another thread, as another replica would: its own connection and transaction.
        with ThreadPoolExecutor(1) as pool:
            pool.submit(self._commit).result(timeout=WRITER_SECONDS)
        self.commits += 1


# A write holds locks (SQLite's database lock, PostgreSQL's migration lock) that the writer
# would wait for while the reader waits for the writer: only reads are interleaved.
_NOT_INTERLEAVED = ("write", "migrating", "close")


class _InterleavedDatabase:
    """A database whose every connection for reading (whatever method hands it out: a read, a
    snapshot) is wrapped in _Interleaved; everything else is the database's own."""

    def __init__(self, db: Database, interleave: _Interleaving) -> None:
        self._db = db
        self._interleave = interleave

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._db, name)
        if not callable(value) or name in _NOT_INTERLEAVED:
            return value

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            result = value(*args, **kwargs)
            if isinstance(result, AbstractContextManager):
                return self._connection(result)
            return result

        return wrapped

    @contextmanager
    def _connection(self, manager: AbstractContextManager[Any]) -> Iterator[Any]:
        with manager as conn:
            yield _Interleaved(conn, self._interleave) if conn is not None else conn


@contextmanager
def appends_between_reads(
    monkeypatch: pytest.MonkeyPatch, commit: Callable[[], None]
) -> Iterator[_Interleaving]:
    """Every AuditLog opened inside (the CLI's too) reads through _InterleavedDatabase; armed
    once opened (its migrations run without interleaving)."""
    interleave = _Interleaving(commit)

    def interleaved(target: Any, **options: Any) -> Any:
        return _InterleavedDatabase(open_database(target, **options), interleave)

    monkeypatch.setattr(audit_module, "open_database", interleaved)
    yield interleave


def database(backend: str | Path) -> str:
    return backend if isinstance(backend, str) else str(backend)


@contextmanager
def appender(backend: str | Path) -> Iterator[Callable[[], None]]:
    """Another replica's log, on a connection of its own: each call appends one event and
    commits. Opened (and its tables migrated) before the verify begins: on PostgreSQL a replica
    migrating takes a lock that a session elsewhere on the server may hold while its CREATE
    INDEX CONCURRENTLY waits for every open snapshot, the verify's among them, which here waits
    for this writer (storage/postgres.py migration_lock)."""
    log = AuditLog(open_database(database(backend)))

    def commit() -> None:
        log.append("concurrent", {"by": "another replica"}, actor="replica-2")

    try:
        yield commit
    finally:
        log.close()


def seeded(backend: str | Path, count: int = 3) -> AuditLog:
    log = AuditLog(database(backend))
    for n in range(count):
        log.append("event", {"n": n}, actor="reviewer")
    return log


def test_a_commit_between_verifys_reads_is_not_reported_as_tampering(
    backend: str | Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seeded(backend).close()
    with appender(backend) as commit, appends_between_reads(monkeypatch, commit) as interleave:
        log = AuditLog(database(backend))
        try:
            interleave.armed = True
            report = log.verify()
            interleave.armed = False

            assert interleave.commits > 0  # the writer did commit while verify was reading
            assert report.problems == []
            assert report.ok
            # What it checked is what was there when it began: the rows committed during it are
            # left to the next verify, which finds them whole.
            assert report.events == 3
            assert log.verify().events == 3 + interleave.commits
        finally:
            log.close()


def test_tampering_is_still_named_while_another_replica_appends(
    backend: str | Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = seeded(backend, 4)
    try:
        with log.database.write() as conn:
            conn.execute("""UPDATE audit_log SET data = '{"n": 99}' WHERE seq = 2""")
    finally:
        log.close()
    with appender(backend) as commit, appends_between_reads(monkeypatch, commit) as interleave:
        log = AuditLog(database(backend))
        try:
            interleave.armed = True
            report = log.verify()
            interleave.armed = False
        finally:
            log.close()
    assert interleave.commits > 0
    assert report.problems == ["row 2 was edited (its content no longer matches its hash)"]


def test_an_anchor_made_while_another_replica_appends_holds_its_snapshot(
    backend: str | Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = secrets.token_bytes(32)
    seeded(backend).close()
    with appender(backend) as commit, appends_between_reads(monkeypatch, commit) as interleave:
        log = AuditLog(database(backend))
        try:
            interleave.armed = True
            check = log.check_chain()
            interleave.armed = False
        finally:
            log.close()
    assert interleave.commits > 0
    assert check.report.ok, check.report.problems  # `audit anchor` signs only an intact log
    anchor = make_anchor(check, at=iso(utc_now()), key=key)
    assert [(end.chain, end.link) for end in anchor.ends] == [(1, 3)]

    log = AuditLog(database(backend))
    try:
        assert anchor_problems(log.check_chain(), [anchor]) == []
    finally:
        log.close()


def test_audit_verify_and_anchor_from_the_command_line_while_another_replica_appends(
    backend: str | Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.setenv(AUDIT_KEY_ENV, secrets.token_hex(32))
    seeded(backend).close()
    anchors = tmp_path / "anchors.jsonl"
    with appender(backend) as commit, appends_between_reads(monkeypatch, commit) as interleave:
        interleave.armed = True  # the CLI's log is opened inside main: its migrations interleave too
        anchored = main(["audit", "anchor", "--append", str(anchors), "--db", database(backend)])
        out, err = capsys.readouterr()
        assert anchored == 0, out + err

        verified = main(["audit", "verify", "--anchor", str(anchors), "--db", database(backend)])
        out, err = capsys.readouterr()
        interleave.armed = False
    assert interleave.commits > 0
    assert verified == 0, out + err
    assert out.startswith("audit log ok:"), out


@contextmanager
def writer_process(backend: str | Path) -> Iterator[Callable[[], None]]:
    """Another process (tests/reviews/audit_writer.py --on-line), its log opened before the
    verify begins (see appender): each call has it append one event, and waits for its commit."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.reviews.audit_writer",
            database(backend),
            "replica-2",
            "0",
            "--on-line",
        ],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    def commit() -> None:
        stdin.write("append\n")
        stdin.flush()
        assert stdout.readline().strip(), "the writer process ended without appending"

    try:
        assert stdout.readline() == "READY\n"
        yield commit
        _, err = process.communicate("", timeout=WRITER_SECONDS)
        assert process.returncode == 0, err[-3000:]
    finally:
        process.kill()  # a failed assertion must not leave it running
        process.communicate()


@pytest.mark.processes
def test_another_process_appending_during_verify_is_not_reported_as_tampering(
    backend: str | Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seeded(backend).close()
    with writer_process(backend) as commit, appends_between_reads(monkeypatch, commit) as interleave:
        log = AuditLog(database(backend))
        try:
            interleave.armed = True
            report = log.verify()
            interleave.armed = False
        finally:
            log.close()
    assert interleave.commits > 0
    assert report.problems == []
    assert report.events == 3
