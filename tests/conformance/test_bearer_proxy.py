"""The loopback proxy the conformance suite calls `gatehouse serve` through
(conformance/bearer_proxy.py): it adds the run's bearer token and changes nothing else the
endpoint judges (the Host, the body, the answer's status and headers), and passes a stream on
as it comes. In front of a small upstream of the test's own, on 127.0.0.1."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import anyio.to_thread
import httpx
import uvicorn

from conformance.bearer_proxy import bearer_proxy, forwarded_headers
from tests.http_servers import free_port

if TYPE_CHECKING:
    from starlette.types import Receive, Scope, Send

TOKEN = "gth_conformance-run"


class Upstream:
    """Answers /echo with what it was sent (401 and a WWW-Authenticate header, as the endpoint
    answers a request it refuses), and /stream with one event, then another once released."""

    def __init__(self) -> None:
        self.released = threading.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while (message := await receive())["type"] == "http.request":
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if scope["path"] == "/stream":
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")],
                }
            )
            await send({"type": "http.response.body", "body": b"data: first\n\n", "more_body": True})
            await anyio.to_thread.run_sync(self.released.wait, 10)
            await send({"type": "http.response.body", "body": b"data: second\n\n"})
            return
        seen = {
            "method": scope["method"],
            "path": scope["path"],
            "query": scope["query_string"].decode(),
            "headers": [[k.decode(), v.decode()] for k, v in scope["headers"]],
            "body": body.decode(),
        }
        answer = json.dumps(seen).encode()
        headers = [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": answer})


@contextmanager
def upstream_and_proxy() -> Iterator[tuple[Upstream, str]]:
    app = Upstream()
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the test's upstream did not start"
        time.sleep(0.01)
    try:
        with bearer_proxy(f"http://127.0.0.1:{port}", TOKEN, free_port()) as proxy:
            yield app, proxy
    finally:
        app.released.set()
        server.should_exit = True
        thread.join(timeout=10)


def test_the_token_replaces_any_authorization_and_hop_by_hop_headers_stay_behind() -> None:
    headers = [
        (b"host", b"a"),
        (b"Authorization", b"Bearer theirs"),
        (b"connection", b"keep-alive"),
        (b"x", b"1"),
    ]

    assert forwarded_headers(headers, TOKEN) == [
        (b"host", b"a"),
        (b"x", b"1"),
        (b"authorization", b"Bearer " + TOKEN.encode()),
    ]


def test_a_request_reaches_the_endpoint_as_sent_with_the_token_and_its_answer_comes_back_as_given() -> None:
    with upstream_and_proxy() as (_, proxy):
        answer = httpx.post(
            f"{proxy}/echo?x=1",
            content=b'{"jsonrpc": "2.0"}',
            headers={
                "Host": "evil.example",
                "Origin": "http://evil.example",
                "Authorization": "Bearer theirs",
            },
        )

    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == "Bearer"
    seen = answer.json()
    headers = dict(seen["headers"])
    assert (seen["method"], seen["path"], seen["query"], seen["body"]) == (
        "POST",
        "/echo",
        "x=1",
        '{"jsonrpc": "2.0"}',
    )
    # The endpoint's DNS-rebinding check judges the Host and Origin the suite sent.
    assert (headers["host"], headers["origin"]) == ("evil.example", "http://evil.example")
    assert [v for k, v in seen["headers"] if k == "authorization"] == [f"Bearer {TOKEN}"]


def test_a_stream_is_passed_on_as_it_comes() -> None:
    with (
        upstream_and_proxy() as (upstream, proxy),
        httpx.stream("GET", f"{proxy}/stream", timeout=20) as stream,
    ):
        chunks = stream.iter_raw()
        first = next(chunks)
        # The upstream has not finished: the first event came through before the second exists.
        released_before_first = upstream.released.is_set()
        upstream.released.set()
        rest = b"".join(chunks)

    assert first == b"data: first\n\n" and not released_before_first
    assert rest == b"data: second\n\n"
