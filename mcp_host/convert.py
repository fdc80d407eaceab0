"""Turn SDK result objects into McpResult, capping what enters the graph's state."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    GetPromptResult,
    ImageContent,
    ReadResourceResult,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from mcp_host.errors import ErrorInfo, ErrorKind
from mcp_host.results import ContentItem, McpResult


class _Budget:
    """Bytes left under the output cap, shared by every content item of one result."""

    def __init__(self, cap: int) -> None:
        self.left = cap
        self.truncated = False

    def take_text(self, text: str) -> str:
        text = without_nul(text)
        encoded = text.encode("utf-8")
        if len(encoded) <= self.left:
            self.left -= len(encoded)
            return text
        self.truncated = True
        kept = encoded[: max(self.left, 0)].decode("utf-8", errors="ignore")
        self.left = 0
        return kept


def _decoded_size(data: str) -> int:
    # base64 carries 3 bytes per 4 characters; exact enough for reporting without decoding.
    return (len(data) * 3) // 4 - data.count("=")


def _resource_item(resource: TextResourceContents | BlobResourceContents, budget: _Budget) -> ContentItem:
    if isinstance(resource, TextResourceContents):
        size = len(resource.text.encode("utf-8"))
        return ContentItem(
            type="resource",
            text=budget.take_text(resource.text),
            mime_type=resource.mime_type,
            uri=str(resource.uri),
            size=size,
        )
    return ContentItem(
        type="blob", mime_type=resource.mime_type, uri=str(resource.uri), size=_decoded_size(resource.blob)
    )


def _content_item(block: Any, budget: _Budget) -> ContentItem:
    if isinstance(block, TextContent):
        return ContentItem(
            type="text", text=budget.take_text(block.text), size=len(block.text.encode("utf-8"))
        )
    if isinstance(block, ImageContent):
        return ContentItem(type="image", mime_type=block.mime_type, size=_decoded_size(block.data))
    if isinstance(block, AudioContent):
        return ContentItem(type="audio", mime_type=block.mime_type, size=_decoded_size(block.data))
    if isinstance(block, EmbeddedResource):
        return _resource_item(block.resource, budget)
    if isinstance(block, ResourceLink):
        return ContentItem(
            type="resource_link", uri=str(block.uri), mime_type=block.mime_type, text=block.name
        )
    # A content type newer than this host: keep its existence visible, never its bytes.
    return ContentItem(type="blob", mime_type=getattr(block, "type", None))


def without_nul(value: Any) -> Any:
    """The value with NUL characters replaced by U+FFFD, in every string inside it.

    A NUL is never text a person reads, and PostgreSQL cannot store it in a JSON or text
    column: a server's output containing one would fail the checkpoint of the whole run."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd") if "\x00" in value else value
    if isinstance(value, dict):
        return {without_nul(k): without_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_nul(item) for item in value]
    return value


def _structured(data: dict[str, Any] | None, budget: _Budget) -> tuple[dict[str, Any] | None, int]:
    if data is None:
        return None, 0
    data = without_nul(data)
    size = len(json.dumps(data, ensure_ascii=False, default=str).encode("utf-8"))
    if size > budget.left:
        budget.truncated = True
        return None, size
    budget.left -= size
    return data, size


def tool_result(
    server: str,
    name: str,
    result: CallToolResult,
    cap: int,
    duration_ms: float,
    untrusted_reason: str | None = None,
) -> McpResult:
    budget = _Budget(cap)
    structured, structured_size = _structured(result.structured_content, budget)
    content = [_content_item(block, budget) for block in result.content]
    error = None
    if result.is_error:
        message = " ".join(item.text or "" for item in content if item.type == "text").strip()
        error = ErrorInfo(kind=classify_tool_error(message), message=message or "the tool reported an error")
    return McpResult(
        success=not result.is_error,
        server=server,
        capability_type="tool",
        name=name,
        content=content,
        structured=structured,
        error=error,
        original_bytes=structured_size + sum(item.size for item in content),
        truncated=budget.truncated,
        duration_ms=duration_ms,
        untrusted=untrusted_reason is not None,
        untrusted_reason=untrusted_reason,
    )


def resource_result(
    server: str, name: str, result: ReadResourceResult, cap: int, duration_ms: float, capability_type: str
) -> McpResult:
    budget = _Budget(cap)
    content = [_resource_item(item, budget) for item in result.contents]
    return McpResult(
        success=True,
        server=server,
        capability_type=capability_type,
        name=name,
        content=content,
        original_bytes=sum(item.size for item in content),
        truncated=budget.truncated,
        duration_ms=duration_ms,
    )


PromptRole = Literal["user", "assistant"]
_PROMPT_LINE = re.compile(r"\[(user|assistant)\] ", re.ASCII)


def prompt_line(role: PromptRole, text: str) -> str:
    """A prompt message's text as a result keeps it: its role first (``[user] ...``), since a
    content item has no role of its own."""
    return f"[{role}] {text}"


def prompt_role(text: str) -> tuple[PromptRole | None, str]:
    """The role and text of a line prompt_line wrote; None and the text as it is otherwise."""
    found = _PROMPT_LINE.match(text)
    if found is None:
        return None, text
    role: PromptRole = "assistant" if found.group(1) == "assistant" else "user"
    return role, text[found.end() :]


def prompt_result(server: str, name: str, result: GetPromptResult, cap: int, duration_ms: float) -> McpResult:
    budget = _Budget(cap)
    content: list[ContentItem] = []
    for message in result.messages:
        item = _content_item(message.content, budget)
        if item.text is not None:
            item = item.model_copy(update={"text": prompt_line(message.role, item.text)})
        content.append(item)
    return McpResult(
        success=True,
        server=server,
        capability_type="prompt",
        name=name,
        content=content,
        structured={"description": result.description} if result.description else None,
        original_bytes=sum(item.size for item in content),
        truncated=budget.truncated,
        duration_ms=duration_ms,
    )


_AUTH_WORDS = (
    "unauthorized",
    "unauthorised",
    "forbidden",
    "permission denied",
    "access denied",
    "401",
    "403",
)
_PARAM_WORDS = (
    "rejected arguments",
    "validation error",
    "invalid argument",
    "missing required",
    "unknown tool",
)


def classify_tool_error(message: str) -> ErrorKind:
    """Map an ``is_error`` result's text onto the taxonomy; servers have no error codes there."""
    lowered = message.lower()
    if any(word in lowered for word in _AUTH_WORDS):
        return "auth"
    if any(word in lowered for word in _PARAM_WORDS):
        return "invalid_params"
    return "tool_error"
