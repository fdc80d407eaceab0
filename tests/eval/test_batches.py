"""Held-out batches of cases (eval/batches/): the 2026-11 batch's shape and spread, the servers it
came with, and the runner scoring a batch whose server the host cannot use instead of stopping."""

from __future__ import annotations

import json
import os
import socket
import threading
from collections import Counter
from pathlib import Path
from typing import Any, cast

import pytest

from eval.asking import offered
from eval.cases import load_cases, schema_problems
from eval.workspace import (
    BATCH_SERVERS,
    PEER_SERVERS,
    REDIS_DB,
    REDIS_HOST,
    REDIS_KEYS,
    REDIS_PORT,
    EvalWorkspace,
    PeersMissingError,
    _redis_command,
    _seed_redis,
    build_workspace,
)
from gatehouse.settings import Settings
from gatehouse.wiring import server_pool
from mcp_host.client import McpClient
from mcp_host.errors import ErrorInfo
from mcp_host.manifest import Manifest, ServerManifest
from tests.interop.peers import missing_peer

BATCH_FILE = Path(__file__).resolve().parents[2] / "eval" / "batches" / "2026-11-new-servers.json"
MIN_PER_NEW_SERVER = 25


def _batch() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(BATCH_FILE.read_text(encoding="utf-8"))
    return data


def test_the_2026_11_batch_is_well_formed_and_names_the_servers_it_came_with() -> None:
    data = _batch()
    assert schema_problems(data) == []
    header = data["batch"]
    assert header["id"] == BATCH_FILE.stem
    assert set(header["servers"]) == set(BATCH_SERVERS)
    # Each server pinned as package@version, the version the peers install.
    assert all("@" in spec.lstrip("@") for spec in header["servers"].values()), header["servers"]


def test_every_new_server_has_enough_requests_and_every_case_expects_its_own_server() -> None:
    cases = load_cases(BATCH_FILE)
    groups = Counter(case.group for case in cases)
    for server in BATCH_SERVERS:
        assert groups[server] >= MIN_PER_NEW_SERVER, groups
    for case in cases:
        if case.group in (*BATCH_SERVERS, *PEER_SERVERS):
            mixed = [key for key in case.capabilities if key.split("__")[0] not in (case.group, "everything")]
            assert not mixed, (case.id, mixed)


def test_the_batch_sets_the_traps_it_is_meant_to_set() -> None:
    cases = load_cases(BATCH_FILE)
    nothing_serves = [c for c in cases if not c.capabilities]
    writes_nothing_serves = [c for c in nothing_serves if not c.read_only]
    assert {c.group for c in writes_nothing_serves} >= set(BATCH_SERVERS) - {"calculator"}
    arithmetic = [c for c in cases if "calculator__calculate" in c.capabilities]
    assert len(arithmetic) >= 20
    # A write is never expected to just run.
    assert all("ok" not in c.statuses for c in cases if not c.read_only and c.capabilities)


def test_the_before_tuning_figures_are_kept_per_group() -> None:
    before = _batch()["batch"]["before_tuning"]
    cases = load_cases(BATCH_FILE)
    groups = Counter(case.group for case in cases)
    per_group = {name: figure for name, figure in before.items() if name != "overall"}
    assert {name: figure["of"] for name, figure in per_group.items()} == dict(groups)
    assert before["overall"]["of"] == len(cases)
    assert before["overall"]["right"] == sum(figure["right"] for figure in per_group.values())


class _PoolWithABrokenServer:
    """A pool whose discovery lists one working server and one the host could not use."""

    def discover(self) -> Manifest:
        return Manifest(
            servers=[
                ServerManifest(name="working", ok=True),
                ServerManifest(
                    name="broken", ok=False, error=ErrorInfo(kind="protocol", message="Method not found")
                ),
            ]
        )


