"""A write is a file write only when something about it is a file: a path-like argument, or
files in its name or description. A query's write (mcp-server-sqlite's write_query) or a note's
save changes data: "updates records", decided by the shipped "record updates" rule, never
"file writes", whose reviewer is told to check a path there is none of."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_host.manifest import Capability
from policies.engine import PolicyEngine
from policies.loader import DEFAULT_POLICY, load_policy
from policies.risk import rate
from tests.policies.test_engine import STRING, tool

WRITE_QUERY = tool(
    "write_query",
    server="shop-db",
    description="Execute an INSERT, UPDATE, or DELETE query on the SQLite database",
    properties={"query": STRING},
)


@pytest.fixture(scope="module")
def shipped() -> PolicyEngine:
    return PolicyEngine(load_policy(DEFAULT_POLICY, variables={"GATEHOUSE_DATA": "/srv/gatehouse"}))


@pytest.mark.parametrize(
    "capability",
    [
        WRITE_QUERY,
        tool("save_note", description="Save a note for later.", properties={"title": STRING, "body": STRING}),
        tool("move_card", description="Move a card to another list.", properties={"card_id": STRING}),
        tool("appendRow", properties={"sheet": STRING, "values": {"type": "array"}}),
    ],
    ids=lambda capability: capability.name,
)
def test_a_write_with_nothing_about_files_is_a_change_to_data(capability: Capability) -> None:
    risk = rate(capability, trusted=False)

    assert "writes files" not in risk.categories
    assert "updates records" in risk.identified()


@pytest.mark.parametrize(
    ("capability", "because"),
    [
        (tool("write_file", properties={"path": STRING, "content": STRING}), "a path argument"),
        (tool("write_report", properties={"target": STRING, "content": STRING}), "a path-like argument"),
        (tool("edit_block", properties={"file_path": STRING, "old": STRING}), "a path-like argument"),
        (
            tool("move_item", description="Move a file to another folder.", properties={"id": STRING}),
            "says so",
        ),
        (tool("write_file_contents", properties={"contents": STRING}), "its name names a file"),
        (tool("create_directory", properties={"name": STRING}), "its name names a directory"),
    ],
    ids=lambda value: value.name if isinstance(value, Capability) else "",
)
def test_a_write_about_files_is_still_a_file_write(capability: Capability, because: str) -> None:
    risk = rate(capability, trusted=False)

    assert "writes files" in risk.identified(), because


def test_the_shipped_policy_files_sqlite_write_query_as_a_record_update(shipped: PolicyEngine) -> None:
    decision = shipped.evaluate(WRITE_QUERY, {"query": "DELETE FROM orders"}).decision

    assert decision.action == "review"
    assert decision.rule == "record updates"
    assert "writes files" not in decision.categories
    assert "path" not in decision.explanation


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("write_file", {"path": "/etc/passwd", "content": "x"}),
        ("edit_file", {"path": "/etc/hosts", "edits": []}),
    ],
)
def test_the_shipped_policy_still_holds_file_writes_to_the_roots(
    shipped: PolicyEngine, name: str, arguments: dict[str, Any]
) -> None:
    capability = tool(name, server="filesystem", properties={"path": STRING, "content": STRING, "edits": {}})

    decision = shipped.evaluate(capability, arguments).decision

    assert (decision.action, decision.rule, decision.category) == ("deny", "file writes", "writes files")
