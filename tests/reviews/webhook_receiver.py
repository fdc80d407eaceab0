"""A real HTTP webhook receiver on 127.0.0.1 (a free port), for the notification tests.

It answers each POST with the next scripted answer (then 200 for ever): a status code, or
"hang", which holds the request until the test releases it (or ``hang_seconds`` pass). Every
post is recorded when it arrives, with its path, headers, JSON body and raw bytes."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support import SHUTDOWN_POLL_SECONDS

Answer = int | str


@dataclass
class Received:
    headers: dict[str, str]
    body: dict[str, Any]
    # The bytes as they came (a signature covers these) and the path posted to.
    raw: bytes = b""
    path: str = ""


@dataclass
class Receiver:
    url: str
    script: list[Answer]
    hang_seconds: float = 10.0
    received: list[Received] = field(default_factory=list)
    released: threading.Event = field(default_factory=threading.Event)
    # Set when a request arrives that the receiver holds ("hang").
    hanging: threading.Event = field(default_factory=threading.Event)
    _arrived: threading.Condition = field(default_factory=threading.Condition)

    def next_answer(self) -> Answer:
        with self._arrived:
            return self.script.pop(0) if self.script else 200

    def record(self, item: Received) -> None:
        with self._arrived:
            self.received.append(item)
            self._arrived.notify_all()

    def wait_for(self, count: int, *, timeout: float = 20.0) -> list[Received]:
        """The first ``count`` posts, once they arrived (fails after ``timeout`` seconds)."""
        with self._arrived:
            arrived = self._arrived.wait_for(lambda: len(self.received) >= count, timeout)
            assert arrived, f"expected {count} posts, the receiver got {len(self.received)}"
            return list(self.received[:count])

    def bodies(self) -> list[dict[str, Any]]:
        with self._arrived:
            return [item.body for item in self.received]


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            body = json.loads(raw or b"{}")
            answer = receiver.next_answer()
            receiver.record(Received(headers=dict(self.headers.items()), body=body, raw=raw, path=self.path))
            if answer == "hang":
                receiver.hanging.set()
                receiver.released.wait(receiver.hang_seconds)
                answer = 200
            payload = b"ok" if answer == 200 else b"receiver says no"
            try:
                self.send_response(int(answer))
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                pass  # the sender gave up waiting and closed the connection

        def log_message(self, format: str, *args: Any) -> None:
            return None

    return Handler


@contextmanager
def webhook_receiver(*script: Answer, hang_seconds: float = 10.0) -> Iterator[Receiver]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    receiver = Receiver(
        url=f"http://127.0.0.1:{server.server_address[1]}/hooks/T0KEN-s3cr3t-path",
        script=list(script),
        hang_seconds=hang_seconds,
    )
    server.RequestHandlerClass = _handler(receiver)
    server.daemon_threads = True
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL_SECONDS}, daemon=True
    )
    thread.start()
    try:
        yield receiver
    finally:
        receiver.released.set()
        server.shutdown()
        server.server_close()
