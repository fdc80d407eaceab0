"""The HTTP server `gatehouse serve` runs its endpoint on (gatehouse/gateway/server.py
http_config) hands the endpoint header values without the whitespace around them, which is no
part of a value (RFC 9110 section 5.5): a client that writes ``Mcp-Name:  tool  `` names
``tool``, and the SDK, which compares the header with the request body, accepts the call (the
conformance suite's sep-2243-server-accepts-whitespace-header-value)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import uvicorn

from gatehouse.gateway.server import http_config
from tests.http_servers import free_port

if TYPE_CHECKING:
    from starlette.types import Receive, Scope, Send


class HeaderEcho:
    """An ASGI app that answers with the Mcp-Name value it was handed, byte for byte."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = b"[" + dict(scope["headers"]).get(b"mcp-name", b"") + b"]"
        headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


@contextmanager
def served(port: int) -> Iterator[None]:
    server = uvicorn.Server(http_config(HeaderEcho(), host="127.0.0.1", port=port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the endpoint's HTTP server did not start"
        time.sleep(0.01)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def raw_request(port: int, header_line: bytes) -> bytes:
    """The response to a request carrying ``header_line`` exactly as written (HTTP clients
    refuse to send a value with trailing whitespace, so the bytes go out by hand)."""
    request = b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + header_line + b"\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(4096):
            answer += chunk
    return answer


def test_a_header_value_reaches_the_endpoint_without_the_whitespace_around_it() -> None:
    port = free_port()
    with served(port):
        answer = raw_request(port, b"Mcp-Name:   conformance__test_simple_text  \t")

    assert answer.startswith(b"HTTP/1.1 200")
    assert answer.endswith(b"[conformance__test_simple_text]")
