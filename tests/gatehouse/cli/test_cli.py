"""`gatehouse ask` as a user runs it: main(argv) in this process (tests/cli_support.py), a real
SQLite file, the bundled servers as real server processes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli_support import Ran, run_cli
from tests.support import bundled_server_entry

REPO = Path(__file__).resolve().parents[3]


def gatehouse(data: Path, *args: str) -> Ran:
    return run_cli(*args, env={"GATEHOUSE_DATA": str(data), "GATEHOUSE_DB": None})


def only_servers(data: Path, *names: str) -> str:
    """A servers file, in Claude Desktop's format, with just the bundled servers a test needs
    (each stdio server is a Python process start; the default runs all six)."""
    entries = {name: bundled_server_entry(name, data / "demo") for name in names}
    path = data / "servers.json"
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    return str(path)


def ask_json(data: Path, *args: str) -> dict[str, Any]:
    done = gatehouse(data, "ask", "--json", *args)
    assert done.returncode == 0, done.stderr
    output: dict[str, Any] = json.loads(done.stdout)
    return output


@pytest.mark.usefixtures("bundled_in_process")
def test_listing_the_managed_folder_is_ok_and_names_both_files(tmp_path: Path) -> None:
    output = ask_json(tmp_path, "List the files in the managed project folder.")

    assert output["status"] == "ok"
    assert output["selected_capability"] == {"server": "filesystem", "type": "tool", "name": "list_directory"}
    assert "sample.txt" in output["response"] and "notes.md" in output["response"]
    assert set(output) == {
        "status",
        "response",
        "selected_capability",
        "mcp_result_summary",
        "fallback_reason",
        "review",
        "missing_arguments",
        "thread_id",
        "errors",
        "server_notes",
        "result",
        "arguments",
        "argument_evidence",
        "explanation",
        "planner",
        "composed",
        "no_call_reason",
        "grant",
        "effect_check",
    }
    # What the call returned, to read as records: the listing's entries.
    names = {entry["name"] for entry in output["result"]["structured"]["entries"]}
    assert {"sample.txt", "notes.md"} <= names
    assert (tmp_path / "gatehouse.db").exists()


@pytest.mark.usefixtures("bundled_in_process")
def test_sending_an_email_waits_for_review_with_flags_and_the_outbox_stays_empty(tmp_path: Path) -> None:
    output = ask_json(tmp_path, "Send an email to bob@example.com saying hi")

    assert output["status"] == "needs_review"
    assert output["selected_capability"]["name"] == "send_email"
    assert output["review"]["flags"][0]["code"] == "sends_messages"
    assert output["review"]["flags"][0]["severity"] == "high"
    outbox = tmp_path / "demo" / "outbox.jsonl"
    assert not outbox.exists() or outbox.read_text(encoding="utf-8") == ""


@pytest.mark.usefixtures("bundled_in_process")
def test_ticket_summary_searches_open_high_priority_tickets(tmp_path: Path) -> None:
    output = ask_json(tmp_path, "Summarize the open high-priority support tickets.")

    assert output["status"] == "ok"
    assert output["selected_capability"]["name"] == "search_tickets"
    assert output["mcp_result_summary"]["item_count"] == 5
    assert output["response"].count("(high, open)") == 5


@pytest.mark.usefixtures("bundled_in_process")
def test_a_general_question_is_answered_without_mcp(tmp_path: Path) -> None:
    output = ask_json(tmp_path, "What is the Model Context Protocol?")

    assert output["status"] == "answered_without_mcp"
    assert output["selected_capability"] is None


@pytest.mark.usefixtures("bundled_in_process")
def test_a_clarification_is_answered_on_the_same_thread(tmp_path: Path) -> None:
    servers = only_servers(tmp_path, "greeter")
    first = ask_json(tmp_path, "--servers", servers, "Please greet someone for me.")
    assert first["status"] == "needs_clarification"
    assert first["missing_arguments"] == ["name"]

    second = ask_json(tmp_path, "--servers", servers, "--thread", first["thread_id"], "name=Grace")

    assert second["status"] == "ok"
    assert second["thread_id"] == first["thread_id"]
    assert "Hello, Grace!" in second["response"]


@pytest.mark.usefixtures("bundled_in_process")
def test_text_output_shows_status_capability_and_flags(tmp_path: Path) -> None:
    servers = only_servers(tmp_path, "email")
    done = gatehouse(tmp_path, "ask", "--servers", servers, "Send an email to bob@example.com saying hi")

    assert done.returncode == 0
    assert "status:     needs_review" in done.stdout
    assert "capability: email / tool / send_email" in done.stdout
    assert "[high] sends_messages" in done.stdout


@pytest.mark.usefixtures("bundled_in_process")
def test_an_unknown_preferred_server_is_a_usage_error_naming_the_servers(tmp_path: Path) -> None:
    servers = only_servers(tmp_path, "filesystem", "greeter")
    done = gatehouse(tmp_path, "ask", "--servers", servers, "--prefer", "nosuch", "List the files")

    assert done.returncode == 2
    assert done.stdout == ""
    assert "--prefer: unknown server nosuch; configured servers: filesystem, greeter" in done.stderr


def test_a_database_that_cannot_be_opened_is_a_usage_error_naming_the_file(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")

    done = gatehouse(tmp_path, "ask", "--db", str(blocker / "gatehouse.db"), "List the files")

    assert done.returncode == 2
    assert str(blocker / "gatehouse.db") in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.usefixtures("bundled_in_process")
def test_a_thread_waiting_for_a_reviewer_does_not_take_operator_messages(tmp_path: Path) -> None:
    servers = only_servers(tmp_path, "email")
    paused = ask_json(tmp_path, "--servers", servers, "Send an email to bob@example.com saying hi")

    done = gatehouse(tmp_path, "ask", "--servers", servers, "--thread", paused["thread_id"], "also cc carol")

    assert done.returncode == 2
    assert "waits for a reviewer" in done.stderr


@pytest.mark.parametrize("args", [[], ["ask"], ["frobnicate"]])
def test_bad_usage_exits_2(tmp_path: Path, args: list[str]) -> None:
    assert gatehouse(tmp_path, *args).returncode == 2


@pytest.mark.usefixtures("bundled_in_process")
def test_servers_check_lists_every_bundled_server_with_its_counts(tmp_path: Path) -> None:
    done = gatehouse(tmp_path, "servers", "check", "--json")

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    servers = {server["name"]: server for server in report["servers"]}
    assert set(servers) == {"filesystem", "tickets", "email", "greeter", "prompts", "documents"}
    assert all(server["ok"] and server["protocol_version"] for server in servers.values())
    assert (servers["filesystem"]["tools"], servers["tickets"]["resource_templates"]) == (3, 1)
    assert (servers["prompts"]["prompts"], servers["documents"]["resources"]) == (1, 2)
    assert all(server["connect_ms"] > 0 for server in servers.values())
    assert servers["greeter"]["transport"]["transport"] == "stdio"
    assert report["planner"].startswith("deterministic")


@pytest.mark.usefixtures("bundled_in_process")
def test_servers_check_names_the_active_planner_first(tmp_path: Path) -> None:
    done = gatehouse(tmp_path, "servers", "check")

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "planner: deterministic (offline, no language model)"


@pytest.mark.processes
def test_servers_check_reports_a_broken_server_beside_the_working_ones(tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    entries = {
        "greeter": {
            "command": sys.executable,
            "args": ["-m", "servers.greeter", "--data-dir", str(tmp_path)],
        },
        "ghost": {"command": str(tmp_path / "no-such-server")},
    }
    config.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")

    done = gatehouse(tmp_path, "servers", "check", "--servers", str(config))

    assert done.returncode == 0, done.stderr
    assert "ok    greeter" in done.stdout
    assert "FAIL  ghost" in done.stdout


@pytest.mark.processes
def test_secrets_in_a_servers_file_never_reach_the_output(tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    entry = {
        "command": sys.executable,
        "args": ["-m", "servers.greeter", "--data-dir", str(tmp_path)],
        "env": {"GREETER_TOKEN": "${TOKEN_FOR_TEST}"},
    }
    config.write_text(json.dumps({"mcpServers": {"greeter": entry}}), encoding="utf-8")
    env = {"GATEHOUSE_DATA": str(tmp_path), "GATEHOUSE_DB": None, "TOKEN_FOR_TEST": "tok-9f8e7d"}

    done = run_cli("servers", "check", "--json", "--servers", str(config), env=env)

    assert done.returncode == 0, done.stderr
    assert "tok-9f8e7d" not in done.stdout + done.stderr
    assert json.loads(done.stdout)["servers"][0]["transport"]["env"] == {"GREETER_TOKEN": "***"}


def test_an_invalid_servers_file_exits_2_naming_file_entry_and_reason(tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"files": {"args": ["x"]}}}), encoding="utf-8")

    done = gatehouse(tmp_path, "ask", "--servers", str(config), "List the files")

    assert done.returncode == 2
    assert f"{config}: mcpServers.files: a server needs a command (stdio) or a url (http)" in done.stderr


# A variable nobody sets; the two tests below unset it anyway for the command they run.
UNSET = "GATEHOUSE_TEST_NEVER_SET"


def test_an_unset_variable_in_the_servers_file_exits_2_with_one_line_naming_file_key_and_variable(
    tmp_path: Path,
) -> None:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"fs": {"command": f"${{{UNSET}}}"}}}), encoding="utf-8")
    env = {"GATEHOUSE_DATA": str(tmp_path), "GATEHOUSE_DB": None, UNSET: None}

    done = run_cli("ask", "--servers", str(config), "List the files", env=env)

    assert done.returncode == 2
    assert (
        done.stderr
        == f"gatehouse: {config}: mcpServers.fs.command: environment variable {UNSET} is not set\n"
    )


def test_an_unset_variable_in_the_policy_exits_2_with_one_line_naming_file_key_and_variable(
    tmp_path: Path,
) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(f'[paths]\nroots = ["${{env:{UNSET}}}/data"]\n', encoding="utf-8")
    env = {"GATEHOUSE_DATA": str(tmp_path), "GATEHOUSE_DB": None, UNSET: None}

    done = run_cli("policy", "check", str(policy), env=env)

    assert done.returncode == 2
    assert done.stderr == f"gatehouse: {policy}: paths.roots[0]: environment variable {UNSET} is not set\n"


@pytest.mark.usefixtures("bundled_in_process")
def test_policy_explain_refuses_a_path_that_climbs_out_of_the_root(tmp_path: Path) -> None:
    servers = only_servers(tmp_path, "filesystem")
    args = '{"path": "../../etc/passwd", "content": "x"}'

    done = gatehouse(
        tmp_path,
        "policy",
        "explain",
        "--servers",
        servers,
        "--json",
        "filesystem__write_file",
        "--args",
        args,
    )

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["action"] == "deny"
    flags = {flag["code"]: flag["message"] for flag in report["flags"]}
    assert "argument path" in flags["path_outside_roots"]
    assert "argument path" in flags["path_traversal"]


@pytest.mark.usefixtures("bundled_in_process")
def test_policy_explain_allows_a_read_and_says_why(tmp_path: Path) -> None:
    servers = only_servers(tmp_path, "filesystem")

    done = gatehouse(tmp_path, "policy", "explain", "--servers", servers, "filesystem__list_directory")

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ALLOW  filesystem__list_directory  (rule: low-risk reads")


@pytest.mark.usefixtures("bundled_in_process")
def test_policy_explain_of_an_unknown_capability_is_a_usage_error_with_a_suggestion(tmp_path: Path) -> None:
    servers = only_servers(tmp_path, "filesystem")

    done = gatehouse(tmp_path, "policy", "explain", "--servers", servers, "filesystem__write_files")

    assert done.returncode == 2
    assert "did you mean filesystem__write_file" in done.stderr


def test_policy_explain_rejects_arguments_that_are_not_a_json_object(tmp_path: Path) -> None:
    done = gatehouse(tmp_path, "policy", "explain", "filesystem__write_file", "--args", "[1, 2")

    assert done.returncode == 2
    assert "--args: not valid JSON" in done.stderr


def test_policy_check_accepts_the_shipped_policy(tmp_path: Path) -> None:
    done = gatehouse(tmp_path, "policy", "check", "--json")

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["valid"] is True
    assert report["users"] == {
        "operator": "operator",
        "reviewer": "reviewer",
        "reviewer2": "reviewer",
        "admin": "admin",
        "admin2": "admin",
    }


def test_policy_check_names_file_key_and_reason_of_an_invalid_policy(tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(
        '[[rules]]\nname = "x"\nmatch = ["*"]\naction = "maybe"\nexplanation = "?"\n', encoding="utf-8"
    )

    done = gatehouse(tmp_path, "policy", "check", str(policy))

    assert done.returncode == 2
    assert f"{policy}: rules[0] (x).action:" in done.stderr
    assert "'allow', 'review' or 'deny'" in done.stderr


@pytest.mark.usefixtures("bundled_in_process")
def test_a_user_outside_the_roster_may_not_ask(tmp_path: Path) -> None:
    servers = only_servers(tmp_path, "greeter")

    done = gatehouse(tmp_path, "ask", "--servers", servers, "--user", "mallory", "Greet Ada")

    assert done.returncode == 2
    assert "--user: 'mallory' may not make requests" in done.stderr