def test_a_server_the_host_cannot_use_is_a_warning_and_its_cases_are_still_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEHOUSE_DATA", str(tmp_path))
    servers = tmp_path / "servers.json"
    servers.write_text('{"mcpServers": {}}', encoding="utf-8")
    workspace = EvalWorkspace(
        root=tmp_path,
        data_dir=tmp_path,
        servers_file=servers,
        db_path=tmp_path / "gatehouse.db",
        files_root=tmp_path,
        repository=tmp_path,
    )

    settings = Settings.resolve(db=str(workspace.db_path), servers=str(servers))
    facts, problems = offered(settings, cast(McpClient, _PoolWithABrokenServer()))

    # The runner prints each problem as a warning and goes on asking every case (eval/asking.py).
    assert facts == {}
    assert problems == ["server broken: protocol: Method not found"]


# -- the batch's servers, started for real ---------------------------------------------------


@pytest.mark.processes
def test_the_batch_servers_start_on_their_seeded_data_and_list_their_tools(tmp_path: Path) -> None:
    try:
        workspace = build_workspace(tmp_path, batch_servers=True)
    except PeersMissingError as exc:
        missing_peer(str(exc))
    servers = json.loads(workspace.servers_file.read_text(encoding="utf-8"))["mcpServers"]
    assert set(BATCH_SERVERS) <= set(servers)
    assert servers["excel"]["roots"] == [str(tmp_path / "workbooks")]
    assert (tmp_path / "workbooks" / "sales.xlsx").is_file()
    saved = os.environ.get("GATEHOUSE_DATA")
    os.environ["GATEHOUSE_DATA"] = str(workspace.data_dir)
    try:
        settings = Settings.resolve(db=str(workspace.db_path), servers=str(workspace.servers_file))
        with server_pool(settings) as pool:
            manifest = pool.discover()
    finally:
        if saved is None:
            os.environ.pop("GATEHOUSE_DATA", None)
        else:
            os.environ["GATEHOUSE_DATA"] = saved
    tools = {c.key for c in manifest.capabilities() if c.type == "tool"}
    assert {
        "calculator__calculate",
        "redis__get",
        "redis__set",
        "excel__read_range",
        "excel__write_range",
    } <= tools
    # mcp-server-sqlite declares resources and answers resources/templates/list with
    # "Method not found": until the host takes that as optional (issue 30, item 1) the server is
    # reported broken; after, it lists its six tools.
    problems = [p for p in manifest.problems() if p.startswith("server sqlite:")]
    assert problems == [] or all("-32601" in p for p in problems), problems
    if not problems:
        assert {"sqlite__read_query", "sqlite__write_query", "sqlite__list_tables"} <= tools


@pytest.mark.peers
def test_a_server_on_the_benchmarks_redis_never_sees_it_half_seeded_by_another_run() -> None:
    # `python -m eval --jobs 2` seeds the database once per process, while the other process's
    # server-redis may be reading it.
    try:
        _seed_redis()
    except PeersMissingError as exc:
        missing_peer(str(exc))
    sizes: list[int] = []
    seeding = threading.Event()
    seeding.set()

    def watch() -> None:
        connection = socket.create_connection((REDIS_HOST, REDIS_PORT), timeout=5)
        with connection, connection.makefile("rb") as replies:
            _redis_command(connection, replies, "SELECT", str(REDIS_DB))
            while seeding.is_set() or not sizes:
                sizes.append(int(_redis_command(connection, replies, "DBSIZE")[1:]))

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for _ in range(100):
            _seed_redis()
    finally:
        seeding.clear()
        watcher.join()

    assert set(sizes) == {len(REDIS_KEYS)}, sorted(set(sizes))


@pytest.mark.processes
def test_without_the_batch_servers_the_workspace_names_only_the_eleven(tmp_path: Path) -> None:
    try:
        workspace = build_workspace(tmp_path)
    except PeersMissingError as exc:
        missing_peer(str(exc))
    servers = json.loads(workspace.servers_file.read_text(encoding="utf-8"))["mcpServers"]
    assert not set(BATCH_SERVERS) & set(servers)
    assert set(PEER_SERVERS) <= set(servers)
