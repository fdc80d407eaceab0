"""@modelcontextprotocol/server-everything: every capability type, structured output,
templates, prompts, pagination (its 2025.9.25 release) and Streamable HTTP."""

from __future__ import annotations

from pathlib import Path

import anyio
from mcp import Client
from mcp.types import ElicitRequestFormParams, ElicitRequestParams, ElicitResult

from mcp_host.elicitation import (
    CallOwner,
    FormField,
    call_owner,
    check_answer,
    form_defaults,
    form_fields,
    on_behalf_of,
)
from mcp_host.sdk_client import SdkMcpClient
from tests.interop.peers import (
    declared_types,
    everything_paged_server,
    everything_server,
    offered_types,
    only_server,
    type_counts,
)

# What the pinned 2026.8.31 release offers a client that declares no roots, sampling or
# elicitation: 12 tools, plus simulate-research-query, which it adds once initialized.
EVERYTHING_COUNTS = {"tool": 13, "resource": 7, "resource_template": 2, "prompt": 4}


def test_server_everything_offers_every_capability_type_over_stdio(logs: Path) -> None:
    target = everything_server()
    with SdkMcpClient({"everything": target}, log_dir=logs) as client:
        server = only_server(client.discover())

    assert server.ok, server.error
    assert server.protocol_version == "2025-11-25"
    assert server.server_version == "2.0.0"
    assert type_counts(server) == EVERYTHING_COUNTS
    assert server.rejected == []
    assert declared_types(target) == offered_types(server) == {"tool", "resource", "prompt"}


def test_server_everything_structured_output_matches_its_declared_output_schema(logs: Path) -> None:
    with SdkMcpClient({"everything": everything_server()}, log_dir=logs) as client:
        tool = client.discover().find("everything__get-structured-content")
        result = client.call_tool("everything", "get-structured-content", {"location": "New York"})

    assert tool is not None
    assert tool.output_schema is not None
    assert set(tool.output_schema["properties"]) == {"temperature", "conditions", "humidity"}
    assert result.success, result.error
    assert result.structured == {"temperature": 33, "conditions": "Cloudy", "humidity": 82}
    assert not result.untrusted


def test_server_everything_resource_template_is_read_with_its_variable_filled(logs: Path) -> None:
    with SdkMcpClient({"everything": everything_server()}, log_dir=logs) as client:
        templates = {
            c.uri_template: c for c in client.discover().capabilities() if c.type == "resource_template"
        }
        result = client.read_resource("everything", "demo://resource/dynamic/text/7")

    template = templates["demo://resource/dynamic/text/{resourceId}"]
    assert template.required_arguments == ["resourceId"]
    assert set(templates) == {
        "demo://resource/dynamic/text/{resourceId}",
        "demo://resource/dynamic/blob/{resourceId}",
    }
    assert result.success, result.error
    [item] = result.content
    assert item.type == "resource"
    assert item.uri == "demo://resource/dynamic/text/7"
    assert item.text is not None
    assert item.text.startswith("Resource 7: This is a plaintext resource")


def test_server_everything_prompt_is_rendered_with_its_argument(logs: Path) -> None:
    with SdkMcpClient({"everything": everything_server()}, log_dir=logs) as client:
        prompt = client.discover().find("everything__args-prompt")
        result = client.get_prompt("everything", "args-prompt", {"city": "Paris"})

    assert prompt is not None
    assert prompt.type == "prompt"
    assert prompt.required_arguments == ["city"]
    assert result.success, result.error
    assert [item.text for item in result.content] == ["[user] What's weather in Paris?"]


def test_a_paginated_resource_listing_arrives_whole_across_its_ten_pages(logs: Path) -> None:
    target = everything_paged_server()

    async def first_page() -> tuple[int, str | None]:
        with anyio.fail_after(20):
            async with Client(target) as raw:
                page = await raw.list_resources()
        return len(page.resources), page.next_cursor

    # The server really pages (10 per page), so a host that read one page would see 10.
    page_size, cursor = anyio.run(first_page)
    assert page_size == 10
    assert cursor is not None

    with SdkMcpClient({"paged": target}, log_dir=logs) as client:
        server = only_server(client.discover())

    assert server.ok, server.error
    assert type_counts(server) == {"tool": 10, "resource": 100, "resource_template": 1, "prompt": 3}
    uris = [c.uri for c in server.capabilities if c.type == "resource"]
    assert uris == [f"test://static/resource/{n}" for n in range(1, 101)]


def test_server_everything_over_streamable_http_is_discovered_and_called_by_url(
    everything_http_url: str, logs: Path
) -> None:
    with SdkMcpClient({"web": everything_http_url}, log_dir=logs) as client:
        server = only_server(client.discover())
        echo = client.call_tool("web", "echo", {"message": "over http"})
        weather = client.call_tool("web", "get-structured-content", {"location": "Chicago"})

    assert server.ok, server.error
    assert server.protocol_version == "2025-11-25"
    assert type_counts(server) == EVERYTHING_COUNTS
    assert echo.success, echo.error
    assert [item.text for item in echo.content] == ["Echo: over http"]
    assert weather.structured == {"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82}


def test_server_everythings_question_reaches_the_handler_as_the_operators_and_reads_as_a_form(
    logs: Path,
) -> None:
    """Its elicitation tool (offered only to a client that can ask) sends the older,
    server-initiated `elicitation/create` with every kind of field the protocol has."""
    asked: list[tuple[CallOwner | None, list[FormField]]] = []

    async def fill_in(server: str, request: ElicitRequestParams) -> ElicitResult:
        assert isinstance(request, ElicitRequestFormParams)
        fields = form_fields(request.requested_schema)
        asked.append((call_owner(), fields))
        answer = form_defaults(request.requested_schema) | {"name": "Ada Lovelace"}
        assert check_answer(fields, answer) == []
        return ElicitResult(action="accept", content=answer)

    owner = CallOwner(thread_id="t-everything", requester="operator")
    target = {"everything": everything_server()}
    with SdkMcpClient(target, log_dir=logs, elicitation=fill_in) as client, on_behalf_of(owner):
        result = client.call_tool("everything", "trigger-elicitation-request", {})

    assert result.success, result.error
    assert "- Name: Ada Lovelace" in " ".join(item.text or "" for item in result.content)
    [(whose, fields)] = asked
    assert whose == owner
    kinds = {f.name: f.kind for f in fields}
    assert kinds["name"] == "string" and kinds["check"] == "boolean" and kinds["integer"] == "integer"
    assert kinds["titledSingleSelectEnum"] == "choice" and kinds["titledMultipleSelectEnum"] == "choices"
    legacy = next(f for f in fields if f.name == "legacyTitledEnum")
    assert legacy.options[0] == ("pet-1", "Cats")
