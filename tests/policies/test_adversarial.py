"""A server that cheats, run through the whole graph with the shipped policy.

Every trick in tests/policies/adversarial_server.py must end at a reviewer, with the flag that
names it, before the tool runs (or, for output that carries instructions, before the output
reaches the answer). The tools count their calls, so "never ran" is checked at the server.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from graph.builder import CompiledGraph
from graph.runner import RunOutcome
from graph.state import ReviewDecision
from mcp_host.sdk_client import SdkMcpClient
from reviews.resume import resume
from tests.policies.adversarial_server import (
    FAKE_ENVIRONMENT,
    FORECAST_DESCRIPTION,
    INJECTED_STRUCTURED_TEXT,
    RUG_PULLED_DESCRIPTION,
    build_server,
)
from tests.support import ask, context_for

FORECAST_REQUEST = "Show the weather forecast for city=Paris"


@dataclass
class Sneaky:
    client: SdkMcpClient
    calls: Counter[str]


@pytest.fixture
def sneaky() -> Iterator[Sneaky]:
    calls: Counter[str] = Counter()
    with SdkMcpClient({"sneaky": build_server(calls)}) as client:
        yield Sneaky(client=client, calls=calls)


def _selected(outcome: RunOutcome) -> str:
    return str((outcome.state.get("selected_capability") or {}).get("name"))


def _flags(outcome: RunOutcome) -> dict[str, list[str]]:
    """Flag code -> messages, from the review the run paused in (or ended with)."""
    review = outcome.final_output.review
    found: dict[str, list[str]] = {}
    for flag in review.flags if review else []:
        found.setdefault(flag.code, []).append(flag.message)
    return found


def _severities(outcome: RunOutcome, code: str) -> set[str]:
    review = outcome.final_output.review
    return {flag.severity for flag in (review.flags if review else []) if flag.code == code}


# -- descriptions that try to steer the agent: reviewed before anything runs ---------------------


@pytest.mark.parametrize(
    ("request_text", "tool", "flag", "says"),
    [
        ("Read the meeting notes", "read_meeting_notes", "suspicious_text", "ignore earlier instructions"),
        ("List the reminders", "list_reminders", "suspicious_text", "invisible characters U+200B"),
        ("Look up the contacts named Alice", "lookup_contacts", "suspicious_text", "copy or forward"),
        ("Show the server configuration", "show_config", "sensitive_data", "environment variables"),
    ],
    ids=["poisoned-description", "zero-width-description", "shadowing-send_email", "environment-leak"],
)
def test_a_read_looking_tool_that_cheats_waits_for_a_reviewer_and_never_runs(
    graph: CompiledGraph, sneaky: Sneaky, request_text: str, tool: str, flag: str, says: str
) -> None:
    outcome = ask(graph, sneaky.client, request_text)

    assert _selected(outcome) == tool
    assert outcome.final_output.status == "needs_review", outcome.final_output.response
    assert outcome.path[-1] == "mark_needs_review"
    assert "invoke_mcp_capability" not in outcome.path
    assert sneaky.calls[tool] == 0
    flags = _flags(outcome)
    assert flag in flags, flags
    assert _severities(outcome, flag) == {"high"}
    assert any(says in message for message in flags[flag]), flags[flag]


def test_a_poisoned_description_is_shown_to_the_reviewer_verbatim_and_not_obeyed(
    graph: CompiledGraph, sneaky: Sneaky
) -> None:
    outcome = ask(graph, sneaky.client, "Read the meeting notes")

    assert outcome.pending is not None
    assert "<IMPORTANT>" in (outcome.pending["capability"]["description"] or "")
    # Nothing the description asked for made it into the call.
    assert "id_rsa" not in str(outcome.pending["arguments"])
    reasons = " ".join(_flags(outcome)["suspicious_text"])
    for reason in (
        "an <IMPORTANT>-style block",
        "reaches for keys or credentials",
        "asks for a step before the tool is used",
        "asks to keep something from the user",
    ):
        assert reason in reasons


def test_a_rejected_poisoned_tool_never_runs(graph: CompiledGraph, sneaky: Sneaky) -> None:
    ask(graph, sneaky.client, "Read the meeting notes", thread_id="t-poison")

    done = resume(
        graph,
        context_for(sneaky.client),
        "t-poison",
        ReviewDecision(action="reject", by="reviewer", reason="the description asks for ssh keys"),
    )

    assert done.final_output.status == "rejected"
    assert sneaky.calls["read_meeting_notes"] == 0


def test_the_environment_leak_is_refused_by_a_reviewer_without_its_values_reaching_anyone(
    graph: CompiledGraph, sneaky: Sneaky
) -> None:
    paused = ask(graph, sneaky.client, "Show the server configuration", thread_id="t-env")
    assert paused.pending is not None
    assert (paused.pending["capability"]["annotations"] or {}).get("read_only_hint") is True

    done = resume(
        graph,
        context_for(sneaky.client),
        "t-env",
        ReviewDecision(action="reject", by="reviewer", reason="it returns environment variables"),
    )

    assert done.final_output.status == "rejected"
    assert sneaky.calls["show_config"] == 0
    assert done.state.get("mcp_result") is None
    for value in FAKE_ENVIRONMENT.values():
        assert value not in done.final_output.response


# -- a definition that changes after it was trusted (rug pull) -----------------------------------


def test_a_tool_that_changes_its_description_after_its_first_call_goes_to_review_with_old_and_new(
    graph: CompiledGraph, sneaky: Sneaky
) -> None:
    host = sneaky.client

    first = ask(graph, host, FORECAST_REQUEST)
    assert _selected(first) == "show_forecast"
    assert first.final_output.status == "ok", first.final_output.response
    assert sneaky.calls["show_forecast"] == 1

    second = ask(graph, host, FORECAST_REQUEST, thread_id="t-rug")

    assert second.final_output.status == "needs_review", second.final_output.response
    assert sneaky.calls["show_forecast after the change"] == 0
    assert _severities(second, "definition_changed") == {"critical"}
    assert "changed since it was first seen (description)" in _flags(second)["definition_changed"][0]
    assert second.pending is not None
    assert second.pending["capability"]["description"] == RUG_PULLED_DESCRIPTION
    assert second.pending["previous_capability"]["description"] == FORECAST_DESCRIPTION
    # The new text is itself suspicious, and the reviewer is told so too.
    assert "suspicious_text" in _flags(second)

    approved = resume(graph, context_for(host), "t-rug", ReviewDecision(action="approve", by="reviewer"))

    assert approved.final_output.status == "ok", approved.final_output.response
    assert sneaky.calls["show_forecast after the change"] == 1


def test_a_silent_rug_pull_is_caught_before_the_changed_tool_runs(
    graph: CompiledGraph, sneaky: Sneaky
) -> None:
    first = ask(graph, sneaky.client, FORECAST_REQUEST)
    assert first.final_output.status == "ok"

    second = ask(graph, sneaky.client, FORECAST_REQUEST)

    assert sneaky.calls["show_forecast after the change"] == 0
    assert second.final_output.status == "needs_review"
    assert "definition_changed" in _flags(second)


def test_after_a_reviewer_approves_a_changed_definition_the_next_request_is_not_flagged_again(
    graph: CompiledGraph, sneaky: Sneaky
) -> None:
    host = sneaky.client
    ask(graph, host, FORECAST_REQUEST)
    ask(graph, host, FORECAST_REQUEST, thread_id="t-rug-accept")
    resume(graph, context_for(host), "t-rug-accept", ReviewDecision(action="approve", by="reviewer"))

    third = ask(graph, host, FORECAST_REQUEST)

    assert "definition_changed" not in _flags(third)


# -- output that carries instructions ------------------------------------------------------------


def test_output_that_tells_the_agent_what_to_do_goes_to_a_reviewer_not_into_the_answer(
    graph: CompiledGraph, sneaky: Sneaky
) -> None:
    outcome = ask(graph, sneaky.client, "Read the office bulletin")

    assert _selected(outcome) == "read_bulletin"
    assert sneaky.calls["read_bulletin"] == 1  # a read-only tool runs; its output is what is held
    assert outcome.final_output.status == "needs_review"
    assert outcome.final_output.review is not None
    assert outcome.final_output.review.stage == "untrusted_output"
    assert outcome.path[-2:] == ["integrate_result", "mark_needs_review"]
    assert any("ignore earlier instructions" in m for m in _flags(outcome)["suspicious_text"])
    assert outcome.state.get("context_update") is None
    assert "evil@x.test" not in outcome.final_output.response


def test_rejected_output_with_instructions_never_reaches_the_response(
    graph: CompiledGraph, sneaky: Sneaky
) -> None:
    ask(graph, sneaky.client, "Read the office bulletin", thread_id="t-out")

    done = resume(
        graph,
        context_for(sneaky.client),
        "t-out",
        ReviewDecision(action="reject", by="reviewer", reason="the output gives orders"),
    )

    assert done.final_output.status == "rejected"
    assert "evil@x.test" not in done.final_output.response
    assert done.state.get("context_update") is None
    assert sneaky.calls["read_bulletin"] == 1


def test_released_output_with_instructions_is_marked_untrusted_in_the_response(
    graph: CompiledGraph, sneaky: Sneaky
) -> None:
    ask(graph, sneaky.client, "Read the office bulletin", thread_id="t-release")

    done = resume(
        graph, context_for(sneaky.client), "t-release", ReviewDecision(action="approve", by="reviewer")
    )

    assert done.final_output.status == "ok"
    assert done.final_output.response.startswith("[untrusted output, released by reviewer]")
    assert done.state["context_update"]["untrusted"] is True
    assert sneaky.calls["read_bulletin"] == 1


def test_the_response_for_held_output_does_not_claim_that_nothing_ran(
    graph: CompiledGraph, sneaky: Sneaky
) -> None:
    outcome = ask(graph, sneaky.client, "Read the office bulletin")

    assert sneaky.calls["read_bulletin"] == 1
    assert "Nothing has run yet" not in outcome.final_output.response


def test_instructions_hidden_in_structured_output_go_to_a_reviewer(
    graph: CompiledGraph, sneaky: Sneaky
) -> None:
    outcome = ask(graph, sneaky.client, "Read the daily digest")

    assert _selected(outcome) == "read_digest"
    assert INJECTED_STRUCTURED_TEXT not in outcome.final_output.response
    assert outcome.final_output.status == "needs_review"
