"""Every review test runs on both storage backends: the SQLite file and PostgreSQL. A test that
works on the ledger alone takes ``ledger``, on the test's backend, with ``clock`` (ticking)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from reviews.ledger import ReviewLedger
from tests.reviews.review_support import TEST_DB_URL, Clock


@pytest.fixture(autouse=True)
def _storage_backend(backend: str | Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if isinstance(backend, str):
        monkeypatch.setenv(TEST_DB_URL, backend)
    else:
        monkeypatch.delenv(TEST_DB_URL, raising=False)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def ledger(backend: str | Path, clock: Clock) -> Iterator[ReviewLedger]:
    store = ReviewLedger(backend, clock=clock)
    yield store
    store.close()


@pytest.fixture
def calls() -> Iterator[ThreadPoolExecutor]:
    """Threads for calls that wait (for a reviewer, say) while the test goes on."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        yield pool
