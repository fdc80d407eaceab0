"""Services own what they open: closing them leaves no session pool behind."""

from __future__ import annotations

import threading
from pathlib import Path

from gatehouse.settings import Settings
from gatehouse.wiring import build_services, open_services
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all


def test_services_that_only_read_the_database_close_their_empty_pool(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "gatehouse.db")
    before = set(threading.enumerate())

    services = build_services(settings, connect_servers=False)
    assert services.mcp.server_names() == []
    assert set(threading.enumerate()) - before  # the pool's event loop thread runs
    services.close()

    left = [t for t in set(threading.enumerate()) - before if t.is_alive()]
    assert left == []


def test_an_operators_request_reports_each_graph_step_as_it_completes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    steps: list[str] = []
    settings = Settings(data_dir=data, db_path=data / "gatehouse.db", servers_path=None, policy_path=None)
    with SdkMcpClient(build_all(data)) as mcp, open_services(settings, mcp=mcp) as services:
        run = services.requests.ask("List the files in the managed project folder.", on_step=steps.append)

    assert run.final_output.status == "ok"
    assert steps == run.path
    assert steps[0] == "preprocess_request" and steps[-1] == "generate_final_response"
    assert "invoke_mcp_capability" in steps
