from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.types import TextContent

from servers.prompts import build_server

pytestmark = pytest.mark.anyio


async def render(data_dir: Path, arguments: dict[str, str] | None) -> str:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            result = await client.get_prompt("summarize_tickets", arguments)
    [message] = result.messages
    assert message.role == "user"
    assert isinstance(message.content, TextContent)
    return message.content.text


async def test_summarize_tickets_prompt_renders_its_arguments(data_dir: Path) -> None:
    text = await render(data_dir, {"priority": "urgent", "status": "pending"})
    assert "priority 'urgent'" in text
    assert "status 'pending'" in text
    assert "search_tickets" in text


async def test_summarize_tickets_prompt_defaults_to_high_and_open(data_dir: Path) -> None:
    text = await render(data_dir, None)
    assert "priority 'high'" in text
    assert "status 'open'" in text


async def test_summarize_tickets_prompt_is_listed_with_optional_arguments(data_dir: Path) -> None:
    with anyio.fail_after(10):
        async with Client(build_server(data_dir)) as client:
            [prompt] = (await client.list_prompts()).prompts
    assert prompt.name == "summarize_tickets"
    assert prompt.description == "Prompt template: summarize support tickets filtered by priority and status."
    assert prompt.arguments is not None
    assert [(arg.name, arg.required) for arg in prompt.arguments] == [("priority", False), ("status", False)]
    assert all(arg.description for arg in prompt.arguments)
