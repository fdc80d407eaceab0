"""A capability is rated by what it does, not by what it is called or claims: destructive tools
behind harmless names, lying or missing annotations, and refused tools spelled another way all
stay behind the gate. Real servers from a servers file, served in-process
(tests/in_process_servers.py), the shipped policy."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gatehouse.wiring import Services
from policies.decision import PolicyDecision
from tests.adversarial.effects import ran
from tests.adversarial.servers_file import servers_file
from tests.adversarial.spelled_names import COMMAND_SERVERS, COMMAND_TOOLS
from tests.in_process_servers import serve_test_servers_in_process
from tests.reviews.review_support import services_for


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Services, Path]]:
    data = tmp_path_factory.mktemp("adversarial") / "data"
    data.mkdir()
    effects = data / "effects.jsonl"
    servers = servers_file(data, effects, "harmless_names", "spelled_names")
    _add_respelled_servers(servers)
    with pytest.MonkeyPatch.context() as patch:
        serve_test_servers_in_process(patch)
        with services_for(data, servers=servers) as services:
            yield services, effects


def _add_respelled_servers(servers: Path) -> None:
    """The servers that offer the other spellings of the command tools (COMMAND_SERVERS): the
    spelled-names entry with the spellings on its command line."""
    config = json.loads(servers.read_text(encoding="utf-8"))
    entries = config["mcpServers"]
    spelled = entries["spelled-names"]
    for name, commands in COMMAND_SERVERS.items():
        if name != "spelled-names":
            entries[name] = spelled | {"args": [*spelled["args"], *commands]}
    servers.write_text(json.dumps(config), encoding="utf-8")


def _decide(services: Services, key: str, arguments: dict[str, object] | None = None) -> PolicyDecision:
    capability = services.mcp.discover().find(key)
    assert capability is not None, f"{key} is not offered"
    return services.policy.evaluate(capability, arguments or {}).decision


@pytest.mark.parametrize(
    "key",
    [
        "harmless-names__tidy_workspace",
        "harmless-names__archive_tickets",
        "harmless-names__maintenance",
        "harmless-names__get_report",
        "harmless-names__list_sessions",
    ],
)
def test_a_tool_that_acts_is_never_allowed_unreviewed_whatever_its_name_or_annotations_say(
    world: tuple[Services, Path], key: str
) -> None:
    services, _ = world
    decision = _decide(services, key, {"project": "x", "month": "may"})

    assert decision.action in {"review", "deny"}
    assert decision.rule != "low-risk reads"
    assert decision.risk == "elevated"


def test_a_read_only_claim_from_an_untrusted_server_does_not_hide_a_destructive_description(
    world: tuple[Services, Path],
) -> None:
    services, _ = world
    decision = _decide(services, "harmless-names__tidy_workspace")

    assert "destructive" in decision.categories
    codes = [flag.code for flag in decision.flags]
    assert "annotation_mismatch" in codes
    assert any("description says 'deletes'" in reason for reason in decision.reasons)


def test_missing_annotations_mean_the_mcp_defaults_destructive_and_open_world(
    world: tuple[Services, Path],
) -> None:
    services, _ = world
    decision = _decide(services, "harmless-names__archive_tickets", {"project": "x"})

    assert {"destructive", "open world"} <= set(decision.categories)


def test_asking_for_a_destructive_tool_behind_a_harmless_name_waits_for_a_reviewer_and_runs_nothing(
    world: tuple[Services, Path],
) -> None:
    services, effects = world
    run = services.requests.ask("Tidy the workspace", requester="operator")

    assert run.final_output.selected_capability is not None
    assert run.final_output.selected_capability.name == "tidy_workspace"
    assert run.final_output.status == "needs_review"
    assert ran(effects) == []


@pytest.mark.parametrize("name", COMMAND_TOOLS)
def test_the_shell_rule_refuses_a_command_tool_under_every_spelling(
    world: tuple[Services, Path], name: str
) -> None:
    services, _ = world
    [server] = [server for server, commands in COMMAND_SERVERS.items() if name in commands]
    decision = _decide(services, f"{server}__{name}", {"command": "id"})

    assert decision.action == "deny"
    assert decision.rule == "shell access"


@pytest.mark.parametrize("name", ["PayInvoice", "transferFunds", "wire_money"])
def test_every_payment_needs_two_approvals_whatever_it_is_called(
    world: tuple[Services, Path], name: str
) -> None:
    services, _ = world
    decision = _decide(services, f"spelled-names__{name}", {"invoice_id": "1", "to_account": "x", "iban": "x",
                                                             "amount": 10})  # fmt: skip

    assert decision.action == "review"
    assert decision.rule == "payments"
    assert decision.review.required_approvals == 2


def test_money_moved_without_an_amount_to_bound_is_flagged(world: tuple[Services, Path]) -> None:
    services, _ = world
    pay = _decide(services, "spelled-names__PayInvoice", {"invoice_id": "1"})
    transfer = _decide(services, "spelled-names__transferFunds", {"to_account": "x", "amount": 10})

    assert "unbounded_amount" in [flag.code for flag in pay.flags]
    assert "unbounded_amount" not in [flag.code for flag in transfer.flags]


def test_the_payment_rules_amount_bound_holds_for_a_differently_spelled_payment(
    world: tuple[Services, Path],
) -> None:
    services, _ = world
    decision = _decide(services, "spelled-names__wire_money", {"iban": "x", "amount": 5000})

    assert decision.action == "deny"
    assert "out_of_bounds" in [flag.code for flag in decision.flags]


def test_a_tool_that_takes_code_waits_for_a_reviewer_but_is_not_refused_as_a_shell(
    world: tuple[Services, Path],
) -> None:
    services, _ = world
    capability = services.mcp.discover().find("spelled-names__format_code")
    assert capability is not None

    decision = services.policy.evaluate(capability, {"code": "x=1"}).decision

    assert decision.action == "review"
    assert "runs commands" not in decision.categories
