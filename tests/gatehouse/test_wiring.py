"""Services own what they open: closing them leaves no session pool behind."""

from __future__ import annotations

import threading
from pathlib import Path

from gatehouse.settings import Settings
from gatehouse.wiring import build_services


def test_services_that_only_read_the_database_close_their_empty_pool(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "gatehouse.db")
    before = set(threading.enumerate())

    services = build_services(settings, connect_servers=False)
    assert services.mcp.server_names() == []
    assert set(threading.enumerate()) - before  # the pool's event loop thread runs
    services.close()

    left = [t for t in set(threading.enumerate()) - before if t.is_alive()]
    assert left == []
