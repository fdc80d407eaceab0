"""The host's view of what a capability returned, whatever the capability type.

Output is capped before it enters the graph's state (and so every checkpoint): a server that
returns 50 MB must not make every later step copy 50 MB. The cap and the truncation are
recorded so integrate_result can say what was dropped.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from mcp_host.errors import ErrorInfo

ContentType = Literal["text", "image", "audio", "blob", "resource", "resource_link"]

DEFAULT_OUTPUT_CAP_BYTES = 64 * 1024
# What one message from a stdio server may be before the host stops reading it
# (mcp_host/stdio_transport.py). Parsing a message holds the GIL, so every thread of the process
# waits while it is parsed, in proportion to its size: this cap bounds that wait (what a refused
# huge answer costs another request is bench figure 6, docs/benchmark.md). Far above what the
# output cap keeps.
DEFAULT_MESSAGE_CAP_BYTES = 4 * 1024 * 1024


def message_cap_for(output_cap_bytes: int) -> int:
    """The per-message cap that goes with an output cap: the default, or room for what a larger
    output cap keeps (its text JSON-escaped, up to 6 bytes a character, plus the envelope)."""
    return max(DEFAULT_MESSAGE_CAP_BYTES, 6 * output_cap_bytes + 64 * 1024)


class ContentItem(BaseModel):
    type: ContentType
    text: str | None = None
    mime_type: str | None = None
    uri: str | None = None
    # Size of the original payload in bytes (decoded for binary content).
    size: int = 0


class McpResult(BaseModel):
    """A normalised result or failure of one MCP call."""

    success: bool
    server: str
    capability_type: str
    name: str
    content: list[ContentItem] = Field(default_factory=list)
    structured: dict[str, Any] | None = None
    error: ErrorInfo | None = None
    # True when the server's output failed the host's checks (for example its own output
    # schema): such output may be shown, marked, but is never trusted context.
    untrusted: bool = False
    untrusted_reason: str | None = None
    original_bytes: int = 0
    truncated: bool = False
    duration_ms: float = 0.0

    @classmethod
    def failure(cls, server: str, capability_type: str, name: str, error: ErrorInfo) -> McpResult:
        return cls(success=False, server=server, capability_type=capability_type, name=name, error=error)
