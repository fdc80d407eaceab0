"""`gatehouse serve` in a process of its own for the tests: started on a free port of
127.0.0.1 with the bundled filesystem and e-mail servers (forks of the tests' prefork process)
on a SQLite file, stopped with Ctrl-C as a person stops it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from reviews.ledger import Review, ReviewLedger
from servers.email import OUTBOX_FILE
from tests.cli_support import run_cli
from tests.http_servers import free_port
from tests.support import bundled_server_entry

REPO = Path(__file__).resolve().parents[2]
# Generous: two servers importing the SDK and the graph on a loaded two-core machine took 60 s.
START_SECONDS = 120


def serve_environment(data: Path, servers: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"GATEHOUSE_DB", "GATEHOUSE_POLICY"}}
    return env | {"GATEHOUSE_DATA": str(data), "GATEHOUSE_SERVERS": str(servers)}


@contextmanager
def gatehouse_serve(data: Path, servers: Path, *options: str) -> Iterator[str]:
    """`gatehouse serve` on a free port; yields the endpoint's URL, stops the process."""
    with gatehouse_serves(data, servers, list(options)) as [url]:
        yield url


@contextmanager
def gatehouse_serves(data: Path, servers: Path, *option_sets: list[str]) -> Iterator[list[str]]:
    """One `gatehouse serve` per set of options, on one database, started together (each pays
    its servers' start); yields their URLs, stops them all."""
    started: list[tuple[subprocess.Popen[bytes], str, Path]] = []
    try:
        for options in option_sets:
            port = free_port()
            log = data / f"serve-{port}.log"
            with log.open("wb") as out:
                process = subprocess.Popen(
                    [sys.executable, "-m", "gatehouse.cli", "serve", "--port", str(port), *options],
                    cwd=REPO,
                    env=serve_environment(data, servers),
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            started.append((process, f"http://127.0.0.1:{port}/mcp", log))
        deadline = time.monotonic() + START_SECONDS
        for process, url, log in started:
            while not _answers(url):
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"gatehouse serve did not start:\n{log.read_text(errors='replace')[-3000:]}")
                time.sleep(0.1)
        yield [url for _, url, _ in started]
    finally:
        for process, _, _ in started:
            process.send_signal(signal.SIGINT)
        for process, _, log in started:
            try:
                stopped = process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                raise
            # Ctrl-C is how it is stopped: a clean exit, not an interruption.
            assert stopped == 0, log.read_text(errors="replace")[-3000:]


def _answers(url: str) -> bool:
    try:
        httpx.post(url, json={}, timeout=1)
    except httpx.HTTPError:
        return False
    return True


def servers_file(data: Path) -> Path:
    demo = data / "demo"
    entries = {name: bundled_server_entry(name, demo) for name in ("filesystem", "email")}
    path = data / "servers.json"
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    return path


def issue_token(data: Path, servers: Path, user: str) -> str:
    """A token for ``user``, as `gatehouse tokens issue` prints it."""
    issued = run_cli("tokens", "issue", user, "--json", env=serve_environment(data, servers))
    assert issued.returncode == 0, issued.stderr
    token: str = json.loads(issued.stdout)["token"]
    return token


@dataclass
class Gateway:
    """Endpoints on one database, the tokens issued there, and what the tests read of it: the
    reviews a send opened, the e-mail outbox, and decisions taken as `gatehouse reviews decide`
    takes them (another process than the endpoints', as a reviewer elsewhere would)."""

    data: Path
    servers: Path
    patient: str  # the endpoint that waits long in a call (60 s in the tests)
    brief: str  # one that waits briefly (1 s), or the same endpoint
    tokens: dict[str, str] = field(default_factory=dict)

    def ledger_reviews(self, body: str) -> list[Review]:
        """The reviews of sends of ``body``, oldest first."""
        ledger = ReviewLedger(self.data / "gatehouse.db")
        try:
            reviews = ledger.queue()
        finally:
            ledger.close()
        return sorted(
            (r for r in reviews if r.arguments.get("body") == body), key=lambda r: (r.created_at, r.id)
        )

    def sent(self, body: str) -> int:
        """How many messages with ``body`` the e-mail server wrote to its outbox."""
        outboxes = list(self.data.glob(f"**/{OUTBOX_FILE}"))
        lines = [line for outbox in outboxes for line in outbox.read_text(encoding="utf-8").splitlines()]
        return sum(1 for line in lines if json.loads(line).get("body") == body)

    def decide(self, review_id: str, *verdict: str) -> None:
        decided = run_cli(
            "reviews",
            "decide",
            review_id,
            *verdict,
            "--reviewer",
            "reviewer",
            env=serve_environment(self.data, self.servers),
        )
        assert decided.returncode == 0, decided.stderr
