"""OpenTelemetry for Gatehouse: off by default, the standard conventions when on (docs/telemetry.md).

A leaf, like policies/secrets.py: it imports nothing of Gatehouse, and the layers that trace
(graph/ for the request and its steps, mcp_host/ for the MCP client spans and their metric,
reviews/ for the wait for a person) import it. Only ``telemetry.setup`` (called by the
composition root, gatehouse/wiring.py) and ``telemetry.mcp_spans`` import the OpenTelemetry SDK;
the rest use the API, which the MCP SDK imports anyway. With telemetry off every helper here
returns at its first line, having made nothing.

- ``switch``: whether this process traces and measures, and its tracer and instruments.
- ``setup``: turns it on from the standard OTEL_* variables (OTLP over HTTP).
- ``spans``: the request's trace, the graph's steps, ``execute_tool``; the trace context as
  the text that is stored with the request (W3C traceparent), so another process joins it.
- ``mcp``: what the MCP client spans the SDK makes are told about their server, and the
  ``mcp.client.operation.duration`` metric; ``mcp_spans`` names those spans as the MCP
  conventions do.
- ``review_wait``: the wait for a person as a span, with its events, and its metric.
"""
