"""Each caller of `gatehouse serve` is held to the policy's requests a minute ([gateway]), across
two endpoints on one database as across replicas: the request over the limit is answered 429
with Retry-After before its MCP message is read (the send it carries opens no review), one
line is logged naming the caller and never the token, and another caller is not held back.

The endpoints run in this process over two sets of services on one SQLite file
(tests/gatehouse/gateway/gateway_support.py), the bundled servers in-process."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest

from gatehouse.wiring import open_services
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from tests.gatehouse.gateway.gateway_support import serving_gateway
from tests.reviews.review_support import policy_file, settings_for

LIMIT = 3
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "filesystem__list_directory"}}
SEND = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "email__send_email", "arguments": {"to": "bob@example.com", "body": "hi"}},
}


def post(url: str, token: str, message: dict[str, Any]) -> httpx.Response:
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    return httpx.post(url, json=message, headers=headers, timeout=60)


def test_a_caller_over_the_policys_limit_is_answered_429_on_every_replica_before_its_call_is_read(
    data_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    policy = policy_file(
        data_dir, "policy.toml", ("requests_per_minute = 120", f"requests_per_minute = {LIMIT}")
    )
    settings = settings_for(data_dir, policy=policy)
    caplog.set_level(logging.WARNING, logger="gatehouse.gateway.rate_limit")
    with (
        SdkMcpClient(build_all(data_dir)) as mcp,
        open_services(settings, mcp=mcp) as first,
        open_services(settings, mcp=mcp) as second,
        serving_gateway(first) as one,
        serving_gateway(second) as other,
    ):
        token = one.token("operator")
        answered = [post(url, token, LIST) for url in (one.url, other.url, one.url)]
        assert [answer.status_code for answer in answered] == [200] * LIMIT
        assert all("notes.md" in answer.text for answer in answered)

        refused = post(other.url, token, SEND)
        assert refused.status_code == 429
        # A sliding minute: the three just made count fully until this clock minute ends.
        assert 1 <= int(refused.headers["retry-after"]) <= 120
        assert "more than 3 requests in a minute" in refused.json()["error_description"]
        assert first.ledger.queue() == []  # the send was never read: no review opened

        assert post(one.url, one.token("reviewer"), LIST).status_code == 200

    [line] = [
        record.getMessage() for record in caplog.records if record.name == "gatehouse.gateway.rate_limit"
    ]
    assert line.startswith("operator is over the limit of 3 MCP requests a minute: answered 429")
    assert token not in caplog.text


def test_a_roles_own_limit_in_the_policy_wins_over_the_default(data_dir: Path) -> None:
    policy = policy_file(
        data_dir,
        "policy.toml",
        ("requests_per_minute = 120", "requests_per_minute = 1"),
        ("# [gateway.roles]", "[gateway.roles]\nreviewer = 2\n# "),
    )
    with (
        SdkMcpClient(build_all(data_dir)) as mcp,
        open_services(settings_for(data_dir, policy=policy), mcp=mcp) as services,
        serving_gateway(services) as endpoint,
    ):
        operator, reviewer = endpoint.token("operator"), endpoint.token("reviewer")
        assert [post(endpoint.url, operator, LIST).status_code for _ in range(2)] == [200, 429]
        assert [post(endpoint.url, reviewer, LIST).status_code for _ in range(3)] == [200, 200, 429]
