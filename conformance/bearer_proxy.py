"""A loopback HTTP proxy that adds ``Authorization: Bearer TOKEN`` to every request it passes to
one `gatehouse serve` endpoint: the conformance suite's server scenarios have no way to send a
header of their own, and `gatehouse serve` answers 401 to a request without a token it issued.

It is the test harness's, never Gatehouse's: the endpoint's own authentication stays as it is
in production (the proxy presents a real token `gatehouse tokens issue` made), and the proxy
listens on 127.0.0.1 only, for the length of one `python -m conformance` run.

Everything else passes through as sent: the method, the path and query, every header but the
hop-by-hop ones (``Host`` and ``Origin`` included, so the endpoint's DNS-rebinding check judges
what the suite sent), the body, and the answer's status, headers and body, streamed as it comes
(server-sent events arrive one by one). A client that goes away ends the upstream request. As
any HTTP intermediary, it reads a header's value without the whitespace around it (RFC 9110
section 5.5; the HTTP client it forwards with could not send it anyway): that the endpoint does
the same itself is tests/gatehouse/gateway/test_endpoint_http.py's to show.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING

import anyio
import httpx
import uvicorn

if TYPE_CHECKING:
    from starlette.types import Message, Receive, Scope, Send

# RFC 9110 section 7.6.1: these describe one connection, not the message; httpx and uvicorn
# each frame their own side (a chunked answer upstream may be re-chunked here).
HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
    }
)
START_SECONDS = 10.0


def forwarded_headers(headers: list[tuple[bytes, bytes]], token: str) -> list[tuple[bytes, bytes]]:
    """The request's headers as the endpoint gets them: hop-by-hop ones and any Authorization
    the client sent dropped, the proxy's bearer token added."""
    kept = [(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP and k.lower() != b"authorization"]
    return [*kept, (b"authorization", f"Bearer {token}".encode())]


class BearerProxy:
    """The ASGI application: each request forwarded to ``upstream`` (scheme and authority; the
    path and query are the request's own) with the token added."""

    def __init__(self, upstream: str, token: str) -> None:
        self._upstream = upstream.rstrip("/")
        self._token = token
        # No timeout: a listen stream or a call waiting for a reviewer stays open as long as the
        # suite keeps it; the suite's own per-scenario timeout bounds it.
        self._client = httpx.AsyncClient(timeout=None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        query = scope.get("query_string", b"")
        url = (
            self._upstream
            + scope["raw_path"].decode("latin-1")
            + (f"?{query.decode('latin-1')}" if query else "")
        )
        request = self._client.build_request(
            scope["method"], url, headers=forwarded_headers(list(scope["headers"]), self._token), content=body
        )
        async with anyio.create_task_group() as group:
            # The client leaving ends the upstream request (a listen stream, a waiting call).
            group.start_soon(self._cancel_on_disconnect, receive, group.cancel_scope)
            await self._relay(request, send)
            group.cancel_scope.cancel()

    async def _relay(self, request: httpx.Request, send: Send) -> None:
        try:
            response = await self._client.send(request, stream=True)
        except httpx.HTTPError as exc:
            message = f"the conformance proxy could not reach {self._upstream}: {exc}".encode()
            await send(
                {"type": "http.response.start", "status": 502, "headers": [(b"content-type", b"text/plain")]}
            )
            await send({"type": "http.response.body", "body": message})
            return
        try:
            headers = [(k, v) for k, v in response.headers.raw if k.lower() not in HOP_BY_HOP]
            await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            await response.aclose()

    @staticmethod
    async def _cancel_on_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
        while True:
            message: Message = await receive()
            if message["type"] == "http.disconnect":
                scope.cancel()
                return

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self._client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


@contextmanager
def bearer_proxy(upstream: str, token: str, port: int) -> Iterator[str]:
    """The proxy on 127.0.0.1:``port`` in a thread of this process; yields its base URL
    (``http://127.0.0.1:PORT``), stops it on leaving."""
    config = uvicorn.Config(
        BearerProxy(upstream, token),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        # h11 trims a value's surrounding whitespace; the endpoint's Date and Server are passed on.
        http="h11",
        server_header=False,
        date_header=False,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="conformance-bearer-proxy", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_SECONDS
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the conformance proxy did not start on 127.0.0.1:{port}")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        with suppress(RuntimeError):
            thread.join(timeout=10)
