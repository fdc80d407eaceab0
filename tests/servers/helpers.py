"""Small accessors for results returned by the MCP client, shared by the server tests."""

from typing import Any

from mcp.types import CallToolResult, TextContent


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    # The wire type is Any (any JSON value); every bundled tool returns an object.
    content = result.structured_content
    assert isinstance(content, dict), content
    return content


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def error_text(result: CallToolResult) -> str:
    assert result.is_error, f"expected a tool error, got: {result.structured_content!r}"
    return text_of(result)
