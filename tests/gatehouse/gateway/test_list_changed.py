"""`list_changed` at Gatehouse's MCP endpoint, through the MCP Python SDK's client over
Streamable HTTP (the endpoint in this process, tests/gatehouse/gateway/gateway_support.py).

The endpoint is stateless: a 2026-07-28 client is told tools, resources and prompts may change
(``subscriptions/listen`` is served) and no resource subscriptions are offered; a 2025-11-25
client, which would need a session's GET stream, is told nothing changes. A listening client
hears that its lists changed when this process adopts a newer policy (what it is offered may
differ: here a tool becomes refused, and is no longer listed), and when a configured server
says its tools changed (a server on the initialize handshake, whose notification the host's
pool hears), after which the new tool is listed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from mcp.shared.subscriptions import PromptsListChanged, ServerEvent, ToolsListChanged

from gatehouse.wiring import Services, open_services
from mcp_host.config import load_servers_config
from mcp_host.sdk_client import SdkMcpClient
from policies.loader import parse_policy_text
from servers.catalog import build_all
from tests.gatehouse.gateway.gateway_support import Gateway, serving_gateway
from tests.mcp_host.helpers import REPO_ROOT
from tests.reviews.review_support import DEFAULT_POLICY_TEXT, settings_for

HANDBOOK = "gatehouse://resource/documents__support-handbook"
NO_WRITES = (
    '[[rules]]\nname = "no writes"\nmatch = ["filesystem__write_file"]\naction = "deny"\n'
    'explanation = "Agents write nothing."\n\n'
)


@pytest.fixture
def bundled(data_dir: Path) -> Iterator[tuple[Gateway, Services]]:
    with (
        SdkMcpClient(build_all(data_dir)) as mcp,
        open_services(settings_for(data_dir), mcp=mcp) as services,
        serving_gateway(services) as served,
    ):
        yield served, services


async def tool_names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


async def events(subscription: Any, count: int) -> list[ServerEvent]:
    heard: list[ServerEvent] = []
    with anyio.fail_after(20):
        async for event in subscription:
            heard.append(event)
            if len(heard) == count:
                break
    return heard


def test_only_clients_that_can_listen_are_told_the_lists_change(bundled: tuple[Gateway, Services]) -> None:
    served, _ = bundled

    async def connect() -> dict[str, Any]:
        async with served.client("operator") as modern, served.client("operator", mode="legacy") as legacy:
            return {
                modern.protocol_version: modern.server_capabilities,
                legacy.protocol_version: legacy.server_capabilities,
            }

    told = anyio.run(connect)

    modern, legacy = told["2026-07-28"], told["2025-11-25"]
    assert modern.tools.list_changed and modern.prompts.list_changed and modern.resources.list_changed
    assert not modern.resources.subscribe
    assert not (legacy.tools.list_changed or legacy.prompts.list_changed or legacy.resources.list_changed)
    assert not legacy.resources.subscribe


def test_a_listening_client_hears_that_a_newer_policy_changed_its_lists(
    bundled: tuple[Gateway, Services],
) -> None:
    served, services = bundled
    text = DEFAULT_POLICY_TEXT.replace(
        '[[rules]]\nname = "shell access"\n', NO_WRITES + '[[rules]]\nname = "shell access"\n'
    )
    newer = parse_policy_text(
        text, source="policy v2", variables={"GATEHOUSE_DATA": str(services.settings.data_dir)}
    )

    async def listen() -> tuple[list[str], list[ServerEvent], dict[str, Any], list[str]]:
        async with served.client("operator") as client:
            before = await tool_names(client)
            async with client.listen(
                tools_list_changed=True, prompts_list_changed=True, resource_subscriptions=[HANDBOOK]
            ) as subscription:
                services.policy.adopt(newer, 2)
                heard = await events(subscription, 2)
                honored = subscription.honored.model_dump(exclude_none=True)
            return before, heard, honored, await tool_names(client)

    before, heard, honored, after = anyio.run(listen)

    assert {type(event) for event in heard} == {ToolsListChanged, PromptsListChanged}
    assert honored == {"tools_list_changed": True, "prompts_list_changed": True}
    assert "filesystem__write_file" in before and "filesystem__write_file" not in after


@pytest.mark.processes
def test_a_listening_client_hears_that_a_servers_tools_changed(data_dir: Path) -> None:
    entry = {
        "command": sys.executable,
        "args": ["-m", "tests.gatehouse.gateway.changing_server"],
        "cwd": str(REPO_ROOT),
    }
    servers = data_dir / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"changing": entry}}), encoding="utf-8")
    config = load_servers_config(servers)
    pool = SdkMcpClient({e.name: e for e in config.servers}, connect_timeout=20)

    with (
        pool,
        open_services(settings_for(data_dir), mcp=pool) as services,
        serving_gateway(services) as served,
    ):
        assert pool.health()[0].protocol_version == "2025-11-25"

        async def listen() -> tuple[list[str], list[ServerEvent], list[str]]:
            async with served.client("operator") as client:
                before = await tool_names(client)
                async with client.listen(tools_list_changed=True) as subscription:
                    # The server changes on its own (another client of it, say): here, through the pool.
                    grown = await anyio.to_thread.run_sync(pool.call_tool, "changing", "grow", {})
                    assert grown.success, grown.error
                    heard = await events(subscription, 1)
                return before, heard, await tool_names(client)

        before, heard, after = anyio.run(listen)

    assert before == ["changing__grow"]
    assert heard == [ToolsListChanged()]
    assert after == ["changing__grow", "changing__grown_1"]
