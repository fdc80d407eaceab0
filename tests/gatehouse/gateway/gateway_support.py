"""Gatehouse's MCP endpoint served in this process for a test: the app `gatehouse serve` runs
(gateway_app) on a free port of 127.0.0.1, in a thread of its own, over the test's services;
and the MCP Python SDK's client connected to it over Streamable HTTP with a token."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx2
import uvicorn
from mcp import Client
from mcp.client.client import ConnectMode
from mcp.client.streamable_http import streamable_http_client
from starlette.types import ASGIApp

from gatehouse.credentials.access_tokens import AccessTokenStore
from gatehouse.gateway.server import MCP_PATH, gateway_app
from gatehouse.wiring import Services
from tests.http_servers import free_port

START_SECONDS = 30


class Gateway:
    """The endpoint's address, and tokens issued on its database."""

    def __init__(self, url: str, tokens: AccessTokenStore) -> None:
        self.url = url
        self._tokens = tokens

    def token(self, user: str) -> str:
        return self._tokens.issue(user).token

    @asynccontextmanager
    async def client(self, user: str, *, mode: ConnectMode = "auto", **options: Any) -> AsyncIterator[Client]:
        """The SDK's client for ``user``: 2026-07-28 unless ``mode`` says otherwise; ``options``
        are the Client's own (its callbacks)."""
        auth = {"Authorization": f"Bearer {self.token(user)}"}
        async with (
            httpx2.AsyncClient(headers=auth, timeout=60) as http,
            Client(streamable_http_client(self.url, http_client=http), mode=mode, **options) as client,
        ):
            yield client


@contextmanager
def serving_gateway(services: Services, *, port: int | None = None, **options: Any) -> Iterator[Gateway]:
    """The endpoint on ``port`` (a free one unless given), ``options`` as gateway_app takes them."""
    tokens = AccessTokenStore(services.ledger.database)
    with serving_app(gateway_app(services, tokens, **options), port=port) as served:
        yield Gateway(f"http://127.0.0.1:{served}{MCP_PATH}", tokens)


@contextmanager
def serving_app(app: ASGIApp, *, port: int | None = None) -> Iterator[int]:
    """``app`` served by uvicorn on 127.0.0.1 in a thread of its own; yields its port."""
    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name="served-app", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + START_SECONDS
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the app did not start"
            time.sleep(0.02)
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=20)
