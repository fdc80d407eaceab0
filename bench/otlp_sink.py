"""An OTLP/HTTP endpoint on 127.0.0.1 that takes every export and keeps only counts: what the
traced figure (bench/figures/traced_request.py) exports to, so the exporters do their real
work (encode, POST, wait for the answer) without a collector on the machine."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Counts:
    exports: int = 0
    bytes: int = 0


@contextmanager
def otlp_sink() -> Iterator[tuple[str, Counts]]:
    """The endpoint's base URL (as OTEL_EXPORTER_OTLP_ENDPOINT takes it) and what it took."""
    counts = Counts()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with lock:
                counts.exports += 1
                counts.bytes += len(body)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", counts
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
