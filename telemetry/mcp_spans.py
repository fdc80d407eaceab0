"""The MCP SDK's client spans, named and attributed as the MCP semantic conventions say.

mcp 2.3 starts a CLIENT span for every request it sends (scope ``mcp-python-sdk``, named
``MCP send {method} {target}``, with ``mcp.method.name`` and ``jsonrpc.request.id``) and
injects its context into the request's ``_meta``. This processor sees each such span start,
in the task that sends the request, and completes it in place rather than making another:
the name ``{mcp.method.name} {target}``, ``gen_ai.operation.name``/``gen_ai.tool.name`` for a
tool call, ``gen_ai.prompt.name`` for a prompt, and the server (telemetry/mcp.py ``peer``).
"""

from __future__ import annotations

from typing import Any

from opentelemetry.context import Context
from opentelemetry.sdk.trace import Span, SpanProcessor
from opentelemetry.trace import SpanKind

from telemetry.mcp import peer

SDK_SCOPE = "mcp-python-sdk"
_SDK_PREFIX = "MCP send "


class McpClientSpans(SpanProcessor):
    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        # Every span comes here: the kind first, the one test most of them (INTERNAL) fail.
        if span.kind is not SpanKind.CLIENT:
            return
        scope = span.instrumentation_scope
        if scope is None or scope.name != SDK_SCOPE:
            return
        method = (span.attributes or {}).get("mcp.method.name")
        if not isinstance(method, str):
            return
        name = span.name.removeprefix(_SDK_PREFIX)
        target = name[len(method) + 1 :] if name.startswith(method + " ") else None
        span.update_name(f"{method} {target}" if target else method)
        # One set_attributes: each call takes the span's lock.
        added: dict[str, Any] = dict(peer() or {})
        if method == "tools/call":
            added["gen_ai.operation.name"] = "execute_tool"
            if target:
                added["gen_ai.tool.name"] = target
        elif method == "prompts/get" and target:
            added["gen_ai.prompt.name"] = target
        if added:
            span.set_attributes(added)
