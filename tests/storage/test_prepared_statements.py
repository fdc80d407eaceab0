"""PostgreSQL connections prepare the statements they run often, unless
GATEHOUSE_DB_PREPARED_STATEMENTS=off says a transaction-pooling proxy in between cannot keep them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gatehouse.errors import ConfigurationError
from gatehouse.operator_requests import ask
from gatehouse.settings import Settings
from gatehouse.wiring import open_services
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from storage.postgres import PostgresDatabase
from tests.backends import postgres_schema

# psycopg prepares a statement once a connection has run it this many times.
PREPARE_THRESHOLD = 5


def _prepared_on(conn: Any) -> int:
    row = conn.execute("SELECT COUNT(*) AS n FROM pg_prepared_statements").fetchone()
    return int(row["n"])


@pytest.mark.parametrize(("prepared", "expect_some"), [(True, True), (False, False)])
def test_the_stores_connections_prepare_a_statement_run_often_only_when_allowed(
    prepared: bool, expect_some: bool
) -> None:
    with postgres_schema() as url:
        database = PostgresDatabase(url, pool_size=1, prepared_statements=prepared)
        try:
            for _ in range(PREPARE_THRESHOLD + 1):
                with database.read() as conn:
                    conn.execute("SELECT ? + 1 AS n", (1,)).fetchone()
            with database.read() as conn:
                assert (_prepared_on(conn) > 0) is expect_some
        finally:
            database.close()


@pytest.mark.parametrize(("variable", "expect_some"), [(None, True), ("off", False)])
def test_the_checkpointer_follows_the_setting_through_the_services(
    tmp_path: Path, variable: str | None, expect_some: bool
) -> None:
    environ = {"GATEHOUSE_DATA": str(tmp_path), "GATEHOUSE_DB_POOL_SIZE": "1"}
    if variable is not None:
        environ["GATEHOUSE_DB_PREPARED_STATEMENTS"] = variable
    with postgres_schema() as url:
        settings = Settings.resolve(db=url, environ=environ)
        with SdkMcpClient(build_all(tmp_path / "demo")) as mcp, open_services(settings, mcp=mcp) as services:
            for _ in range(PREPARE_THRESHOLD + 1):
                assert (
                    ask(services, "List the files in the managed project folder.").final_output.status == "ok"
                )
            with services.checkpointer.conn.connection() as conn:  # type: ignore[attr-defined]
                assert (_prepared_on(conn) > 0) is expect_some


@pytest.mark.parametrize(
    ("value", "expected"), [("on", True), ("OFF", False), (" false ", False), ("1", True), ("", True)]
)
def test_the_setting_reads_on_and_off(value: str, expected: bool) -> None:
    settings = Settings.resolve(environ={"GATEHOUSE_DB_PREPARED_STATEMENTS": value})
    assert settings.db_prepared_statements is expected


def test_a_setting_that_is_neither_on_nor_off_is_refused_by_name() -> None:
    with pytest.raises(
        ConfigurationError, match="GATEHOUSE_DB_PREPARED_STATEMENTS: expected on or off, got 'sometimes'"
    ):
        Settings.resolve(environ={"GATEHOUSE_DB_PREPARED_STATEMENTS": "sometimes"})
