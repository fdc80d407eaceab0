"""What an MCP client is answered through `gatehouse serve`, in this process: an allowed call's
result; a refusal with the rule and its reason; arguments the schema does not take, or a
required one left out, refused before anything is opened (no thread waits for an answer a
client cannot give); a tool no server offers, named."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_types import CallToolResult, TextContent

from gatehouse.gateway.calls import claim_call, run_claimed
from gatehouse.gateway.client_calls import Claim, ClientCalls
from gatehouse.wiring import Services, open_services
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from tests.reviews.review_support import policy_file, settings_for
from tests.reviews.test_client_calls import DENY_GREETINGS


@pytest.fixture
def services(data_dir: Path) -> Iterator[Services]:
    settings = settings_for(data_dir, policy=policy_file(data_dir, "policy.toml", DENY_GREETINGS))
    with SdkMcpClient(build_all(data_dir)) as mcp, open_services(settings, mcp=mcp) as opened:
        yield opened


def answer_call(
    services: Services, key: str, arguments: dict[str, object], *, requester: str
) -> CallToolResult:
    """The call's answer when it has one at once (these calls never wait for a reviewer): the
    gateway's own path, claimed then run, as tools/call takes it."""
    calls = ClientCalls(services.ledger.database)
    claimed = claim_call(services, calls, key, arguments, requester=requester)
    if not isinstance(claimed, Claim):
        return claimed
    assert claimed.opened, claimed
    answer = run_claimed(services, calls, claimed.call, arguments)
    assert isinstance(answer, CallToolResult), answer
    calls.close(claimed.call.id, "delivered")
    return answer


def text_of(result: object) -> str:
    content = getattr(result, "content", [])
    return "\n".join(item.text for item in content if isinstance(item, TextContent))


def test_an_allowed_call_returns_the_servers_result(services: Services) -> None:
    result = answer_call(services, "filesystem__read_file", {"path": "notes.md"}, requester="operator")

    assert not result.is_error
    assert text_of(result).strip()


def test_a_refused_call_names_the_rule_and_its_reason(services: Services) -> None:
    result = answer_call(services, "greeter__greet", {"name": "Ann"}, requester="operator")

    assert result.is_error
    assert "rule no greetings" in text_of(result) and "Agents do not greet people here." in text_of(result)


def test_wrong_arguments_are_refused_before_anything_is_opened(services: Services) -> None:
    missing = answer_call(services, "email__send_email", {"to": "bob@example.com"}, requester="operator")
    wrong = answer_call(
        services, "email__send_email", {"to": "bob@example.com", "body": 3}, requester="operator"
    )

    assert missing.is_error and "required argument 'body' is missing" in text_of(missing)
    assert wrong.is_error and "argument body" in text_of(wrong)
    assert services.ledger.count() == 0
    assert [e.kind for e in services.audit.events() if e.kind == "request"] == []


def test_a_tool_no_server_offers_is_named(services: Services) -> None:
    result = answer_call(services, "nowhere__nothing", {}, requester="operator")

    assert result.is_error and "nowhere__nothing" in text_of(result)
