"""Values nobody stated, and secrets bound for a server nobody trusts: held for a reviewer
whatever the rules allow (policies/provenance.py through the engine)."""

from __future__ import annotations

from typing import Any

import pytest

from policies.decision import PolicyDecision
from tests.policies.test_engine import READ_ONLY, STRING, engine, rule, tool

# Every risk accepted: only what this module adds can hold a call.
ALLOW_ALL = rule(
    "everything",
    ["*"],
    "allow",
    accepts=[
        "writes files",
        "sends messages",
        "updates records",
        "financial action",
        "destructive",
        "open world",
    ],
)
TOKEN = "ghp_" + "8fK2mQ7vX1cR9tB4nW6yL3pZ0sD5hJaE"


def flags(decision: PolicyDecision, code: str) -> list[tuple[str, str]]:
    return [(flag.severity, flag.message) for flag in decision.flags if flag.code == code]


def test_a_value_nobody_stated_holds_an_allowed_call_for_a_reviewer_with_the_words_it_came_from() -> None:
    search = tool("search_notes", properties={"query": STRING}, annotations=READ_ONLY)

    stated = engine(rules=[ALLOW_ALL]).evaluate(search, {"query": "billing"}).decision
    derived = engine(rules=[ALLOW_ALL]).evaluate(search, {"query": "invoices"}, derived={"query": "billing"})

    assert stated.action == "allow"
    decision = derived.decision
    assert decision.action == "review"
    # Not where data goes: medium, and held all the same.
    assert flags(decision, "derived_argument") == [
        (
            "medium",
            "argument 'query' is not what the operator stated: derived from 'billing'; "
            "check it against the request",
        )
    ]


@pytest.mark.parametrize(
    ("name", "schema"),
    [
        ("to", STRING),
        ("recipients", {"type": "array", "items": STRING}),
        ("contact", {"type": "string", "format": "email"}),
        ("path", STRING),
        ("source_file", STRING),
        ("amount", {"type": "number"}),
        ("priceCents", {"type": "integer"}),
    ],
)
def test_a_derived_recipient_path_or_amount_is_flagged_high(name: str, schema: dict[str, Any]) -> None:
    capability = tool("act", properties={name: schema})

    decision = engine(rules=[ALLOW_ALL]).evaluate(capability, {name: "x"}, derived={name: "y"}).decision

    assert [severity for severity, _ in flags(decision, "derived_argument")] == ["high"]


def test_the_words_a_value_was_derived_from_are_shown_without_their_secrets() -> None:
    search = tool("search_notes", properties={"query": STRING}, annotations=READ_ONLY)

    decision = engine().evaluate(search, {"query": "x"}, derived={"query": f"my token {TOKEN}"}).decision

    ((_, message),) = flags(decision, "derived_argument")
    assert TOKEN not in message and "ghp_***" in message


@pytest.mark.parametrize(
    "arguments",
    [
        {"city": f"Paris {TOKEN}"},
        {"city": "Paris", "note": "Authorization: Bearer abc123XYZ987def"},
        {"city": "Paris", "apiKey": "hunter2-but-longer"},
        {"cities": ["Paris", "sk-proj-4f9aQ2x7Lk3Vb8Tn1Rz6Yw0Pd5Hs"]},
    ],
)
def test_a_recognised_secret_never_goes_to_an_untrusted_server_unreviewed(arguments: dict[str, Any]) -> None:
    weather = tool("get_weather", server="weather", annotations=READ_ONLY)

    decision = engine(rules=[ALLOW_ALL]).evaluate(weather, arguments).decision

    assert decision.action == "review"
    ((severity, message),) = flags(decision, "secret_to_untrusted_server")
    assert severity == "high" and "weather, a server the policy does not trust" in message
    assert TOKEN not in message and "hunter2" not in message


def test_a_trusted_server_gets_the_secret_the_operator_gave_it_without_a_flag() -> None:
    weather = tool("get_weather", server="weather", annotations=READ_ONLY)
    trusting = engine(servers={"trusted": ["weather"]}, rules=[ALLOW_ALL])

    decision = trusting.evaluate(weather, {"city": f"Paris {TOKEN}"}).decision

    assert decision.action == "allow"
    assert flags(decision, "secret_to_untrusted_server") == []
