"""servers/names.py is the one list of bundled servers; the data files that keep a copy of it
for the people who read them agree with it."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from policies.loader import DEFAULT_POLICY
from servers.catalog import BUNDLED_CONFIG, BUNDLED_SERVERS
from servers.names import BUNDLED

SERVERS_FOLDER = Path(__file__).resolve().parents[2] / "servers"


def test_every_name_is_a_server_module_with_a_builder_and_the_catalog_builds_each() -> None:
    assert list(BUNDLED_SERVERS) == list(BUNDLED)
    for name in BUNDLED:
        assert (SERVERS_FOLDER / f"{name}.py").is_file(), name


def test_the_shipped_servers_file_has_an_entry_for_each_bundled_server_in_the_same_order() -> None:
    entries = json.loads(BUNDLED_CONFIG.read_text(encoding="utf-8"))["mcpServers"]
    assert list(entries) == list(BUNDLED)


def test_the_shipped_policy_trusts_exactly_the_bundled_servers() -> None:
    policy = tomllib.loads(DEFAULT_POLICY.read_text(encoding="utf-8"))
    assert policy["servers"]["trusted"] == list(BUNDLED)
