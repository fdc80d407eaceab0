"""`gatehouse tokens issue|list|revoke`: a token for a person of the roster, shown once and
never again, listed with whose it is and its state, ended by its id; nobody off the roster gets
one. In this process (tests/cli_support.py), on a SQLite file, with no server started."""

from __future__ import annotations

import json
from pathlib import Path

from gatehouse.credentials.access_tokens import AccessTokenStore
from tests.cli_support import Ran, run_cli


def gatehouse(data: Path, *args: str) -> Ran:
    return run_cli(*args, env={"GATEHOUSE_DATA": str(data), "GATEHOUSE_DB": None, "GATEHOUSE_POLICY": None})


def test_a_token_is_shown_once_listed_without_itself_and_ends_when_revoked(data_dir: Path) -> None:
    issued = gatehouse(data_dir, "tokens", "issue", "operator", "--expires", "7")
    assert issued.returncode == 0, issued.stderr
    token = next(line for line in issued.stdout.splitlines() if line.startswith("gth_"))
    token_id = issued.stdout.split()[1]
    store = AccessTokenStore(data_dir / "gatehouse.db")
    try:
        found = store.verify(token)
        assert found is not None and found.user == "operator" and found.id == token_id

        listed = gatehouse(data_dir, "tokens", "list", "--json")
        assert listed.returncode == 0, listed.stderr
        [row] = json.loads(listed.stdout)["issued"]
        assert (row["id"], row["user"], row["state"]) == (token_id, "operator", "active")
        assert token not in listed.stdout

        revoked = gatehouse(data_dir, "tokens", "revoke", token_id)
        assert revoked.returncode == 0 and f"token {token_id} of operator revoked" in revoked.stdout
        assert store.verify(token) is None
    finally:
        store.close()


def test_nobody_off_the_roster_gets_a_token_and_an_unknown_id_is_named(data_dir: Path) -> None:
    refused = gatehouse(data_dir, "tokens", "issue", "mallory")
    assert refused.returncode == 2
    assert "'mallory' may not make requests" in refused.stderr and "gth_" not in refused.stdout

    unknown = gatehouse(data_dir, "tokens", "revoke", "tok_nothing")
    assert unknown.returncode == 2 and "tok_nothing" in unknown.stderr
