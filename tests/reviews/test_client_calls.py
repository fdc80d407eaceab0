"""An MCP client's own call (`gatehouse serve`, docs/mcp-gateway.md) goes through the same graph
and policy as an operator's request: the client names the capability and supplies the
arguments, which the policy judges as proposed (stated by the caller, nothing derived); an
allowed call runs, a refused one is refused with the rule's reason, one that needs a reviewer
waits in the ledger as the caller's, and a reviewer's approval runs it once. In-process: the
bundled servers run inside the test through the SDK client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gatehouse.wiring import Services, open_services
from graph.planner.client_call import SUPPLIED_BY_CLIENT
from mcp_host.sdk_client import SdkMcpClient
from reviews.errors import NotAllowedError
from servers.catalog import build_all
from tests.reviews.review_support import policy_file, settings_for

MAIL = {"to": "bob@example.com", "body": "hi from an agent"}
DENY_GREETINGS = (
    '[[rules]]\nname = "shell access"\n',
    '[[rules]]\nname = "no greetings"\nmatch = ["greeter__*"]\naction = "deny"\n'
    'explanation = "Agents do not greet people here."\n\n[[rules]]\nname = "shell access"\n',
)


@pytest.fixture
def services(data_dir: Path) -> Iterator[Services]:
    policy = policy_file(data_dir, "policy.toml", DENY_GREETINGS)
    settings = settings_for(data_dir, policy=policy)
    with SdkMcpClient(build_all(data_dir)) as mcp, open_services(settings, mcp=mcp) as opened:
        yield opened


def test_an_allowed_read_runs_with_the_clients_arguments_as_stated(services: Services) -> None:
    run = services.requests.call("filesystem__list_directory", {}, requester="operator", client="agent")

    assert run.final_output.status == "ok"
    assert run.state["mcp_result"]["success"] is True
    assert "notes.md" in run.state["mcp_result"]["content"][0]["text"]
    assert services.requests.thread_owner(run.final_output.thread_id) == "operator"


def test_a_send_waits_in_the_ledger_as_the_callers_with_the_arguments_it_supplied(services: Services) -> None:
    run = services.requests.call("email__send_email", MAIL, requester="operator", client="agent")

    assert run.final_output.status == "needs_review" and run.pending is not None
    review = services.ledger.get(run.pending["review_id"])
    assert review is not None and review.status == "pending"
    assert review.requester == "operator"
    assert run.pending["arguments"] == MAIL
    provenance = run.state["argument_provenance"]
    assert {name: p["kind"] for name, p in provenance.items()} == {"to": "stated", "body": "stated"}
    assert {p["how"] for p in provenance.values()} == {SUPPLIED_BY_CLIENT}
    assert "An MCP client (agent) called email__send_email" in run.state["request_text"]


def test_a_reviewers_approval_runs_the_clients_call_once(services: Services) -> None:
    run = services.requests.call("email__send_email", MAIL, requester="operator", client="agent")
    assert run.pending is not None

    decided = services.reviews.decide(run.pending["review_id"], reviewer="reviewer", approve=True)

    assert decided.run is not None and decided.run.final_output.status == "ok"
    assert decided.run.state["mcp_result"]["success"] is True
    assert services.ledger.started(run.pending["review_id"])


def test_a_refused_call_carries_the_rules_reason(services: Services) -> None:
    run = services.requests.call("greeter__greet", {"name": "Ann"}, requester="operator")

    assert run.state["capability_validation"]["decision"] == "deny"
    assert run.state["mcp_result"] is None
    assert "Agents do not greet people here." in " ".join(run.final_output.errors)


def test_someone_off_the_roster_may_not_call(services: Services) -> None:
    with pytest.raises(NotAllowedError, match="'mallory' may not make requests"):
        services.requests.call("filesystem__list_directory", {}, requester="mallory")
