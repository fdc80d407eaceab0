"""An audit log of several chains (reviews/audit_append.py): a writer that finds a chain held by
another open transaction takes another, never waiting, and verify, anchors and tampering
detection hold for every chain.

Several chains arise only on PostgreSQL, where writers' transactions run at once; SQLite's write
transaction holds the whole database, so its log stays one chain (tests/reviews/test_audit_trail.py)."""

from __future__ import annotations

import secrets
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest

from reviews.audit import GENESIS, AuditEntry, AuditEvent, AuditHeadMissingError, AuditLog
from reviews.audit_anchor import anchor_problems, make_anchor
from reviews.clock import iso, utc_now

ROOT = Path(__file__).resolve().parents[2]
WRITER_SECONDS = 120
ONE_CHAIN_ON_SQLITE = "SQLite's write transaction holds the whole database: its log is one chain"


@pytest.fixture
def url(backend: str | Path) -> str:
    if isinstance(backend, Path):
        pytest.skip(ONE_CHAIN_ON_SQLITE)
    return backend


def writer(database: str | Path, name: str, count: int, *, hold: bool = False) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.reviews.audit_writer", str(database), name, str(count)]
        + (["--hold"] if hold else []),
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def places(process: subprocess.Popen[str], stdin: str = "") -> list[tuple[int, int, int]]:
    """What the writer appended, (seq, chain, link) each, once it has finished."""
    out, err = process.communicate(stdin, timeout=WRITER_SECONDS)
    assert process.returncode == 0, err[-3000:]
    return [
        (int(seq), int(chain), int(link))
        for seq, chain, link in (line.split() for line in out.splitlines() if not line.startswith("HELD"))
    ]


@pytest.mark.processes
def test_two_processes_appending_at_once_leave_a_log_that_verifies(backend: str | Path) -> None:
    log = AuditLog(backend)
    try:
        writers = [writer(backend, name, 30) for name in ("ann", "bob")]
        appended = [place for process in writers for place in places(process)]

        assert sorted(seq for seq, _, _ in appended) == [e.seq for e in log.events()]
        assert len(appended) == 60
        assert log.verify().ok
    finally:
        log.close()


