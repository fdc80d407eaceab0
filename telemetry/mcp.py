"""MCP requests as the MCP semantic conventions describe them (docs/telemetry.md).

The MCP SDK makes the client span of every request and puts the trace context into its
``_meta`` (SEP-414); Gatehouse does not make a second one. What the SDK cannot know is which
configured server the request goes to: mcp_host/ says so here (``talking_to``) around each
request it makes, and telemetry/mcp_spans.py, which sees every span start, adds it to the SDK's
span and names the span ``{mcp.method.name} {target}``. The ``mcp.client.operation.duration``
metric is recorded here, from mcp_host/'s own clock, whether traces are on or not.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlsplit

from telemetry.switch import instruments, metrics

Attributes = Mapping[str, Any]

# The server the request being made in this task goes to (mcp_host/ sets it around the request;
# the SDK starts its span in the same task, so telemetry/mcp_spans.py reads it there).
_peer: ContextVar[Attributes | None] = ContextVar("gatehouse_mcp_peer", default=None)


def server_attributes(
    name: str, *, url: str | None = None, protocol_version: str | None = None
) -> dict[str, Any]:
    """A configured server as the conventions' attributes: for Streamable HTTP its address and
    port (``tcp``), for stdio a pipe; and its name in the servers file (``gatehouse.mcp.server``)."""
    attributes: dict[str, Any] = {"gatehouse.mcp.server": name}
    if url is None:
        attributes["network.transport"] = "pipe"
    else:
        parts = urlsplit(url)
        attributes["network.transport"] = "tcp"
        attributes["network.protocol.name"] = "http"
        if parts.hostname:
            attributes["server.address"] = parts.hostname
            attributes["server.port"] = parts.port or (443 if parts.scheme == "https" else 80)
    if protocol_version:
        attributes["mcp.protocol.version"] = protocol_version
    return attributes


@contextmanager
def talking_to(server: Attributes | None) -> Iterator[None]:
    """The MCP requests made in this block (and the tasks it starts) go to ``server``."""
    if server is None:
        yield
        return
    token = _peer.set(server)
    try:
        yield
    finally:
        _peer.reset(token)


def peer() -> Attributes | None:
    """The server the current task's request goes to, if mcp_host/ said."""
    return _peer.get()


def record_operation(
    seconds: float,
    server: Attributes,
    *,
    method: str,
    target: str | None = None,
    error_type: str | None = None,
) -> None:
    """One MCP request's duration in ``mcp.client.operation.duration`` (nothing when metrics
    are off). ``target`` is the tool's or the prompt's name; ``error_type`` the JSON-RPC error
    code, ``tool_error`` for a tool's own error, or the kind of failure."""
    if not metrics():
        return
    attributes: dict[str, Any] = {"mcp.method.name": method, **server}
    if method == "tools/call":
        attributes["gen_ai.operation.name"] = "execute_tool"
        if target:
            attributes["gen_ai.tool.name"] = target
    elif method == "prompts/get" and target:
        attributes["gen_ai.prompt.name"] = target
    if error_type:
        attributes["error.type"] = error_type
    instruments().mcp_operation.record(seconds, attributes)
