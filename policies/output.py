"""What output the agent may read: MIME types, a size cap, and what counts as opaque."""

from __future__ import annotations

import fnmatch
from typing import TYPE_CHECKING

from policies.model import Output

if TYPE_CHECKING:
    from mcp_host.results import McpResult


class OutputRules:
    def __init__(self, output: Output) -> None:
        self.patterns = [pattern.lower() for pattern in output.readable_mime_types]
        self.max_bytes = output.max_bytes

    def readable(self, mime_type: str | None) -> bool:
        """Unknown (no MIME type) counts as text: MCP text content carries none."""
        if mime_type is None:
            return True
        base = mime_type.split(";", 1)[0].strip().lower()
        return any(fnmatch.fnmatchcase(base, pattern) for pattern in self.patterns)

    def opaque(self, result: McpResult) -> bool:
        """Nothing the agent could read: only binary content, or text under a non-readable type."""
        if result.structured is not None:
            return False
        readable = [
            item
            for item in result.content
            if item.type in {"text", "resource"} and item.text is not None and self.readable(item.mime_type)
        ]
        return bool(result.content) and not readable
