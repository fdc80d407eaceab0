"""A review is found by the short id people see on screen (the start of its thread id and its
round), or by the start of its id; a short id that fits several reviews is refused, naming
them, and the full id always works."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gatehouse.web.short_ids import short_review
from reviews.errors import AmbiguousReviewIdError, ReviewNotFoundError
from reviews.ledger import ReviewLedger
from tests.reviews.review_support import EMAIL_REQUEST, Clock, email_servers, gatehouse, services_for
from tests.reviews.test_ledger_paging import open_all

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

THREAD_A = "a25b381cafaf420598a8a601b2888464"
THREAD_B = "a25b381c0000420598a8a601b2888464"  # the same first 8 characters as A
THREAD_C = "9f00aa11bb22cc33dd44ee55ff667788"


@pytest.fixture
def ledger(backend: str | Path) -> Iterator[ReviewLedger]:
    store = ReviewLedger(backend, clock=Clock())
    open_all(
        store, [f"{THREAD_A}-r1", f"{THREAD_A}-r2", f"{THREAD_B}-r1", f"{THREAD_C}-r1", f"{THREAD_C}-r12"]
    )
    yield store
    store.close()


def test_the_full_id_is_its_own_answer(ledger: ReviewLedger) -> None:
    assert ledger.resolve_id(f"{THREAD_A}-r2") == f"{THREAD_A}-r2"


def test_the_short_id_on_screen_finds_its_review(ledger: ReviewLedger) -> None:
    assert ledger.resolve_id(short_review(f"{THREAD_C}-r1")) == f"{THREAD_C}-r1"
    assert ledger.resolve_id(short_review(f"{THREAD_C}-r12")) == f"{THREAD_C}-r12"


def test_a_short_id_two_reviews_share_is_refused_naming_both(ledger: ReviewLedger) -> None:
    with pytest.raises(AmbiguousReviewIdError) as raised:
        ledger.resolve_id(short_review(f"{THREAD_A}-r1"))

    assert raised.value.matches == [f"{THREAD_B}-r1", f"{THREAD_A}-r1"]
    assert "give the full id" in str(raised.value)
    # A longer start tells them apart.
    assert ledger.resolve_id(f"{THREAD_A[:12]}-r1") == f"{THREAD_A}-r1"


def test_the_start_of_an_id_alone_finds_a_review_when_only_one_starts_so(ledger: ReviewLedger) -> None:
    assert ledger.resolve_id(THREAD_B[:10]) == f"{THREAD_B}-r1"
    with pytest.raises(AmbiguousReviewIdError):
        ledger.resolve_id(THREAD_C[:8])  # its r1 and its r12


@pytest.mark.parametrize(
    "reference",
    ["9f00aa11-r3", "ffffffff-r1", "a25b3", "a25b38%-r1", "a25b38_1-r1", "", f"{THREAD_A}-r9"],
    ids=[
        "no such round",
        "no such thread",
        "too short",
        "a wildcard",
        "an underscore",
        "empty",
        "full, no such",
    ],
)
def test_what_names_no_review_is_not_found(ledger: ReviewLedger, reference: str) -> None:
    with pytest.raises(ReviewNotFoundError) as raised:
        ledger.resolve_id(reference)

    assert not isinstance(raised.value, AmbiguousReviewIdError)


def test_the_command_line_decides_a_review_by_its_short_id_and_reports_the_full_one(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        paused = services.requests.ask(EMAIL_REQUEST, requester="operator").final_output
        assert paused.review is not None
    full = paused.review.id

    decided = gatehouse(
        data_dir, "reviews", "decide", short_review(full), "--approve", "--reviewer", "reviewer",
        "--json", "--servers", str(servers),
    )  # fmt: skip

    assert decided.returncode == 0, decided.stderr
    assert json.loads(decided.stdout)["review"]["id"] == full


def test_the_command_line_refuses_an_ambiguous_short_id_with_a_clear_line(data_dir: Path) -> None:
    servers = email_servers(data_dir)
    with services_for(data_dir, servers=servers) as services:
        open_all(services.ledger, [f"{THREAD_A}-r1", f"{THREAD_B}-r1"])

    refused = gatehouse(
        data_dir, "reviews", "decide", "a25b381c-r1", "--approve", "--reviewer", "reviewer",
        "--servers", str(servers),
    )  # fmt: skip

    assert refused.returncode == 2
    assert "review id a25b381c-r1 is ambiguous" in refused.stderr
    assert f"{THREAD_A}-r1" in refused.stderr and f"{THREAD_B}-r1" in refused.stderr
