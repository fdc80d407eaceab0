"""Every review test runs on both storage backends: the SQLite file and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reviews.review_support import TEST_DB_URL


@pytest.fixture(autouse=True)
def _storage_backend(backend: str | Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if isinstance(backend, str):
        monkeypatch.setenv(TEST_DB_URL, backend)
    else:
        monkeypatch.delenv(TEST_DB_URL, raising=False)
