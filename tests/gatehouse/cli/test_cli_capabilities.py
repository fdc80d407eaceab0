"""`gatehouse capabilities` prints what operators can ask, and `gatehouse ask` says plainly when
nothing configured can do what was asked: main(argv) in this process, real stdio servers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_support import Ran, run_cli
from tests.reviews.review_support import NO_WRITES, policy_file
from tests.support import bundled_server_entry

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")


def gatehouse(data: Path, *args: str) -> Ran:
    return run_cli(*args, env={"GATEHOUSE_DATA": str(data), "GATEHOUSE_DB": None})


def servers_file(data: Path, notes: Any = None) -> str:
    """The greeter and tickets servers; ``notes`` as the tickets entry's capabilities."""
    entries = {name: bundled_server_entry(name, data / "demo") for name in ("greeter", "tickets")}
    if notes is not None:
        entries["tickets"]["capabilities"] = notes
    path = data / "servers.json"
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    return str(path)


def test_capabilities_lists_each_server_in_plain_words_with_a_request_to_try(tmp_path: Path) -> None:
    notes = {
        "update_ticket": {"examples": ["Close ticket 7"], "aliases": ["triage a ticket"]},
        "create_ticket": {"aliases": ["raise a ticket"]},
    }

    done = gatehouse(tmp_path, "capabilities", "--servers", servers_file(tmp_path, notes))

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:4] == [
        "greeter: 1 capabilities",
        "  greet (tool): Greet a person by name and return the greeting text.",
        '    try: "Greet with name …"',
        "    key: greeter__greet",
    ]
    update = lines.index(
        "  update_ticket (tool): Change a support ticket's status or priority and/or add an internal note to it."
    )
    assert lines[update + 1 : update + 4] == [
        '    try: "Close ticket 7"',
        "    also called: triage a ticket",
        "    key: tickets__update_ticket",
    ]
    assert "  ticket (resource template): One support ticket, by id, as JSON." in lines
    # A name the servers file gives words for that the server does not offer: said, not fatal.
    assert lines[-1] == (
        "  note: the servers file gives examples or aliases for create_ticket, which tickets does not offer"
    )


def test_a_prompt_is_listed_with_its_key_as_a_tool_is_and_the_key_explains_it(tmp_path: Path) -> None:
    entries = {name: bundled_server_entry(name, tmp_path / "demo") for name in ("greeter", "prompts")}
    servers = tmp_path / "prompt-servers.json"
    servers.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")

    done = gatehouse(tmp_path, "capabilities", "--servers", str(servers))
    prompt = done.stdout.splitlines()[-3:]
    explained = gatehouse(
        tmp_path, "policy", "explain", "prompts__summarize_tickets", "--servers", str(servers)
    )

    assert done.returncode == 0, done.stderr
    assert prompt == [
        "  summarize_tickets (prompt): Prompt template: summarize support tickets filtered by priority and status.",
        '    try: "Use the summarize tickets prompt"',
        "    key: prompts__summarize_tickets",
    ]
    # The key as listed is one the policy's commands take.
    assert explained.returncode == 0, explained.stderr
    assert "prompts__summarize_tickets" in explained.stdout.splitlines()[0]


def test_capabilities_as_json_says_whose_example_each_is(tmp_path: Path) -> None:
    notes = {"update_ticket": {"examples": ["Close ticket 7"]}}

    done = gatehouse(tmp_path, "capabilities", "--json", "--servers", servers_file(tmp_path, notes))

    assert done.returncode == 0, done.stderr
    servers = {server["name"]: server for server in json.loads(done.stdout)["servers"]}
    entries = {entry["name"]: entry for entry in servers["tickets"]["entries"]}
    assert (entries["update_ticket"]["example"], entries["update_ticket"]["example_from_admin"]) == (
        "Close ticket 7",
        True,
    )
    assert entries["search_tickets"]["example_from_admin"] is False
    assert servers["greeter"]["problem"] is None


def test_a_mistake_in_capabilities_costs_only_its_entry_named_by_file_entry_and_key(tmp_path: Path) -> None:
    path = servers_file(tmp_path, {"update_ticket": {"aliases": "triage"}})

    done = gatehouse(tmp_path, "capabilities", "--servers", path)

    # As every command but `servers check` (which fails on it): the other entries are listed.
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        f"gatehouse: skipping server tickets: {path}: "
        "mcpServers.tickets.capabilities.update_ticket.aliases: must be a list of strings\n"
    )
    assert "greet (tool)" in done.stdout
    assert "update_ticket" not in done.stdout


