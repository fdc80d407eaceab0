"""A server may declare resources or prompts and still not serve every optional list method
(resources/templates/list answered with -32601, prompts/list failing, resources/list never
answering). Each such gap is recorded on that server (which method, what error) and the rest
of the server works: its tools are listed and callable. Real servers
(tests/mcp_host/partial_server.py) from stdio entries, served in-process
(tests/in_process_servers.py) with each entry's own timeout, one pool for the module."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from mcp_host.config import StdioServer
from mcp_host.manifest import Manifest, ServerManifest
from mcp_host.sdk_client import SdkMcpClient
from tests.in_process_servers import serve_test_servers_in_process
from tests.mcp_host.helpers import REPO_ROOT

# Long enough for a listing on a loaded machine, short enough that the hanging one costs little.
HANG_TIMEOUT = 1.5


def partial(name: str, *modes: str, timeout: float | None = None) -> StdioServer:
    return StdioServer(
        name=name,
        command=sys.executable,
        args=["-m", "tests.mcp_host.partial_server", *modes],
        cwd=str(REPO_ROOT),
        timeout=timeout,
    )


SERVERS = {
    # Declares resources, serves resources/list, answers templates with -32601.
    "glossary": partial("glossary"),
    "failing_prompts": partial("failing_prompts", "--templates", "served", "--prompts", "error"),
    "unlisted_prompts": partial("unlisted_prompts", "--templates", "served", "--prompts", "missing"),
    "silent_resources": partial(
        "silent_resources", "--resources", "hang", "--templates", "served", timeout=HANG_TIMEOUT
    ),
}


@pytest.fixture(scope="module")
def pool() -> Iterator[SdkMcpClient]:
    with pytest.MonkeyPatch.context() as patch:
        serve_test_servers_in_process(patch)
        with SdkMcpClient(SERVERS, connect_timeout=30) as opened:
            yield opened


@pytest.fixture(scope="module")
def manifest(pool: SdkMcpClient) -> Manifest:
    return pool.discover(fresh=True)


def _server(manifest: Manifest, name: str) -> ServerManifest:
    found = manifest.server(name)
    assert found is not None
    return found


def _kinds(server: ServerManifest) -> dict[str, list[str]]:
    kinds: dict[str, list[str]] = {}
    for capability in server.capabilities:
        kinds.setdefault(capability.type, []).append(capability.name)
    return kinds


def test_a_server_answering_method_not_found_to_templates_keeps_its_tools_resources_and_prompts(
    manifest: Manifest,
) -> None:
    glossary = _server(manifest, "glossary")

    assert glossary.ok, glossary.error
    assert _kinds(glossary) == {"tool": ["lookup"], "resource": ["glossary"], "prompt": ["define"]}


def test_the_missing_templates_method_is_recorded_with_its_error(manifest: Manifest) -> None:
    [gap] = _server(manifest, "glossary").missing

    assert gap.method == "resources/templates/list"
    assert gap.error.kind == "protocol"
    assert "-32601" in gap.error.message


def test_a_tool_of_a_server_missing_an_optional_method_is_callable(
    pool: SdkMcpClient, manifest: Manifest
) -> None:
    result = pool.call_tool("glossary", "lookup", {"word": "gate"})

    assert result.success, result.error
    assert "gate: a word" in str(result.content)


def test_a_prompts_listing_that_fails_is_recorded_and_the_rest_of_the_server_is_listed(
    manifest: Manifest,
) -> None:
    server = _server(manifest, "failing_prompts")

    assert server.ok, server.error
    assert _kinds(server) == {"tool": ["lookup"], "resource": ["glossary"], "resource_template": ["entry"]}
    [gap] = server.missing
    assert gap.method == "prompts/list"
    assert "the prompt store is offline" in gap.error.message


def test_a_prompts_listing_answered_method_not_found_costs_only_the_prompts(manifest: Manifest) -> None:
    server = _server(manifest, "unlisted_prompts")

    assert server.ok, server.error
    assert [gap.method for gap in server.missing] == ["prompts/list"]
    assert "tool" in _kinds(server) and "prompt" not in _kinds(server)


def test_a_resources_listing_that_never_answers_times_out_alone(manifest: Manifest) -> None:
    server = _server(manifest, "silent_resources")

    assert server.ok, server.error
    assert _kinds(server)["tool"] == ["lookup"]
    assert "resource" not in _kinds(server)
    [gap] = server.missing
    assert (gap.method, gap.error.kind) == ("resources/list", "timeout")


def test_a_server_missing_an_optional_method_is_partial_in_its_health(
    pool: SdkMcpClient, manifest: Manifest
) -> None:
    health = {entry.name: entry for entry in pool.health()}

    assert health["glossary"].listing == "partial"
    assert health["glossary"].connection == "connected"
    assert [gap.method for gap in health["glossary"].missing] == ["resources/templates/list"]


def test_gaps_in_optional_methods_are_not_server_problems(manifest: Manifest) -> None:
    # problems() is what fails a request's discovery and the eval's peers: a gap is not one.
    assert manifest.problems() == []
