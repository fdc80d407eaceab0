"""The downstream MCP server `python -m conformance` configures behind `gatehouse serve` for the
conformance suite's server scenarios (stdio): the tools, resources and prompts those scenarios
name, as each scenario's own description asks for them (`conformance list`, and the
"Server Implementation Requirements" of each scenario).

Gatehouse offers them as it offers any configured server's, under its keys
(``conformance__test_simple_text``; a resource at ``gatehouse://resource/KEY``): a scenario
that calls the bare name gets "no such tool", which is why those scenarios are pinned in the
expected-failures lists. The fixture is still what the scenarios describe, so what a scenario
lists, and what the suite's caching and stateless checks read, is the real thing, and a
scenario that one day reaches it through Gatehouse finds it as specified.

Only what a server offers by itself, and Gatehouse could pass on, is here. Left out: the tools
that ask the client something in the middle of a call (sampling, elicitation, roots,
input-required results) and the tasks extension's, since Gatehouse does not pass those
questions on to its caller (docs/mcp-gateway.md); completions, which Gatehouse does not offer;
and json-schema-2020-12's tool, which the scenario looks for by its bare name in the listing.
"""

from __future__ import annotations

import base64
import json
import struct
import warnings
import zlib

import anyio
from mcp.server.mcpserver import Context, MCPServer, UserMessage
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts.base import Message
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.types import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)

NAME = "conformance"
# Every tool only reads (and says so): the conformance policy allows the calls, and a reviewer
# is never asked.
_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def _png() -> bytes:
    """A 1x1 opaque red PNG, built rather than pasted."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def _wav() -> bytes:
    """A tenth of a second of silence, 8 kHz 8-bit mono PCM."""
    samples = b"\x80" * 800
    fmt = struct.pack("<4sIHHIIHH", b"fmt ", 16, 1, 1, 8000, 8000, 1, 8)
    data = b"data" + struct.pack("<I", len(samples)) + samples
    return b"RIFF" + struct.pack("<I", 4 + len(fmt) + len(data)) + b"WAVE" + fmt + data


PNG_BASE64 = base64.b64encode(_png()).decode("ascii")
WAV_BASE64 = base64.b64encode(_wav()).decode("ascii")


async def _log(ctx: Context, message: str) -> None:
    # The 2025-11-25 scenario asks for log messages, which 2026-07-28 deprecates (SEP-2577): the
    # SDK's warning says so each time, and says nothing this fixture does not know.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        await ctx.info(message)


def _tools(server: MCPServer) -> None:
    @server.tool(annotations=_READ_ONLY)
    def test_simple_text() -> str:
        """Returns one text item."""
        return "This is a simple text response for testing."

    @server.tool(annotations=_READ_ONLY)
    def test_image_content() -> list[ImageContent]:
        """Returns one PNG image."""
        return [ImageContent(type="image", data=PNG_BASE64, mime_type="image/png")]

    @server.tool(annotations=_READ_ONLY)
    def test_audio_content() -> list[AudioContent]:
        """Returns one WAV recording."""
        return [AudioContent(type="audio", data=WAV_BASE64, mime_type="audio/wav")]

    @server.tool(annotations=_READ_ONLY)
    def test_embedded_resource() -> list[EmbeddedResource]:
        """Returns one embedded text resource."""
        resource = TextResourceContents(
            uri="test://embedded-resource",
            mime_type="text/plain",
            text="This is an embedded resource content.",
        )
        return [EmbeddedResource(type="resource", resource=resource)]

    @server.tool(annotations=_READ_ONLY)
    def test_multiple_content_types() -> list[TextContent | ImageContent | EmbeddedResource]:
        """Returns text, an image and an embedded resource."""
        resource = TextResourceContents(
            uri="test://mixed-content-resource",
            mime_type="application/json",
            text=json.dumps({"test": "data", "value": 123}),
        )
        return [
            TextContent(type="text", text="Multiple content types test:"),
            ImageContent(type="image", data=PNG_BASE64, mime_type="image/png"),
            EmbeddedResource(type="resource", resource=resource),
        ]

    @server.tool(annotations=_READ_ONLY)
    async def test_tool_with_logging(ctx: Context) -> str:
        """Logs three messages at info level while it runs."""
        await _log(ctx, "Tool execution started")
        await anyio.sleep(0.05)
        await _log(ctx, "Tool processing data")
        await anyio.sleep(0.05)
        await _log(ctx, "Tool execution completed")
        return "Tool with logging executed successfully"

    @server.tool(annotations=_READ_ONLY)
    def test_error_handling() -> str:
        """Always fails."""
        raise ToolError("This tool intentionally returns an error for testing")

    @server.tool(annotations=_READ_ONLY)
    async def test_tool_with_progress(ctx: Context) -> str:
        """Reports progress 0, 50 and 100 of 100 while it runs."""
        for progress in (0, 50, 100):
            await ctx.report_progress(progress, 100)
            if progress < 100:
                await anyio.sleep(0.05)
        return "Tool with progress executed successfully"


def _resources(server: MCPServer) -> None:
    @server.resource("test://static-text", name="static-text", mime_type="text/plain")
    def static_text() -> str:
        return "This is the content of the static text resource."

    @server.resource("test://static-binary", name="static-binary", mime_type="image/png")
    def static_binary() -> bytes:
        return _png()

    @server.resource("test://template/{id}/data", name="template-data", mime_type="application/json")
    def template_data(id: str) -> str:
        return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


def _prompts(server: MCPServer) -> None:
    @server.prompt(name="test_simple_prompt", description="A prompt without arguments")
    def simple() -> list[Message]:
        return [UserMessage("This is a simple prompt for testing.")]

    @server.prompt(name="test_prompt_with_arguments", description="A prompt with two required arguments")
    def with_arguments(arg1: str, arg2: str) -> list[Message]:
        return [UserMessage(f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")]

    @server.prompt(name="test_prompt_with_embedded_resource", description="A prompt embedding a resource")
    def with_embedded_resource(resourceUri: str) -> list[Message]:
        resource = TextResourceContents(
            uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing."
        )
        return [
            UserMessage(EmbeddedResource(type="resource", resource=resource)),
            UserMessage("Please process the embedded resource above."),
        ]

    @server.prompt(name="test_prompt_with_image", description="A prompt with an image")
    def with_image() -> list[Message]:
        return [
            UserMessage(ImageContent(type="image", data=PNG_BASE64, mime_type="image/png")),
            UserMessage("Please analyze the image above."),
        ]


def build_server() -> MCPServer:
    server = MCPServer(name=NAME, instructions="The conformance suite's server fixtures (conformance/).")
    _tools(server)
    _resources(server)
    _prompts(server)
    return server


def main() -> None:
    build_server().run("stdio")


if __name__ == "__main__":
    main()
