"""What `gatehouse serve` offers each caller, and resources and prompts through the policy, as
the MCP Python SDK's client meets them over Streamable HTTP (the endpoint in this process,
tests/gatehouse/gateway/gateway_support.py; the bundled servers in-process).

The policy: the shipped one, with greetings refused, the quarterly report refused, reads of
sent mail sent to a reviewer, and an auditor whose role may not make requests.

- Two callers with different roles are offered different lists: the operator everything but
  what is refused whatever the arguments, the auditor nothing; a call to what is not listed
  gets the same refusal as before, naming the rule.
- Resources, resource templates and prompts are listed under their keys, at the endpoint's
  own URIs; a read and a prompt the policy allows return the server's contents and messages;
  a refused read is a JSON-RPC error naming the rule; one that needs a reviewer names the
  review it opened in the ledger as the caller's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import TextContent, TextResourceContents

from gatehouse.gateway.reads import NEEDS_REVIEW, REFUSED
from gatehouse.gateway.resource_uris import resource_uri
from gatehouse.wiring import Services, open_services
from mcp_host.sdk_client import SdkMcpClient
from servers.catalog import build_all
from tests.gatehouse.gateway.gateway_support import Gateway, serving_gateway
from tests.reviews.review_support import policy_file, settings_for

_T = TypeVar("_T")

RULES = (
    '[[rules]]\nname = "shell access"\n',
    '[[rules]]\nname = "no greetings"\nmatch = ["greeter__*"]\naction = "deny"\n'
    'explanation = "Agents do not greet people here."\n\n'
    '[[rules]]\nname = "no reports"\nmatch = ["documents__quarterly-report"]\naction = "deny"\n'
    'explanation = "Reports stay inside."\n\n'
    '[[rules]]\nname = "sent mail"\nmatch = ["email__outbox_entry"]\naction = "review"\n'
    'explanation = "What was sent is read with a reviewer."\n\n'
    '[[rules]]\nname = "shell access"\n',
)
AUDITOR = ("[roles.operator]\n", "[roles.auditor]\nrequest = false\nreview = []\n\n[roles.operator]\n")


@pytest.fixture
def gateway(data_dir: Path) -> Iterator[tuple[Gateway, Services]]:
    policy = policy_file(data_dir, "policy.toml", RULES, AUDITOR, users={"auditor": "auditor"})
    with (
        SdkMcpClient(build_all(data_dir)) as mcp,
        open_services(settings_for(data_dir, policy=policy), mcp=mcp) as services,
        serving_gateway(services) as served,
    ):
        yield served, services


def run(work: Callable[[], Awaitable[_T]]) -> _T:
    async def bounded() -> _T:
        with anyio.fail_after(120):
            return await work()

    return anyio.run(bounded)


def text_of(content: list[Any]) -> str:
    return "\n".join(item.text for item in content if isinstance(item, TextContent))


async def offer(gateway: Gateway, user: str) -> dict[str, list[str]]:
    async with gateway.client(user) as client:
        return {
            "tools": [t.name for t in (await client.list_tools()).tools],
            "resources": [r.name for r in (await client.list_resources()).resources],
            "templates": [t.name for t in (await client.list_resource_templates()).resource_templates],
            "prompts": [p.name for p in (await client.list_prompts()).prompts],
        }


def test_two_callers_with_different_roles_are_offered_different_lists(
    gateway: tuple[Gateway, Services],
) -> None:
    served, _ = gateway

    operator = run(lambda: offer(served, "operator"))
    auditor = run(lambda: offer(served, "auditor"))

    assert {"filesystem__list_directory", "filesystem__write_file", "email__send_email"} <= set(
        operator["tools"]
    )
    assert "greeter__greet" not in operator["tools"]
    assert operator["resources"] == ["documents__support-handbook"]
    assert sorted(operator["templates"]) == ["email__outbox_entry", "tickets__ticket"]
    assert operator["prompts"] == ["prompts__summarize_tickets"]
    assert auditor == {"tools": [], "resources": [], "templates": [], "prompts": []}


def test_a_call_to_what_is_not_listed_gets_the_refusal_naming_its_rule(
    gateway: tuple[Gateway, Services],
) -> None:
    served, _ = gateway

    async def calls() -> tuple[Any, Any]:
        async with served.client("operator") as operator, served.client("auditor") as auditor:
            return (
                await operator.call_tool("greeter__greet", {"name": "Ann"}),
                await auditor.call_tool("filesystem__list_directory", {}),
            )

    greeting, listing = run(calls)

    assert greeting.is_error and "rule no greetings" in text_of(greeting.content)
    assert listing.is_error and "'auditor' may not make requests" in text_of(listing.content)


def test_resources_and_prompts_go_through_the_policy(gateway: tuple[Gateway, Services]) -> None:
    served, services = gateway
    offered = services.requests.offered()
    report = offered.find("documents__quarterly-report")
    assert report is not None

    async def reads() -> dict[str, Any]:
        async with served.client("operator") as client:
            [handbook] = (await client.list_resources()).resources
            templates = {
                t.name: t.uri_template for t in (await client.list_resource_templates()).resource_templates
            }
            answers: dict[str, Any] = {
                "handbook": (handbook.uri, await client.read_resource(handbook.uri)),
                "ticket": await client.read_resource(templates["tickets__ticket"].replace("{id}", "1")),
                "prompt": await client.get_prompt("prompts__summarize_tickets", {"priority": "high"}),
            }
            for name, uri in (
                ("report", resource_uri(report)),
                ("sent", templates["email__outbox_entry"].replace("{id}", "m-1")),
                ("nowhere", "gatehouse://resource/nowhere__nothing"),
            ):
                with pytest.raises(MCPError) as refused:
                    await client.read_resource(uri)
                answers[name] = refused.value
            return answers

    answers = run(reads)

    handbook_uri, handbook = answers["handbook"]
    [contents] = handbook.contents
    assert isinstance(contents, TextResourceContents) and contents.uri == handbook_uri
    assert contents.text.startswith("# Support handbook") and contents.mime_type == "text/markdown"
    [ticket] = answers["ticket"].contents
    assert isinstance(ticket, TextResourceContents) and '"id": 1' in ticket.text
    [message] = answers["prompt"].messages
    assert message.role == "user" and isinstance(message.content, TextContent)
    assert message.content.text.startswith("Summarize the support tickets with priority 'high'")

    assert answers["report"].code == REFUSED
    assert (
        "rule no reports" in answers["report"].message and "Reports stay inside." in answers["report"].message
    )
    [review] = services.ledger.queue("pending")
    assert (review.capability_key, review.requester) == ("email__outbox_entry", "operator")
    assert answers["sent"].code == NEEDS_REVIEW and f"Review {review.id} waits" in answers["sent"].message
    assert answers["sent"].data["review_id"] == review.id
    assert answers["nowhere"].code == -32602


def test_an_argument_a_prompt_does_not_take_is_refused_before_anything_is_opened(
    gateway: tuple[Gateway, Services],
) -> None:
    served, services = gateway

    async def ask() -> MCPError:
        async with served.client("operator") as client:
            with pytest.raises(MCPError) as refused:
                await client.get_prompt("prompts__summarize_tickets", {"priority": "high", "owner": "bob"})
            return refused.value

    refused = run(ask)

    assert refused.code == -32602 and "owner" in refused.message
    assert services.ledger.count() == 0
