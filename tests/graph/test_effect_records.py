"""Reading back what a send or an update did (graph/effect_readback.py check_effect, through
graph/effect_records.py): the message by the id the send returned, the record by the id the
update named, through the server's own resource template or read tool, compared with the
approved arguments.

The bundled e-mail and tickets servers run in this process (the ``client`` fixture), and so
does an issue tracker shaped like @modelcontextprotocol/server-github (``update_issue`` and
``get_issue``, unannotated, answering JSON text), declared with the policy text docs/effects.md
shows for it. What changes a record between the call and its read-back is the test, editing
the server's own files."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from graph.effect_readback import check_effect
from graph.state import EffectCheckData, McpRequest
from mcp_host.errors import ErrorInfo
from mcp_host.results import McpResult
from mcp_host.sdk_client import SdkMcpClient
from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY, parse_policy_text
from tests.fakes import FaultInjectingClient
from tests.support import DEFAULT_TEST_POLICY

DOCS = Path(__file__).resolve().parents[2] / "docs" / "effects.md"
MESSAGE = {
    "to": "bob@example.com",
    "cc": ["carol@example.org"],
    "subject": "Lunch",
    "body": "See you at noon",
}


@pytest.fixture
def policy() -> PolicyEngine:
    return PolicyEngine(DEFAULT_TEST_POLICY)


def _call(
    client: Any, policy: PolicyEngine, server: str, name: str, arguments: dict[str, Any]
) -> tuple[McpRequest, McpResult]:
    result = client.call_tool(server, name, arguments)
    assert result.success, result.error
    request = McpRequest(
        server=server,
        capability_key=f"{server}__{name}",
        capability_type="tool",
        method="tools/call",
        name=name,
        arguments=arguments,
    )
    return request, result


def _checked(client: Any, policy: PolicyEngine, request: McpRequest, result: McpResult) -> EffectCheckData:
    check = check_effect(client, policy, request, result)
    assert check is not None
    return check


def _outbox(data_dir: Path) -> Path:
    return data_dir / "outbox.jsonl"


# -- e-mail ----------------------------------------------------------------------------------------


def test_a_sent_message_is_read_back_by_the_id_the_send_returned_and_verified(
    client: FaultInjectingClient, policy: PolicyEngine
) -> None:
    request, result = _call(client, policy, "email", "send_email", MESSAGE)

    check = _checked(client, policy, request, result)

    sent = result.structured["id"] if result.structured else None
    assert check == {"status": "verified", "detail": f"mail://sent/{sent} on email is the approved message"}
    assert client.calls[-1] == ("email", f"mail://sent/{sent}", None)


def test_a_message_edited_in_the_outbox_after_the_send_is_a_mismatch_naming_what_differs(
    client: FaultInjectingClient, policy: PolicyEngine, data_dir: Path
) -> None:
    request, result = _call(client, policy, "email", "send_email", MESSAGE)
    [line] = _outbox(data_dir).read_text(encoding="utf-8").splitlines()
    edited = json.loads(line) | {"to": "mallory@example.com", "body": "See you at one"}
    _outbox(data_dir).write_text(json.dumps(edited) + "\n", encoding="utf-8")

    check = _checked(client, policy, request, result)

    assert check["status"] == "mismatch"
    assert check["detail"].endswith(
        "is not the approved message after email__send_email sent it: its to, body differ"
    )


def test_a_message_gone_from_the_outbox_is_a_mismatch_not_a_failed_read(
    client: FaultInjectingClient, policy: PolicyEngine, data_dir: Path
) -> None:
    request, result = _call(client, policy, "email", "send_email", MESSAGE)
    _outbox(data_dir).write_text("", encoding="utf-8")

    check = _checked(client, policy, request, result)

    assert check["status"] == "mismatch"
    assert re.fullmatch(
        r"mail://sent/\w+ on email is not there after email__send_email sent it", check["detail"]
    )


def test_a_send_whose_result_carries_no_id_is_not_verified_and_nothing_is_read(
    client: FaultInjectingClient, policy: PolicyEngine
) -> None:
    request, result = _call(client, policy, "email", "send_email", MESSAGE)
    reads = len(client.calls)

    check = _checked(client, policy, request, result.model_copy(update={"structured": None}))

    assert check == {
        "status": "not_verified",
        "detail": "the effect of email__send_email was not verified: no value for id (result.id)",
    }
    assert len(client.calls) == reads


def test_a_read_that_times_out_is_not_verified_whatever_its_message_says(
    demo_servers: SdkMcpClient, policy: PolicyEngine
) -> None:
    def timed_out(server: str, capability_type: str, name: str) -> McpResult:
        error = ErrorInfo(kind="timeout", message="ticket not found in time", may_have_run=True)
        return McpResult.failure(server, capability_type, name, error)

    client = FaultInjectingClient(demo_servers, faults={"ticket://7": [timed_out]})
    request, result = _call(client, policy, "tickets", "update_ticket", {"id": 7, "status": "closed"})

    check = _checked(client, policy, request, result)

    assert check == {
        "status": "not_verified",
        "detail": "the effect of tickets__update_ticket was not verified: tickets__ticket: ticket not found in time",
    }


# -- tickets ---------------------------------------------------------------------------------------


def test_a_ticket_update_is_read_back_by_the_id_it_named_and_verified_on_the_fields_it_set(
    client: FaultInjectingClient, policy: PolicyEngine
) -> None:
    request, result = _call(
        client,
        policy,
        "tickets",
        "update_ticket",
        {"id": 7, "priority": "urgent", "note": " customer called "},
    )

    check = _checked(client, policy, request, result)

    assert check == {
        "status": "verified",
        "detail": "ticket://7 on tickets holds the approved priority, note",
    }
    assert client.calls[-1] == ("tickets", "ticket://7", None)


def test_a_ticket_changed_in_its_database_after_the_update_is_a_mismatch_naming_each_field(
    client: FaultInjectingClient, policy: PolicyEngine, data_dir: Path
) -> None:
    request, result = _call(
        client, policy, "tickets", "update_ticket", {"id": 7, "status": "closed", "note": "refund sent"}
    )
    with sqlite3.connect(data_dir / "tickets.db") as db:
        db.execute("UPDATE tickets SET status = 'pending' WHERE id = 7")
        db.execute("DELETE FROM ticket_notes WHERE ticket_id = 7")
    db.close()

    check = _checked(client, policy, request, result)

    assert check == {
        "status": "mismatch",
        "detail": "ticket://7 on tickets does not hold what was approved after tickets__update_ticket changed it: "
        'status is "pending", not "closed"; notes does not hold "refund sent"',
    }


# -- a third-party server, declared in the policy alone ------------------------------------------


def _issue_tracker(issues: dict[int, dict[str, Any]], *, marks_reads: bool = True) -> MCPServer:
    """Shaped like the GitHub MCP server's issue tools: the issue answered as JSON text, the
    read marked read-only (or, like the older @modelcontextprotocol/server-github, nothing
    marked)."""
    server = MCPServer("github")
    read_only = ToolAnnotations(title="Get issue details", read_only_hint=True) if marks_reads else None
    writes = ToolAnnotations(title="Edit issue", read_only_hint=False) if marks_reads else None

    @server.tool(
        description="Update an existing issue in a GitHub repository.",
        annotations=writes,
        structured_output=False,
    )
    def update_issue(
        owner: str, repo: str, issue_number: int, state: str | None = None, title: str | None = None
    ) -> str:
        issue = issues[issue_number]
        issue.update({k: v for k, v in {"state": state, "title": title}.items() if v is not None})
        return json.dumps(issue)

    @server.tool(
        description="Get details of a specific issue in a GitHub repository.",
        annotations=read_only,
        structured_output=False,
    )
    def get_issue(owner: str, repo: str, issue_number: int) -> str:
        return json.dumps(issues[issue_number] | {"labels": [{"name": "bug"}]})

    return server


def _github_policy() -> PolicyEngine:
    """The shipped policy with the declaration docs/effects.md gives for the GitHub server."""
    blocks = re.findall(r"```toml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    [github] = [block for block in blocks if "github__update_issue" in block]
    text = DEFAULT_POLICY.read_text(encoding="utf-8") + "\n" + github
    return PolicyEngine(
        parse_policy_text(text, source="docs/effects.md", variables={"GATEHOUSE_DATA": "/nonexistent"})
    )


UPDATE = {"owner": "acme", "repo": "app", "issue_number": 12, "state": "closed"}


@pytest.mark.parametrize(("drifted", "status"), [(False, "verified"), (True, "mismatch")])
def test_a_third_party_update_declared_in_the_policy_alone_is_read_back_with_its_get_tool(
    drifted: bool, status: str
) -> None:
    issues = {12: {"number": 12, "state": "open", "title": "Crash on start"}}
    policy = _github_policy()
    with SdkMcpClient({"github": _issue_tracker(issues)}) as pool:
        client = FaultInjectingClient(pool)
        request, result = _call(client, policy, "github", "update_issue", UPDATE)
        if drifted:
            issues[12]["state"] = "open"

        check = _checked(client, policy, request, result)

    assert check["status"] == status
    if drifted:
        assert check["detail"].endswith('state is "open", not "closed"')
    else:
        assert (
            check["detail"]
            == "get_issue(owner=acme, repo=app, issue_number=12) on github holds the approved state"
        )
    assert client.calls[-1] == ("github", "get_issue", {"owner": "acme", "repo": "app", "issue_number": 12})


def test_a_third_party_read_that_is_not_marked_read_only_is_not_run_and_says_which_rule_held_it() -> None:
    issues = {12: {"number": 12, "state": "open", "title": "Crash on start"}}
    policy = _github_policy()
    with SdkMcpClient({"github": _issue_tracker(issues, marks_reads=False)}) as pool:
        client = FaultInjectingClient(pool)
        request, result = _call(client, policy, "github", "update_issue", UPDATE)

        check = _checked(client, policy, request, result)

    assert check == {
        "status": "not_verified",
        "detail": "the effect of github__update_issue was not verified: "
        "reading it with github__get_issue would need a review by rule unannotated tools",
    }
    assert [name for _, name, _ in client.calls] == ["update_issue"]
