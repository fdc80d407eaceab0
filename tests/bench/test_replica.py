"""The replica process of the replica figure (bench/replica.py): what it answers, on the
services a web app opens, and over one keep-alive connection."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.replica import ReplicaServer, handle, make_handler
from gatehouse.settings import Settings
from gatehouse.wiring import Services, open_services
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from tests.support import SHUTDOWN_POLL_SECONDS

SEND = "Send an email to bob@example.com saying hello"


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    data = tmp_path / "data"
    data.mkdir()
    settings = Settings(data_dir=data, db_path=data / "gatehouse.db", servers_path=None, policy_path=None)
    with SdkMcpClient(build_all(data / "demo")) as mcp, open_services(settings, mcp=mcp) as opened:
        yield opened


@pytest.fixture
def port(services: Services) -> Iterator[int]:
    server = ReplicaServer(("127.0.0.1", 0), make_handler(services))
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL_SECONDS}, daemon=True
    )
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def test_a_send_waits_for_review_shows_in_the_queue_and_is_decided_once(services: Services) -> None:
    asked = handle(services, "/ask", {"text": SEND})
    assert asked["status"] == "needs_review"
    assert handle(services, "/queue", {}) == {"pending": 1}

    won = handle(services, "/decide", {"review": asked["review"], "reviewer": "reviewer", "approve": True})
    again = handle(services, "/decide", {"review": asked["review"], "reviewer": "reviewer", "approve": True})

    assert won == {"outcome": "won", "status": "ok"}
    assert again["outcome"] == "already_decided"
    assert handle(services, "/queue", {}) == {"pending": 0}


def test_an_unknown_path_is_an_error_naming_the_paths(services: Services) -> None:
    with pytest.raises(LookupError, match="/ask, /queue and /decide"):
        handle(services, "/nope", {})


def _request(
    conn: http.client.HTTPConnection, method: str, path: str, body: Any
) -> tuple[int, dict[str, Any]]:
    conn.request(method, path, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, json.loads(response.read())


def test_requests_on_one_kept_alive_connection_each_get_their_own_answer(port: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        # A GET with a body: left unread, it used to be taken for the next request's start.
        assert _request(conn, "GET", "/queue", {}) == (200, {"pending": 0})
        status, asked = _request(conn, "POST", "/ask", {"text": SEND})
        assert (status, asked["status"]) == (200, "needs_review")
        assert _request(conn, "GET", "/queue", {}) == (200, {"pending": 1})
    finally:
        conn.close()


def test_a_failure_is_answered_as_an_error_with_its_type_and_the_connection_goes_on(port: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        status, answer = _request(
            conn, "POST", "/decide", {"review": "no-such-review", "reviewer": "reviewer", "approve": True}
        )
        assert status == 500
        assert "no-such-review" in answer["error"]
        assert _request(conn, "GET", "/queue", {}) == (200, {"pending": 0})
    finally:
        conn.close()


def test_the_replica_takes_64_connections_opened_at_once_before_it_accepts_any(services: Services) -> None:
    """Figure 8's clients open their connections together; with http.server's listen backlog
    of 5 the rest were dropped or reset while the replica was busy."""
    server = ReplicaServer(("127.0.0.1", 0), make_handler(services))
    serving = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": SHUTDOWN_POLL_SECONDS}, daemon=True
    )
    opened: list[socket.socket] = []
    try:
        # Not serving yet: every connection waits in the listen queue, as under load.
        for _ in range(64):
            opened.append(socket.create_connection(("127.0.0.1", server.server_port), timeout=5))
        serving.start()
        for conn in opened:
            conn.sendall(b"GET /queue HTTP/1.1\r\nHost: replica\r\nContent-Length: 0\r\n\r\n")
            assert conn.makefile("rb").readline().startswith(b"HTTP/1.1 200")
    finally:
        for conn in opened:
            conn.close()
        if serving.is_alive():
            server.shutdown()
        server.server_close()