def test_a_skipped_entry_is_named_with_every_mistake_it_has_one_a_line(tmp_path: Path) -> None:
    path = Path(servers_file(tmp_path))
    entries = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]
    entries["files"] = {"command": "python", "argz": ["x"], "evn": {}, "timeout": "30"}
    path.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")

    done = gatehouse(tmp_path, "capabilities", "--servers", str(path))

    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"gatehouse: skipping server files: {path}: "
        "mcpServers.files.argz: unknown key for a stdio server (did you mean 'args'?)",
        f"gatehouse:   {path}: mcpServers.files.evn: unknown key for a stdio server (did you mean 'env'?)",
        f'gatehouse:   {path}: mcpServers.files.timeout: must be a positive number of seconds, not the string "30"'
        ' (write "timeout": 30, without quotes)',
    ]
    assert "greet (tool)" in done.stdout


def test_ask_says_nothing_configured_can_do_it_in_words_without_scores(tmp_path: Path) -> None:
    done = gatehouse(
        tmp_path, "ask", "--servers", servers_file(tmp_path), "Book me a flight to Lisbon next week."
    )

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "status:     answered_without_mcp (nothing configured can do that)"
    assert lines[1].startswith(
        "response:   Nothing configured can do that, so nothing was run. The closest capabilities: 1) "
    )
    assert "score" not in done.stdout and "threshold" not in done.stdout and "points" not in done.stdout


def test_ask_as_json_keeps_the_status_and_says_why_no_server_was_called(tmp_path: Path) -> None:
    servers = servers_file(tmp_path)
    nothing_fits = json.loads(
        gatehouse(tmp_path, "ask", "--json", "--servers", servers, "Book a flight.").stdout
    )
    general = json.loads(
        gatehouse(
            tmp_path, "ask", "--json", "--servers", servers, "What is the Model Context Protocol?"
        ).stdout
    )

    assert (nothing_fits["status"], nothing_fits["no_call_reason"]) == (
        "answered_without_mcp",
        "nothing_fits",
    )
    # The machine's reason keeps its words for scripts and traces.
    assert "the threshold is" in nothing_fits["fallback_reason"]
    assert (general["status"], general["no_call_reason"]) == ("answered_without_mcp", "general_question")


def test_an_alias_from_the_servers_file_selects_its_capability_end_to_end(tmp_path: Path) -> None:
    servers = servers_file(tmp_path, {"search_tickets": {"aliases": ["the backlog"]}})

    output = json.loads(
        gatehouse(tmp_path, "ask", "--json", "--servers", servers, "Show me the backlog").stdout
    )

    assert output["selected_capability"] == {"server": "tickets", "type": "tool", "name": "search_tickets"}
    assert output["status"] == "ok"


def test_ask_says_the_closest_fit_is_refused_by_the_policy_naming_its_rule(tmp_path: Path) -> None:
    entries = {name: bundled_server_entry(name, tmp_path / "demo") for name in ("filesystem", "tickets")}
    servers = tmp_path / "files-servers.json"
    servers.write_text(json.dumps({"mcpServers": entries}), encoding="utf-8")
    policy = policy_file(tmp_path, "no-writes.toml", NO_WRITES)
    refusal = "policy rule no writes refused filesystem__write_file: Agents write nothing."

    done = gatehouse(tmp_path, "ask", "--servers", str(servers), "--policy", str(policy), "Save my notes")
    as_json = json.loads(
        gatehouse(
            tmp_path, "ask", "--json", "--servers", str(servers), "--policy", str(policy), "Save my notes"
        ).stdout
    )

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # A refusal by the policy, as a refused call shows one: not "nothing configured can do that".
    assert lines[0] == "status:     error"
    assert lines[1].startswith(
        "response:   The closest fit for this request, Create or overwrite a UTF-8 text file in the managed "
        "project folder with the given content (filesystem), is refused by the policy whatever the arguments: "
        f"{refusal} Nothing was run."
    )
    assert "reason:     refused by policy: Agents write nothing." in lines
    assert f"error:      {refusal}" in lines
    assert "score" not in done.stdout and "threshold" not in done.stdout
    assert "nothing configured" not in done.stdout.lower()
    assert (as_json["status"], as_json["no_call_reason"], as_json["errors"]) == ("error", None, [refusal])
