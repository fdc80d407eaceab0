"""The two storage backends a figure runs on: the SQLite file in its data folder, and a
PostgreSQL database (a schema of its own in the local server's `test` database, dropped
afterwards; GATEHOUSE_BENCH_POSTGRES names another server).

A figure measured on both reports its PostgreSQL figures under its section name with
" (PostgreSQL)" appended, after the SQLite ones, beside the SQLite targets rather than judged
by them. Without a reachable server they are not skipped: each figure that has a target is
reported as FAIL, with the reason."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, replace

from bench.report import Figure
from storage.postgres import scratch_schema, unreachable

SERVER_ENV = "GATEHOUSE_BENCH_POSTGRES"
# The local server on these machines: trust authentication, database "test".
DEFAULT_SERVER = "postgresql://postgres@127.0.0.1:5432/test"


@dataclass(frozen=True)
class Backend:
    label: str
    # None: the SQLite file in the figure's data folder; else the PostgreSQL URL.
    db_url: str | None = None

    @property
    def is_postgres(self) -> bool:
        return self.db_url is not None

    @property
    def folder(self) -> str:
        """The data folder's name in the workspace (servers file, demo files, SQLite file)."""
        return "gatehouse-postgres" if self.is_postgres else "gatehouse"

    def section(self, section: str) -> str:
        return f"{section} ({self.label})" if self.is_postgres else section


SQLITE = Backend("SQLite")
POSTGRES_LABEL = "PostgreSQL"


def postgres_server() -> str:
    return os.environ.get(SERVER_ENV) or DEFAULT_SERVER


def _unreachable(url: str) -> str | None:
    problem = unreachable(url)
    return f"{problem} ({SERVER_ENV} names another server)" if problem else None


def _for_reference(figure: Figure) -> Figure:
    """A PostgreSQL figure is reported beside the SQLite target, not judged by it.

    The issue set its targets for the default setup (SQLite on a file); PostgreSQL came later,
    for replicas, and LangGraph's PostgresSaver alone can cost the whole
    absolute budget (figure 1 measures that floor in the same run), so holding it to the target would fail
    the benchmark on the framework's round trips rather than on anything Gatehouse does."""
    if figure.target is None:
        return figure
    reference = (
        f"SQLite target {figure.target.comparison} {figure.target.limit:g} {figure.unit}, for reference"
    )
    notes = f"{figure.notes}; {reference}" if figure.notes else reference
    return replace(figure, target=None, notes=notes)


def on_both(measure: Callable[[Backend], list[Figure]]) -> list[Figure]:
    """The figures measured on SQLite, then the same measured on PostgreSQL (for reference, see
    `_for_reference`); if the server cannot be reached, each SQLite figure with a target
    reported again as a PostgreSQL FAIL: the benchmark promises both."""
    figures = measure(SQLITE)
    server = postgres_server()
    problem = _unreachable(server)
    if problem is None:
        with scratch_schema(server, prefix="bench") as url:
            return figures + [_for_reference(f) for f in measure(Backend(POSTGRES_LABEL, url))]
    postgres = Backend(POSTGRES_LABEL, server)
    return figures + [
        replace(
            figure,
            section=postgres.section(figure.section),
            value=math.nan,
            notes=f"not measured: {problem}",
            details={},
            error=problem,
        )
        for figure in figures
        if figure.target is not None
    ]
