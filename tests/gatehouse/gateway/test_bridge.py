"""`gatehouse bridge URL`, before anything is started: the token only from the environment, an
http(s) address only, and plain http only to this machine, each refusal one line and exit 2;
and the stdio side offers what the endpoint offered (everything while it is not known).

The bridge at work, through real processes: tests/gatehouse/test_mcp_bridge.py."""

from __future__ import annotations

import httpx2
import mcp_types as types
import pytest

from gatehouse.errors import ConfigurationError
from gatehouse.gateway.bridge import FORWARDED, bridge_server
from gatehouse.gateway.upstream import Endpoint, Upstream, endpoint_from
from gatehouse.settings import BRIDGE_TOKEN_ENV as TOKEN_ENV
from tests.cli_support import run_cli

LOCAL = "http://127.0.0.1:8765/mcp"


@pytest.mark.parametrize(
    "url", [LOCAL, "http://localhost:8765/mcp", "http://[::1]:8765/mcp", "https://gatehouse.example.com/mcp"]
)
def test_https_anywhere_and_http_to_this_machine_are_accepted(url: str) -> None:
    assert endpoint_from(url, {TOKEN_ENV: " gth_token\n"}) == Endpoint(url=url, token="gth_token")


@pytest.mark.parametrize("environ", [{}, {TOKEN_ENV: ""}, {TOKEN_ENV: "  "}])
def test_without_a_token_the_variable_and_how_to_get_one_are_named(environ: dict[str, str]) -> None:
    with pytest.raises(ConfigurationError) as refused:
        endpoint_from(LOCAL, environ)

    assert refused.value.message.startswith(f"{TOKEN_ENV} is not set")
    assert "`gatehouse tokens issue USER`" in refused.value.message
    assert refused.value.exit_code == 2


@pytest.mark.parametrize("url", ["http://gatehouse.example.com/mcp", "http://10.0.0.5:8765/mcp"])
def test_plain_http_to_another_machine_is_refused(url: str) -> None:
    with pytest.raises(ConfigurationError, match="in clear; use https"):
        endpoint_from(url, {TOKEN_ENV: "gth_token"})


@pytest.mark.parametrize("url", ["127.0.0.1:8765/mcp", "ftp://127.0.0.1/mcp", "https:///mcp"])
def test_an_address_that_is_not_http_is_refused(url: str) -> None:
    with pytest.raises(ConfigurationError, match="not an http"):
        endpoint_from(url, {TOKEN_ENV: "gth_token"})


def test_the_command_refuses_in_one_line_with_exit_2() -> None:
    ran = run_cli("bridge", "http://gatehouse.example.com/mcp", env={TOKEN_ENV: "gth_token"})

    assert ran.returncode == 2
    assert ran.stdout == ""
    assert ran.stderr.count("\n") == 1 and "use https" in ran.stderr and "gth_token" not in ran.stderr


def upstream_offering(capabilities: types.ServerCapabilities | None) -> Upstream:
    upstream = Upstream(Endpoint(url=LOCAL, token="gth_token"), httpx2.AsyncClient())
    upstream.capabilities = capabilities
    return upstream


def test_the_bridge_offers_what_the_endpoint_offered() -> None:
    server = bridge_server(upstream_offering(types.ServerCapabilities(tools=types.ToolsCapability())))

    offered = {method for method in FORWARDED if server.get_request_handler(method) is not None}
    assert offered == {"tools/list", "tools/call"}


def test_while_the_endpoint_is_not_known_everything_is_offered() -> None:
    server = bridge_server(upstream_offering(None))

    assert all(server.get_request_handler(method) is not None for method in FORWARDED)
    assert set(FORWARDED) == {
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "prompts/list",
        "prompts/get",
    }
