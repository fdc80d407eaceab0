"""A throwaway Gatehouse for one figure: a data folder, a servers file naming bundled demo
servers run over stdio with the commands `make run` uses, a SQLite file or a PostgreSQL URL (see
bench/backends.py), and the services over them."""

from __future__ import annotations

import copy
import json
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.backends import Backend
from gatehouse.settings import Settings
from gatehouse.wiring import Services, bundled_servers_config, open_services
from graph.runner import start_request
from graph.state import ReviewPayload
from mcp_host.config import StdioServer

READ_REQUEST = "List the files in the managed project folder."
SEND_REQUEST = "Send an email to bob@example.com saying hi"


def stdio_entry(module: str, data: Path) -> dict[str, object]:
    return {"command": sys.executable, "args": ["-m", module, "--data-dir", str(data / "demo")]}


def email_for_review(services: Services) -> ReviewPayload:
    """Ask, as the operator, for the e-mail the graph pauses for (SEND_REQUEST) and record the
    run, as the chat does; the pending review's payload."""
    outcome = start_request(services.graph, services.context, SEND_REQUEST, requester="operator")
    services.reviews.record_run(outcome, actor="operator")
    if outcome.pending is None:
        raise RuntimeError(f"expected a review, got {outcome.final_output.status}")
    return outcome.pending


def under_new_ids(template: ReviewPayload) -> ReviewPayload:
    """A copy of a review's payload on a thread of its own (new thread and review ids): one
    more pending review to open with ReviewLedger.open_review, as the graph's hooks do."""
    thread = uuid.uuid4().hex
    payload = copy.deepcopy(template)
    payload |= {"review_id": f"{thread}-r1", "thread_id": thread}
    return payload


@dataclass(frozen=True)
class Workspace:
    root: Path

    def settings(
        self, servers: dict[str, dict[str, object]], *, name: str = "gatehouse", db_url: str | None = None
    ) -> Settings:
        """Settings for a Gatehouse on its own data folder ``root/name`` with these servers; its
        database the SQLite file in that folder, or the PostgreSQL database ``db_url``."""
        data = self.root / name
        data.mkdir(parents=True, exist_ok=True)
        servers_file = data / "servers.json"
        servers_file.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
        return Settings(
            data_dir=data, db_path=data / "gatehouse.db", servers_path=servers_file, db_url=db_url
        )

    def demo(self, *names: str, name: str = "gatehouse", db_url: str | None = None) -> Settings:
        """Settings running the named bundled demo servers with the commands `make run` uses
        (servers/bundled.mcp.json)."""
        data = self.root / name
        bundled = {entry.name: entry for entry in bundled_servers_config(data / "demo").servers}
        servers: dict[str, dict[str, object]] = {}
        for server in names:
            entry = bundled[server]
            assert isinstance(entry, StdioServer), f"bundled server {server} is not a stdio server"
            servers[server] = {"command": entry.command, "args": entry.args}
        return self.settings(servers, name=name, db_url=db_url)

    def on(self, backend: Backend, *names: str) -> Settings:
        """Settings running the named demo servers with their data on ``backend``."""
        return self.demo(*names, name=backend.folder, db_url=backend.db_url)

    @contextmanager
    def services(self, settings: Settings) -> Iterator[Services]:
        with open_services(settings) as services:
            yield services


@contextmanager
def workspace() -> Iterator[Workspace]:
    with tempfile.TemporaryDirectory(prefix="gatehouse-bench-") as root:
        yield Workspace(Path(root))
