"""A thread is found by the short id people see on screen (the first characters of its id), or
by one of its reviews' ids, on every command that takes a thread: `trace`, `ask --thread` and
`reviews withdraw`. A start that several threads share is refused naming them; one that names
none says so; the full id always works."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gatehouse.web.short_ids import short_review, short_thread
from reviews.errors import AmbiguousThreadIdError, ThreadNotFoundError
from tests.reviews.review_support import EMAIL_REQUEST, email_servers, gatehouse, services_for

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

THREAD_A = "a25b381cafaf420598a8a601b2888464"
THREAD_B = "a25b381c0000420598a8a601b2888464"  # the same first 8 characters as A
THREAD_C = "9f00aa11bb22cc33dd44ee55ff667788"  # waits for a reviewer
GENERAL = "What is the Model Context Protocol?"


@pytest.fixture
def threads(data_dir: Path, bundled_in_process: None) -> Iterator[Path]:
    """Three threads on the test's database: A and B share their short id; C waits for a review.
    (After bundled_in_process, which a test's own usefixtures would otherwise come before.)"""
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        for thread in (THREAD_A, THREAD_B):
            services.requests.ask(GENERAL, thread_id=thread, requester="operator")
        paused = services.requests.ask(EMAIL_REQUEST, thread_id=THREAD_C, requester="operator")
        assert paused.final_output.status == "needs_review"
    yield servers


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


@pytest.mark.usefixtures("threads")
def test_trace_takes_the_short_id_on_screen_and_a_reviews_id(data_dir: Path) -> None:
    by_short = gatehouse(data_dir, "trace", "--json", short_thread(THREAD_C))
    by_review = gatehouse(data_dir, "trace", "--json", short_review(f"{THREAD_C}-r1"))
    by_start = gatehouse(data_dir, "trace", THREAD_A[:12])

    assert by_short.returncode == 0, by_short.stderr
    assert json.loads(by_short.stdout)["thread_id"] == THREAD_C
    assert json.loads(by_short.stdout)["steps"]
    assert by_review.returncode == 0, by_review.stderr
    assert json.loads(by_review.stdout)["thread_id"] == THREAD_C
    assert by_start.returncode == 0, by_start.stderr
    assert by_start.stdout.startswith(f"thread {THREAD_A}\n")


@pytest.mark.usefixtures("threads")
def test_trace_refuses_a_short_id_two_threads_share_naming_both(data_dir: Path) -> None:
    shared = short_thread(THREAD_A)

    refused = gatehouse(data_dir, "trace", shared)

    assert refused.returncode == 2
    assert refused.stdout == ""
    line = one_line(refused.stderr)
    assert f"thread id {shared} is ambiguous" in line
    assert THREAD_A in line and THREAD_B in line
    assert GENERAL[:20] in line  # each candidate with its title, to tell them apart
    assert "give more of the id" in line


@pytest.mark.parametrize(
    ("reference", "says"),
    [
        ("ffffffff", "no thread ffffffff: no thread id starts with it"),
        ("a25b", "no thread a25b: give at least 6 characters of its id"),
        ("a25b38%", "no thread a25b38%"),
        ("ffffffff-r1", "no thread ffffffff-r1: no review ffffffff-r1"),
    ],
    ids=["unknown", "too short", "a wildcard", "no such review"],
)
@pytest.mark.usefixtures("threads")
def test_trace_says_when_an_id_names_no_thread(data_dir: Path, reference: str, says: str) -> None:
    refused = gatehouse(data_dir, "trace", reference)

    assert refused.returncode == 2
    assert says in one_line(refused.stderr)


def test_ask_continues_the_thread_a_short_id_names_and_refuses_an_ambiguous_one(
    data_dir: Path, threads: Path
) -> None:
    continued = gatehouse(
        data_dir, "ask", "--json", "--servers", str(threads), "--thread", THREAD_A[:12], GENERAL
    )
    ambiguous = gatehouse(
        data_dir, "ask", "--servers", str(threads), "--thread", short_thread(THREAD_A), GENERAL
    )
    unknown = gatehouse(data_dir, "ask", "--servers", str(threads), "--thread", "ffffffff", GENERAL)

    assert continued.returncode == 0, continued.stderr
    assert json.loads(continued.stdout)["thread_id"] == THREAD_A
    assert ambiguous.returncode == 2
    assert one_line(ambiguous.stderr).startswith(
        f"gatehouse: --thread: thread id {short_thread(THREAD_A)} is ambiguous"
    )
    assert unknown.returncode == 2
    assert "--thread: no thread ffffffff" in one_line(unknown.stderr)
    # Nothing was filed under a thread nobody named.
    with services_for(data_dir) as services:
        assert {c.thread_id for c in services.conversations.recent()} == {THREAD_A, THREAD_B, THREAD_C}


@pytest.mark.usefixtures("threads")
def test_withdraw_takes_the_short_thread_id_on_screen(data_dir: Path) -> None:
    withdrawn = gatehouse(data_dir, "reviews", "withdraw", "--json", short_thread(THREAD_C))

    assert withdrawn.returncode == 0, withdrawn.stderr
    assert json.loads(withdrawn.stdout)["status"] == "cancelled"
    assert json.loads(withdrawn.stdout)["thread_id"] == THREAD_C


@pytest.mark.usefixtures("threads")
def test_the_services_resolve_every_form_of_a_threads_id(data_dir: Path) -> None:
    with services_for(data_dir) as services:
        resolve = services.requests.resolve_thread
        assert resolve(THREAD_C) == THREAD_C
        assert resolve(f" {short_thread(THREAD_C)} ") == THREAD_C
        assert resolve(f"{THREAD_C}-r1") == THREAD_C
        with pytest.raises(AmbiguousThreadIdError) as raised:
            resolve(short_thread(THREAD_B))
        assert raised.value.matches == [THREAD_B, THREAD_A]
        with pytest.raises(ThreadNotFoundError, match="no thread id given"):
            resolve("  ")
