"""The fixture server behind `gatehouse serve` in the conformance run (conformance/fixture_server.py)
offers what the suite's server scenarios call, as their descriptions ask: so a scenario that
fails through Gatehouse fails on what Gatehouse does with it, never on a fixture that is not
there. Served in this process by the SDK's in-memory client."""

from __future__ import annotations

import base64
import json
from typing import Any

import anyio
from mcp import Client
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    LoggingMessageNotificationParams,
    TextContent,
    TextResourceContents,
)

from conformance.fixture_server import build_server

# What the scenarios of both pinned suites call by name (conformance list; each scenario's
# "Server Implementation Requirements"), less what the fixture leaves out and says why.
TOOLS = {
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_tool_with_logging",
    "test_error_handling",
    "test_tool_with_progress",
}
PROMPTS = {
    "test_simple_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
}


def _run(body: Any) -> Any:
    async def scenario() -> Any:
        with anyio.fail_after(30):
            return await body()

    return anyio.run(scenario)


def test_it_lists_the_tools_resources_and_prompts_the_scenarios_name() -> None:
    async def listed() -> tuple[set[str], set[str], set[str], set[str]]:
        async with Client(build_server()) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            resources = {str(r.uri) for r in (await client.list_resources()).resources}
            templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
            prompts = {p.name for p in (await client.list_prompts()).prompts}
        return tools, resources, templates, prompts

    tools, resources, templates, prompts = _run(listed)

    assert tools == TOOLS
    assert resources == {"test://static-text", "test://static-binary"}
    assert templates == {"test://template/{id}/data"}
    assert prompts == PROMPTS


def test_each_tool_answers_with_the_content_its_scenario_looks_for() -> None:
    async def called() -> dict[str, Any]:
        async with Client(build_server()) as client:
            return {name: await client.call_tool(name, {}) for name in sorted(TOOLS)}

    results = _run(called)

    assert results["test_simple_text"].content == [
        TextContent(type="text", text="This is a simple text response for testing.")
    ]
    [image] = results["test_image_content"].content
    assert isinstance(image, ImageContent) and image.mime_type == "image/png"
    assert base64.b64decode(image.data).startswith(b"\x89PNG\r\n\x1a\n")
    [audio] = results["test_audio_content"].content
    assert isinstance(audio, AudioContent) and audio.mime_type == "audio/wav"
    assert base64.b64decode(audio.data)[8:12] == b"WAVE"
    [embedded] = results["test_embedded_resource"].content
    assert isinstance(embedded, EmbeddedResource) and str(embedded.resource.uri) == "test://embedded-resource"
    mixed = results["test_multiple_content_types"].content
    assert [item.type for item in mixed] == ["text", "image", "resource"]
    assert isinstance(mixed[2], EmbeddedResource) and isinstance(mixed[2].resource, TextResourceContents)
    assert json.loads(mixed[2].resource.text) == {"test": "data", "value": 123}
    error = results["test_error_handling"]
    assert error.is_error
    assert isinstance(error.content[0], TextContent)
    assert "This tool intentionally returns an error for testing" in error.content[0].text


def test_the_logging_and_progress_tools_report_while_they_run() -> None:
    logged: list[Any] = []
    reported: list[tuple[float, float | None]] = []

    async def log(params: LoggingMessageNotificationParams) -> None:
        logged.append(params.data)

    async def report(progress: float, total: float | None, message: str | None) -> None:
        reported.append((progress, total))

    async def called() -> None:
        async with Client(build_server(), logging_callback=log, log_level="info") as client:
            await client.call_tool("test_tool_with_logging", {})
            await client.call_tool("test_tool_with_progress", {}, progress_callback=report)

    _run(called)

    assert logged == ["Tool execution started", "Tool processing data", "Tool execution completed"]
    assert reported == [(0, 100), (50, 100), (100, 100)]


def test_the_resources_and_prompts_read_as_their_scenarios_describe() -> None:
    async def read() -> dict[str, Any]:
        async with Client(build_server()) as client:
            return {
                "text": await client.read_resource("test://static-text"),
                "binary": await client.read_resource("test://static-binary"),
                "template": await client.read_resource("test://template/123/data"),
                "simple": await client.get_prompt("test_simple_prompt"),
                "arguments": await client.get_prompt(
                    "test_prompt_with_arguments", {"arg1": "hello", "arg2": "world"}
                ),
                "embedded": await client.get_prompt(
                    "test_prompt_with_embedded_resource", {"resourceUri": "test://x"}
                ),
                "image": await client.get_prompt("test_prompt_with_image"),
            }

    got = _run(read)

    [text] = got["text"].contents
    assert isinstance(text, TextResourceContents)
    assert text.text == "This is the content of the static text resource."
    [binary] = got["binary"].contents
    assert isinstance(binary, BlobResourceContents) and binary.mime_type == "image/png"
    [template] = got["template"].contents
    assert isinstance(template, TextResourceContents)
    assert json.loads(template.text) == {"id": "123", "templateTest": True, "data": "Data for ID: 123"}
    assert got["simple"].messages[0].content.text == "This is a simple prompt for testing."
    assert got["arguments"].messages[0].content.text == "Prompt with arguments: arg1='hello', arg2='world'"
    embedded = got["embedded"].messages[0].content
    assert isinstance(embedded, EmbeddedResource) and str(embedded.resource.uri) == "test://x"
    assert [m.content.type for m in got["image"].messages] == ["image", "text"]
