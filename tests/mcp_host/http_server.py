"""The bundled greeter over Streamable HTTP behind a bearer token, for transport tests.

Run as ``python -m tests.mcp_host.http_server PORT TOKEN``; prints nothing, serves until killed.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import uvicorn

from servers.greeter import build_server


class RequireToken:
    """401 for any request without ``Authorization: Bearer TOKEN``."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != self.expected:
            await send(
                {"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]}
            )
            await send({"type": "http.response.body", "body": b"unauthorized"})
            return
        await self.app(scope, receive, send)


def main() -> None:
    port, token = int(sys.argv[1]), sys.argv[2]
    server = build_server(Path(tempfile.mkdtemp()))
    app = RequireToken(server.streamable_http_app(), token)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
