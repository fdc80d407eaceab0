"""Each caller of the MCP endpoint held to the policy's requests a minute ([gateway]): a request
over it is answered ``429 Too Many Requests`` with ``Retry-After`` before its MCP message is
read, and one line is logged naming the caller, never their token.

It sits behind the bearer-token check, so what is counted is the caller the token names (the
roster member, whichever of their tokens they send: an authorization server's tokens are
renewed every hour or so, and a person with two tokens does not get twice the limit), and a
request without a valid token is refused before it costs anyone a place. The count is in the
database (request_counts.py), so several `gatehouse serve` behind one address hold a caller
to one limit, and a limit changed in the policy applies on every one of them once adopted.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio.to_thread
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from gatehouse.gateway.request_counts import RequestCounts

log = logging.getLogger(__name__)


class RateLimited:
    """ASGI middleware admitting each authenticated caller's requests to ``app`` against
    ``limit_for(caller)`` requests a minute, counted by ``counts``."""

    def __init__(self, app: ASGIApp, counts: RequestCounts, limit_for: Callable[[str], int]) -> None:
        self._app = app
        self._counts = counts
        self._limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        if scope["type"] != "http" or not isinstance(user, AuthenticatedUser):
            # The bearer check in front answers every unauthenticated request itself.
            await self._app(scope, receive, send)
            return
        caller = user.access_token.client_id
        # The policy (which may read the database for a newer version) and the count, off the loop.
        limit, wait = await anyio.to_thread.run_sync(self._admit, caller)
        if wait is None:
            await self._app(scope, receive, send)
            return
        seconds = max(1, math.ceil(wait))
        log.warning(
            "%s is over the limit of %d MCP requests a minute: answered 429, retry after %d s",
            caller,
            limit,
            seconds,
        )
        await _too_many(send, limit, seconds)

    def _admit(self, caller: str) -> tuple[int, float | None]:
        limit = self._limit_for(caller)
        return limit, self._counts.admit(caller, limit)


async def _too_many(send: Send, limit: int, seconds: int) -> None:
    body = json.dumps(
        {
            "error": "rate_limited",
            "error_description": (
                f"more than {limit} requests in a minute from this caller (Gatehouse's policy, "
                f"[gateway]); try again in {seconds} s"
            ),
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(seconds).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
