"""A remote MCP server that answers one kind of request a byte at a time, forever.

Run as ``python -m tests.adversarial.slowloris_server PORT STAGE``; serves Streamable HTTP on
127.0.0.1 until killed. It is a raw asyncio server, not the SDK's, so it can misbehave at the
byte level: every request is answered at once and correctly except the one STAGE names, whose
response is trickled one byte every 50 ms: first the status line and headers, then an SSE
stream that starts an event (``data: {...``) and never ends it. Each byte resets an HTTP
client's read timeout (httpx's is per read, 300 s in Gatehouse), so only a deadline over the
whole request can end the wait.

STAGE is ``connect`` (the first request of a session: ``server/discover`` or ``initialize``),
``listing`` (``tools/list``) or ``call`` (``tools/call``).

First tried (tests/adversarial/test_slowloris.py): the pool's connect timeout bounded the
first connect, each entry's ``timeout`` bounded a listing and a call, and other servers went
on meanwhile. But a session re-opened after it died (the keeper's restart, ``reconnect()``
after a sign-in) had no bound on its handshake: its keeper waited on the trickle for good, so
every later request to that server waited the connect timeout and failed with "no open
session", and ``reconnect()`` reported no error at all. Fixed in mcp_host/sdk_client.py: every
open of a session is bounded by the connect timeout and fails with "no session within N s".
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

BYTE_INTERVAL = 0.05
PROTOCOL_VERSION = "2025-11-25"
_TRICKLED = {
    "connect": {"server/discover", "initialize"},
    "listing": {"tools/list"},
    "call": {"tools/call"},
}
_TOOL = {
    "name": "ping",
    "description": "Answers pong.",
    "inputSchema": {"type": "object", "properties": {}},
    "annotations": {"readOnlyHint": True},
}


def answer(message: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON-RPC response to one request, None for a notification."""
    method = message.get("method")
    if "id" not in message:
        return None
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "slowloris", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": [_TOOL]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "pong"}], "isError": False}
    else:
        # server/discover among them: the client falls back to initialize.
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


async def read_request(reader: asyncio.StreamReader) -> tuple[str, bytes] | None:
    """The method and body of one HTTP request, None when the client hung up."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method = lines[0].split(" ", 1)[0]
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    body = await reader.readexactly(length) if length else b""
    return method, body


async def trickle(writer: asyncio.StreamWriter, request_id: object) -> None:
    """Headers a byte at a time, then an SSE event that is never finished."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
    start = b'data: {"jsonrpc": "2.0", "id": ' + json.dumps(request_id).encode() + b', "result": {'
    for byte in head + start:
        writer.write(bytes([byte]))
        await writer.drain()
        await asyncio.sleep(BYTE_INTERVAL)
    while True:  # never a newline: the event is never complete
        writer.write(b" ")
        await writer.drain()
        await asyncio.sleep(BYTE_INTERVAL)


async def respond(writer: asyncio.StreamWriter, status: str, body: bytes = b"") -> None:
    kind = b"Content-Type: application/json\r\n" if body else b""
    writer.write(
        f"HTTP/1.1 {status}\r\n".encode() + kind + f"Content-Length: {len(body)}\r\n\r\n".encode() + body
    )
    await writer.drain()


def serve(stage: str) -> Any:
    trickled = _TRICKLED[stage]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                method, body = await read_request(reader) or ("", b"")
                if method != "POST":
                    # No stream for server-initiated messages; no session to delete.
                    await respond(writer, "405 Method Not Allowed")
                    continue
                message = json.loads(body)
                if message.get("method") in trickled:
                    await trickle(writer, message.get("id"))
                response = answer(message)
                if response is None:
                    await respond(writer, "202 Accepted")
                else:
                    await respond(writer, "200 OK", json.dumps(response).encode())
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    return handle


async def main_async(port: int, stage: str) -> None:
    server = await asyncio.start_server(serve(stage), "127.0.0.1", port)
    async with server:
        await server.serve_forever()


def main() -> None:
    asyncio.run(main_async(int(sys.argv[1]), sys.argv[2]))


if __name__ == "__main__":
    main()
