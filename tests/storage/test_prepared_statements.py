"""PostgreSQL connections prepare the statements they run often, unless
GATEHOUSE_DB_PREPARED_STATEMENTS=off says a transaction-pooling proxy in between cannot keep them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet

from gatehouse.credentials.app_sign_in import SignInAttempts
from gatehouse.credentials.server_credentials import EncryptedCredentialStore, credential_key
from gatehouse.errors import ConfigurationError
from gatehouse.read_only import open_audit_log, open_ledger_for_reading
from gatehouse.settings import Settings
from gatehouse.wiring import open_pins_for_reading, open_services, server_sign_in
from mcp_host.config import ServersConfig, parse_servers_config
from mcp_host.sdk_client import SdkMcpClient
from policies.pins import DatabasePinStore
from servers.catalog import build_all
from storage import Database
from storage.postgres import PostgresDatabase
from tests.backends import postgres_schema

# Each test opens PostgreSQL itself: not in `make quick`.
pytestmark = pytest.mark.postgres

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
                    services.requests.ask("List the files in the managed project folder.").final_output.status
                    == "ok"
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


def _prepares(database: Database) -> bool:
    """Whether the database's (one) connection prepares a statement it runs often."""
    for _ in range(PREPARE_THRESHOLD + 1):
        with database.read() as conn:
            conn.execute("SELECT ? + 1 AS n", (1,)).fetchone()
    with database.read() as conn:
        return _prepared_on(conn) > 0


def _remote_servers(settings: Settings) -> ServersConfig:
    # A remote server is what makes a process keep sign-ins; it is never connected to here.
    return parse_servers_config(
        {"mcpServers": {"notes": {"url": "http://127.0.0.1:9/mcp"}}},
        source=str(settings.data_dir / "servers.json"),
    )


def test_every_store_opened_from_the_settings_follows_them_not_only_the_services(tmp_path: Path) -> None:
    """The read-only commands' ledger and audit log, `policy explain`'s pins, remote servers'
    sign-ins and the Servers page's sign-in attempts each open the database from the settings:
    behind a transaction-pooling proxy one of them preparing statements fails as surely as
    the services would."""
    environ = {
        "GATEHOUSE_DATA": str(tmp_path),
        "GATEHOUSE_DB_POOL_SIZE": "1",
        "GATEHOUSE_DB_PREPARED_STATEMENTS": "off",
        "GATEHOUSE_SECRET_KEY": Fernet.generate_key().decode(),
    }
    with postgres_schema() as url:
        settings = Settings.resolve(db=url, environ=environ)
        with open_services(settings, connect_servers=False):
            pass  # creates the tables the read-only openers require
        with open_ledger_for_reading(settings) as ledger:
            assert not _prepares(ledger.database)
        with open_audit_log(settings) as audit:
            assert not _prepares(audit.database)
        with open_pins_for_reading(settings) as pins:
            assert isinstance(pins, DatabasePinStore)
            assert not _prepares(pins.database)
        sign_in = server_sign_in(settings, _remote_servers(settings), None)
        assert sign_in is not None
        store = sign_in.store
        assert isinstance(store, EncryptedCredentialStore)
        try:
            assert not _prepares(store.database)
        finally:
            store.close()
        attempts = SignInAttempts(settings.open_database(), credential_key(settings.secret_key))
        try:
            assert not _prepares(attempts.database)
        finally:
            attempts.close()