@pytest.mark.processes
def test_a_process_that_finds_the_chain_held_by_another_takes_the_next_without_waiting(url: str) -> None:
    log = AuditLog(url)
    assert log.append("first", {}).chain == 1
    holder = writer(url, "ann", 2, hold=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "HELD 1\n"  # its open transaction holds chain 1

        # Would wait for ann's commit, for ever, if it queued on chain 1's head.
        bobs = places(writer(url, "bob", 3))
        anns = places(holder, "go on\n")

        assert [(chain, link) for _, chain, link in bobs] == [(2, 1), (2, 2), (2, 3)]
        assert [(chain, link) for _, chain, link in anns] == [(1, 2), (1, 3), (1, 4)]
        assert {e.actor: e.chain for e in log.events() if e.actor} == {"ann": 1, "bob": 2}
        assert log.verify().ok
    finally:
        holder.kill()  # a failed assertion must not leave its transaction open
        holder.communicate()
        log.close()


@contextmanager
def held_chains(url: str, count: int) -> Iterator[list[AuditLog]]:
    """``count`` logs (each its own pool, as replicas have), each appending one event inside a
    transaction held open until all have, one after another: each takes a chain of its own.

    The chains are started first, by hand: a transaction that starts a chain holds its number
    until it commits, so one starting the next chain meanwhile would wait for that commit,
    which these transactions, held open on purpose, never reach."""
    logs = [AuditLog(url) for _ in range(count)]
    _sql(
        logs[0],
        *(
            f"INSERT INTO audit_chains (chain, link, hash) VALUES ({n}, 0, '{GENESIS}')"
            for n in range(1, count + 1)
        ),
    )
    appended = [threading.Event() for _ in range(count)]

    def hold(number: int) -> AuditEvent:
        if number > 0:
            assert appended[number - 1].wait(timeout=WRITER_SECONDS)
        with logs[number].database.write():
            event = logs[number].append("held", {"n": number}, actor=f"writer-{number}")
            appended[number].set()
            assert appended[-1].wait(timeout=WRITER_SECONDS)
            return event

    try:
        with ThreadPoolExecutor(count) as pool:
            events = list(pool.map(hold, range(count)))
        assert sorted(e.chain or 0 for e in events) == list(range(1, count + 1))
        yield logs
    finally:
        for log in logs:
            log.close()


def two_chains(url: str, *, rows: int = 4) -> AuditLog:
    """A log of two chains of ``rows`` rows each; the returned log appends one at a time."""
    with held_chains(url, 2):
        pass
    for n in range(rows - 1):
        _append_beside_chain_1(url, n)
    return AuditLog(url)


def _append_beside_chain_1(url: str, n: int) -> None:
    """One row on each chain: one transaction holds chain 1 while another appends."""
    holder, other = AuditLog(url), AuditLog(url)
    try:
        with holder.database.write():
            holder.append("hold", {"n": n})
            with ThreadPoolExecutor(1) as pool:
                event = pool.submit(other.append, "event", {"n": n}).result(timeout=WRITER_SECONDS)
            assert event.chain == 2
    finally:
        holder.close()
        other.close()


def _sql(log: AuditLog, *statements: str) -> None:
    with log.database.write() as conn:
        for statement in statements:
            conn.execute(statement)


def _last_link(log: AuditLog, chain: int) -> AuditEvent:
    return max((e for e in log.events() if e.chain == chain), key=lambda e: e.link or 0)


Tamper = Callable[[AuditLog, int], str]


def _edit(log: AuditLog, chain: int) -> str:
    row = next(e for e in log.events() if e.chain == chain and e.link == 2)
    _sql(log, f"""UPDATE audit_log SET data = '{{"n": 99}}' WHERE seq = {row.seq}""")
    return f"row {row.seq} was edited"


def _delete_middle(log: AuditLog, chain: int) -> str:
    row = next(e for e in log.events() if e.chain == chain and e.link == 2)
    _sql(log, f"DELETE FROM audit_log WHERE seq = {row.seq}")
    return f"chain {chain}: link 2 deleted"


def _delete_newest(log: AuditLog, chain: int) -> str:
    row = _last_link(log, chain)
    _sql(log, f"DELETE FROM audit_log WHERE seq = {row.seq}")
    return f"chain {chain}: link {row.link} was deleted after row"


def _move_to_the_other_chain(log: AuditLog, chain: int) -> str:
    # The row keeps its hash and its prev_hash, but its chain is part of what its hash covers.
    row = _last_link(log, chain)
    other = _last_link(log, 3 - chain)
    _sql(
        log,
        f"UPDATE audit_log SET chain = {3 - chain}, link = {(other.link or 0) + 1} WHERE seq = {row.seq}",
    )
    return f"row {row.seq} was edited"


@pytest.mark.parametrize("chain", [1, 2])
@pytest.mark.parametrize("tamper", [_edit, _delete_middle, _delete_newest, _move_to_the_other_chain])
def test_tampering_with_either_chain_is_named_by_verify(url: str, chain: int, tamper: Tamper) -> None:
    log = two_chains(url)
    try:
        assert log.verify().ok

        named = tamper(log, chain)

        report = log.verify()
        assert not report.ok
        assert any(named in problem for problem in report.problems), report.problems
    finally:
        log.close()


def test_an_anchor_signs_every_chains_last_row_and_catches_one_chain_cut_with_its_head(url: str) -> None:
    key = secrets.token_bytes(32)
    log = two_chains(url)
    try:
        anchor = make_anchor(log.check_chain(), at=iso(utc_now()), key=key)
        assert [(end.chain, end.link) for end in anchor.ends] == [(1, 4), (2, 4)]
        assert [end.hash for end in anchor.ends] == [_last_link(log, c).hash for c in (1, 2)]
        log.append("later", {})  # the log grows past its anchor
        assert anchor_problems(log.check_chain(), [anchor]) == []

        # Chain 2 cut back to its link 2, its head rewound to match: whole inside the database.
        kept = next(e for e in log.events() if e.chain == 2 and e.link == 2)
        _sql(
            log,
            "DELETE FROM audit_log WHERE chain = 2 AND link > 2",
            f"UPDATE audit_chains SET link = 2, hash = '{kept.hash}' WHERE chain = 2",
        )
        assert log.verify().ok

        problems = anchor_problems(log.check_chain(), [anchor])
        assert problems == [
            f"chain 2 ends at row {kept.seq}, but the anchor signed at {anchor.at} holds chain 2 up to row"
            f" {anchor.ends[1].seq}: its last 2 rows were cut (truncated below the anchor)"
        ]
    finally:
        log.close()


def test_the_newest_chain_deleted_whole_is_caught_by_an_anchor_and_a_chain_below_it_by_verify(
    url: str,
) -> None:
    key = secrets.token_bytes(32)
    with held_chains(url, 3) as logs:
        log = logs[0]
        anchor = make_anchor(log.check_chain(), at=iso(utc_now()), key=key)

        # Chain 3, the newest, deleted with its head: the log left behind is whole.
        _sql(log, "DELETE FROM audit_log WHERE chain = 3", "DELETE FROM audit_chains WHERE chain = 3")
        assert log.verify().ok
        assert anchor_problems(log.check_chain(), [anchor]) == [
            f"chain 3 is gone (every row of it deleted), but the anchor signed at {anchor.at} holds chain 3"
            f" up to row {anchor.ends[2].seq}"
        ]

        # Chain 1 deleted too: chains are numbered without gaps, so verify alone names it.
        _sql(log, "DELETE FROM audit_log WHERE chain = 1", "DELETE FROM audit_chains WHERE chain = 1")
        assert "chain 1: deleted whole" in " ".join(log.verify().problems)


def test_a_chains_head_deleted_is_named_and_no_chain_is_started_over_its_rows(url: str) -> None:
    log = two_chains(url)
    try:
        _sql(log, "DELETE FROM audit_chains WHERE chain = 1")
        assert "chain 1's head record is missing (table audit_chains)" in log.verify().problems

        # Appends go on in chain 2 (free); only where a chain must be started is chain 1's
        # missing head seen, and the append refused rather than numbered over it.
        assert log.append("next", {}).chain == 2
        holder = AuditLog(url)
        try:
            with holder.database.write():
                holder.append("hold", {})
                with (
                    ThreadPoolExecutor(1) as pool,
                    pytest.raises(AuditHeadMissingError, match="chain 1 \\(table audit_chains\\)"),
                ):
                    pool.submit(log.append, "refused", {}).result(timeout=WRITER_SECONDS)
        finally:
            holder.close()
    finally:
        log.close()


def test_a_transaction_keeps_the_chain_it_took_for_all_its_appends(url: str) -> None:
    log, other = AuditLog(url), AuditLog(url)
    try:
        log.append("first", {})  # chain 1 exists
        first_taken = threading.Event()
        release = threading.Event()

        def hold_chain_1() -> None:
            with other.database.write():
                other.append("hold", {})
                first_taken.set()
                release.wait(timeout=WRITER_SECONDS)

        with ThreadPoolExecutor(1) as pool:
            holding = pool.submit(hold_chain_1)
            assert first_taken.wait(timeout=WRITER_SECONDS)
            with log.database.write():
                before = log.append("mine", {"n": 1})
                release.set()
                holding.result(timeout=WRITER_SECONDS)  # chain 1 is free again
                after = log.append_all([AuditEntry("mine", {"n": n}) for n in (2, 3)])

        assert before.chain == 2
        assert [(e.chain, e.link) for e in after] == [(2, 2), (2, 3)]
        assert log.verify().ok
    finally:
        log.close()
        other.close()


def test_an_empty_chain_head_of_a_fresh_log_is_the_genesis(url: str) -> None:
    log = AuditLog(url)
    try:
        first = log.append("first", {})
        assert (first.chain, first.link, first.prev_hash) == (1, 1, GENESIS)
    finally:
        log.close()
