"""`gatehouse serve` in a process of its own, for the figures that measure that process (its
threads, its memory): started on a free port of 127.0.0.1 over a benchmark's settings (its
SQLite file and servers file), stopped with SIGINT as a person stops it with Ctrl-C."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.mcp_http import free_port
from gatehouse.gateway.server import MCP_PATH
from gatehouse.settings import DATA_ENV, DB_ENV, POLICY_ENV, Settings

ROOT = Path(__file__).resolve().parent.parent
START_SECONDS = 120.0
STOP_SECONDS = 30.0


@dataclass(frozen=True)
class Endpoint:
    url: str
    pid: int
    log: Path


def threads(pid: int) -> int:
    """How many threads the process has now (/proc/<pid>/status), Python's and any other."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/{pid}/status has no Threads line")


@contextmanager
def gatehouse_serve(settings: Settings, *options: str) -> Iterator[Endpoint]:
    """`python -m gatehouse.cli serve` on ``settings``' database and servers file with
    ``options``; yields its endpoint once it accepts connections, stops it after."""
    assert settings.servers_path is not None, "the benchmark's Gatehouse names its servers file"
    port = free_port()
    log = settings.data_dir / f"serve-{port}.log"
    # Its settings are these alone: none of the calling shell's database or policy.
    env = {k: v for k, v in os.environ.items() if k not in {DB_ENV, POLICY_ENV}}
    command = [sys.executable, "-m", "gatehouse.cli", "serve", "--port", str(port), *options]
    command += ["--db", str(settings.db_path), "--servers", str(settings.servers_path)]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env | {DATA_ENV: str(settings.data_dir), "PYTHONPATH": str(ROOT)},
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _listening(port):
            if process.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"gatehouse serve did not start on port {port}; its log ends:\n{tail}")
            time.sleep(0.1)
        yield Endpoint(f"http://127.0.0.1:{port}{MCP_PATH}", process.pid, log)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)  # closes its services and servers cleanly
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
    except OSError:
        return False
    return True
