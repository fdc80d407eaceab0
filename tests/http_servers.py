"""Test servers that listen on 127.0.0.1 in a process of their own (HTTP MCP servers, the
OAuth-protected one), started on a free port and stopped when the test is done."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def serving(module: str, *args: str, timeout: float = 60.0) -> Iterator[int]:
    """Run ``python -m module PORT *args`` and yield PORT once it accepts connections."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", module, str(port), *args],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"{module} did not start listening on 127.0.0.1:{port}") from None
                time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
