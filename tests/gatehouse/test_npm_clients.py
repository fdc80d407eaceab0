"""Clients Gatehouse did not write, from npm, calling through `gatehouse serve` (issue 35,
"Proven by outsiders"):

- the TypeScript SDK's client (@modelcontextprotocol/client, with the tasks extension from
  @modelcontextprotocol/ext-tasks) lists the tools, calls an allowed one, and follows the task
  its e-mail gets until a reviewer approves; it receives the approved result once, and the
  e-mail is sent once;
- the MCP Inspector's CLI mode lists the tools and calls an allowed one, the token in its
  header.

The decision is taken by `gatehouse reviews decide`, another process on the same database, as
in test_mcp_gateway_waits.py. tests/browser/test_ts_client_task.py has a reviewer approve in
Chromium instead."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gatehouse.gateway_support import Gateway, gatehouse_serve, issue_token, servers_file
from tests.gatehouse.npm_clients import inspector, typescript_client

pytestmark = [pytest.mark.processes, pytest.mark.peers]

SEND = "email__send_email"
OFFERED = ["filesystem__list_directory", "filesystem__read_file", "filesystem__write_file", SEND]
SAMPLE = "This is a sample file in the managed project folder.\n"


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    data = tmp_path_factory.mktemp("npm-clients") / "data"
    data.mkdir()
    servers = servers_file(data)
    with gatehouse_serve(data, servers, "--wait", "60") as url:
        yield Gateway(data, servers, url, url, {"operator": issue_token(data, servers, "operator")})


def test_the_typescript_sdks_client_follows_its_task_to_the_approved_result_once(
    gateway: Gateway, tmp_path: Path
) -> None:
    body = "sent by the TypeScript client once approved"
    with typescript_client(gateway.patient, gateway.tokens["operator"], body, tmp_path) as agent:
        connected = agent.expect("connected")
        assert connected == {"event": "connected", "era": "modern", "tasks": True}
        assert agent.expect("tools")["names"] == OFFERED
        allowed = agent.expect("allowed")["result"]
        assert allowed["isError"] is False
        assert {entry["name"] for entry in allowed["structuredContent"]["entries"]} >= {"sample.txt"}

        handle = agent.expect("task")["task"]
        assert (handle["resultType"], handle["status"]) == ("task", "working")
        [review] = gateway.ledger_reviews(body)
        assert review.status == "pending"
        assert f"review {review.id}" in handle["statusMessage"]
        gateway.decide(review.id, "--approve")

        rest = agent.finish()
    polled = [line["task"] for line in agent.seen if line["event"] == "task"]
    assert {task["taskId"] for task in polled} == {handle["taskId"]}
    assert [task["status"] for task in polled][-1] == "completed"
    [result] = [line for line in agent.seen if line["event"] == "result"]
    assert rest[-1] == result, rest
    assert result["kind"] == "task"
    assert result["result"]["isError"] is False
    assert result["result"]["structuredContent"]["queued"] is True
    assert gateway.sent(body) == 1
    [review] = gateway.ledger_reviews(body)
    assert review.status == "executed"


def test_the_mcp_inspectors_cli_lists_the_tools_through_the_endpoint(
    gateway: Gateway, tmp_path: Path
) -> None:
    listed = inspector(gateway.patient, gateway.tokens["operator"], tmp_path, "--method", "tools/list")
    assert [tool["name"] for tool in listed["tools"]] == OFFERED
    [send] = [tool for tool in listed["tools"] if tool["name"] == SEND]
    assert "through Gatehouse" in send["description"]


def test_the_mcp_inspectors_cli_calls_an_allowed_tool_through_the_endpoint(
    gateway: Gateway, tmp_path: Path
) -> None:
    called = inspector(
        gateway.patient,
        gateway.tokens["operator"],
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        "filesystem__read_file",
        "--tool-arg",
        "path=sample.txt",
    )
    assert called["isError"] is False
    assert called["structuredContent"] == {"path": "sample.txt", "content": SAMPLE, "size": len(SAMPLE)}
