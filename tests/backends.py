"""The two storage backends the ledger, audit and graph tests run on: a SQLite file, and a
PostgreSQL database (a fresh schema per test in the local server's `test` database).

Without a reachable PostgreSQL the postgres variants skip with the reason, unless
GATEHOUSE_REQUIRE_POSTGRES=1 (set by .ci/run), which makes them fail instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import NoReturn

import pytest

from storage.postgres import scratch_schema, unreachable

REQUIRE_POSTGRES_VARIABLE = "GATEHOUSE_REQUIRE_POSTGRES"
# The local server on these machines: trust authentication, database "test".
POSTGRES_SERVER = os.environ.get("GATEHOUSE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


def missing_postgres(reason: str) -> NoReturn:
    if os.environ.get(REQUIRE_POSTGRES_VARIABLE) == "1":
        pytest.fail(f"{reason} ({REQUIRE_POSTGRES_VARIABLE}=1)", pytrace=False)
    pytest.skip(reason)


@cache
def _unreachable() -> str | None:
    return unreachable(POSTGRES_SERVER)


@contextmanager
def postgres_schema() -> Iterator[str]:
    """A database URL whose connections work in a schema of their own, dropped afterwards."""
    problem = _unreachable()
    if problem is not None:
        missing_postgres(problem)
    with scratch_schema(POSTGRES_SERVER, prefix="gh") as url:
        yield url
