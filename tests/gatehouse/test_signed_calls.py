"""Calls Gatehouse makes carry grants its servers accept: the bundled e-mail server, in its own
process and verifying (the shipped servers file configures it with Gatehouse's public keys),
sends a message a reviewer approved, and one a policy rule allows; `servers check` says it
verifies."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from policies.loader import DEFAULT_POLICY
from tests.cli_support import Ran, run_cli
from tests.mcp_host.helpers import REPO_ROOT
from tests.support import bundled_server_entry

# Starts the e-mail server as a process of its own (the subject is what that process accepts).
pytestmark = pytest.mark.processes

REQUEST = "Send an email to bob@example.com saying hi"


_ALLOW = 'action = "allow"\naccepts = ["sends messages", "writes files", "open world"]'


def allowing_policy(folder: Path) -> Path:
    """The shipped policy with its rule for outgoing messages allowing them instead, knowingly
    (what the engine rates the demo's send_email)."""
    shipped = DEFAULT_POLICY.read_text(encoding="utf-8")
    rule = 'name = "outgoing messages"'
    head, tail = shipped.split(rule)
    path = folder / "policy.toml"
    path.write_text(head + rule + tail.replace('action = "review"', _ALLOW, 1), encoding="utf-8")
    return path


def email_entry(data: Path) -> dict[str, object]:
    """The shipped entry's environment (the public keys file), with ``python -m servers.email``
    from this checkout for its command: the server whose verifying is the subject, not the
    launcher's."""
    shipped = bundled_server_entry("email", data / "demo")
    args = ["-m", "servers.email", "--data-dir", str(data / "demo")]
    return {"command": sys.executable, "args": args, "cwd": str(REPO_ROOT), "env": shipped["env"]}


def gatehouse(data: Path, *args: str, policy: Path | None = None) -> Ran:
    servers = data / "servers.json"
    if not servers.exists():
        servers.write_text(json.dumps({"mcpServers": {"email": email_entry(data)}}), encoding="utf-8")
    env = {
        "GATEHOUSE_DATA": str(data),
        "GATEHOUSE_DB": None,
        "GATEHOUSE_SERVERS": str(servers),
        "GATEHOUSE_POLICY": str(policy) if policy else None,
    }
    return run_cli(*args, env=env)


def as_json(ran: Ran) -> dict[str, Any]:
    assert ran.returncode == 0, ran.stderr
    data: dict[str, Any] = json.loads(ran.stdout)
    return data


def outbox(data: Path) -> list[dict[str, Any]]:
    path = data / "demo" / "outbox.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [json.loads(line) for line in lines]


def test_an_email_a_reviewer_approved_is_sent_by_the_server_that_verifies_grants(tmp_path: Path) -> None:
    asked = as_json(gatehouse(tmp_path, "ask", "--json", REQUEST))
    assert asked["status"] == "needs_review"

    decided = as_json(
        gatehouse(
            tmp_path,
            "reviews",
            "decide",
            asked["review"]["id"],
            "--approve",
            "--reviewer",
            "reviewer",
            "--json",
        )
    )

    assert decided["final_output"]["status"] == "ok", decided
    assert [message["to"] for message in outbox(tmp_path)] == ["bob@example.com"]


def test_an_email_a_policy_rule_allows_is_sent_and_servers_check_says_the_server_verifies(
    tmp_path: Path,
) -> None:
    policy = allowing_policy(tmp_path)

    asked = as_json(gatehouse(tmp_path, "ask", "--json", REQUEST, policy=policy))
    checked = as_json(gatehouse(tmp_path, "servers", "check", "--json", policy=policy))

    assert asked["status"] == "ok", asked
    assert asked["explanation"]
    assert [message["to"] for message in outbox(tmp_path)] == ["bob@example.com"]
    (email,) = checked["servers"]
    assert email["verifies_approvals"] is True
    assert email["approvals"]["server"] == "email"


def test_an_email_a_remembered_approval_covers_is_sent_by_the_server_that_verifies_grants(
    tmp_path: Path,
) -> None:
    asked = as_json(gatehouse(tmp_path, "ask", "--json", REQUEST))
    within = json.dumps({"to": {"domain": "example.com"}, "body": "any"})
    decide = ["reviews", "decide", asked["review"]["id"], "--approve", "--reviewer", "reviewer"]
    remembered = as_json(
        gatehouse(tmp_path, *decide, "--remember", "requester", "--within", within, "--json")
    )
    assert remembered["final_output"]["status"] == "ok", remembered

    # No review this time: the grant is why it may run, and the verifying server accepts that.
    covered = as_json(gatehouse(tmp_path, "ask", "--json", "Send an email to carol@example.com saying hello"))

    assert covered["status"] == "ok", covered
    assert covered["grant"]["id"].startswith("g-"), covered
    assert [message["to"] for message in outbox(tmp_path)] == ["bob@example.com", "carol@example.com"]
