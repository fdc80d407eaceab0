"""The operator's "which one?" question, through the real graph: it says why it is asked (two
capabilities fit about equally well, the planner is not sure of its best fit, or the request is
in another language it reads only roughly), and it never offers a capability the policy refuses
whatever the arguments. One choice left is offered alone, and answering with its name runs it;
none left is answered as the refusal a refused closest fit gets. Nothing runs while it asks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from graph.builder import CompiledGraph
from graph.context import GraphContext
from graph.runner import start_request
from graph.state import FinalOutput, ReviewDecision
from mcp_host.sdk_client import SdkMcpClient
from policies.engine import PolicyEngine
from policies.loader import parse_policy_text
from reviews.resume import resume
from tests.fakes import FaultInjectingClient
from tests.graphs import memory_graph
from tests.reviews.review_support import DEFAULT_POLICY_TEXT
from tests.support import DEFAULT_TEST_POLICY

graph = memory_graph

LISTING = "List the files in the project folder."
# Read in French: the e-mail tool and the ticket update are its best fits (words left unread).
FRENCH_EMAIL = "Envoie un courriel à bob@example.com pour dire bonjour"
DOUBTFUL = "How much can we still spend this month?"
EQUALLY_WELL = "fit this request about equally well"
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def _refusing(match: str, name: str, explanation: str) -> PolicyEngine:
    """The shipped policy with a rule before its own that refuses ``match`` whatever the arguments."""
    anchor = '[[rules]]\nname = "shell access"\n'
    rule = (
        f'[[rules]]\nname = "{name}"\nmatch = ["{match}"]\naction = "deny"\nexplanation = "{explanation}"\n\n'
    )
    assert DEFAULT_POLICY_TEXT.count(anchor) == 1
    policy = parse_policy_text(
        DEFAULT_POLICY_TEXT.replace(anchor, rule + anchor),
        source="refusing.toml",
        variables={"GATEHOUSE_DATA": "/nonexistent/gatehouse-data"},
    )
    return PolicyEngine(policy)


def _flag_messages(output: FinalOutput) -> list[str]:
    assert output.review is not None
    return [flag.message for flag in output.review.flags if flag.code == "ambiguous_selection"]


def _choices(output: FinalOutput) -> list[str]:
    assert output.review is not None
    return [choice.key for choice in output.review.choices]


def ledger_server() -> MCPServer:
    """A household ledger: "how much can we still spend" is its balance by meaning more than by
    words, so the planner is not sure of it."""
    server = MCPServer("ledger")

    @server.tool(description="Money left in the household budget this month.", annotations=READ_ONLY)
    def balance() -> str:
        return "120 EUR left"

    @server.tool(description="Book a spending entry (amount, category) into the household budget.")
    def record_expense(amount: float, category: str) -> str:
        return "booked"

    @server.tool(
        description="Temperature, rain and wind for the coming days at a place.", annotations=READ_ONLY
    )
    def forecast(city: str) -> str:
        return "sunny"

    return server


@pytest.fixture
def ledger() -> Iterator[GraphContext]:
    with SdkMcpClient({"ledger": ledger_server()}) as mcp:
        yield GraphContext(mcp=mcp, policy=PolicyEngine(DEFAULT_TEST_POLICY))


# -- why it asks ---------------------------------------------------------------------------


def test_two_capabilities_that_fit_equally_well_are_still_asked_about_in_those_words(
    graph: CompiledGraph, mirrored_client: FaultInjectingClient
) -> None:
    context = GraphContext(mcp=mirrored_client, policy=PolicyEngine(DEFAULT_TEST_POLICY))

    output = start_request(graph, context, LISTING).final_output

    assert output.status == "needs_clarification"
    assert output.response == (
        "Two capabilities fit this request about equally well: filesystem__list_directory and "
        "mirror__list_directory. Which one do you mean? Reply on this thread with its name."
    )
    assert output.review is not None and output.review.asked is not None
    assert output.review.asked.reason == "tie"
    assert _flag_messages(output) == [
        "filesystem__list_directory and mirror__list_directory fit the request about equally well"
    ]


def test_a_question_asked_out_of_doubt_says_the_planner_is_not_sure_not_that_two_fit_equally(
    graph: CompiledGraph, ledger: GraphContext
) -> None:
    output = start_request(graph, ledger, DOUBTFUL).final_output

    assert output.status == "needs_clarification"
    assert output.response == (
        "I am not sure what this request asks for: ledger__balance or ledger__forecast? "
        "Reply on this thread with the name of the one you mean."
    )
    assert EQUALLY_WELL not in output.response
    assert output.review is not None and output.review.asked is not None
    assert output.review.asked.reason == "doubt"
    assert _flag_messages(output) == [
        "not sure what the request asks for: ledger__balance or ledger__forecast"
    ]


def test_a_question_about_a_request_in_another_language_names_the_language(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    context = GraphContext(mcp=client, policy=PolicyEngine(DEFAULT_TEST_POLICY))

    output = start_request(graph, context, FRENCH_EMAIL).final_output

    assert output.status == "needs_clarification"
    assert output.response == (
        "This request reads as French, which I read only roughly; these fit it best: "
        "email__send_email and tickets__update_ticket. Which one do you mean? Reply on this thread with its name."
    )
    assert _flag_messages(output) == [
        "the request reads as French, read only roughly; its best fits: email__send_email and tickets__update_ticket"
    ]
    assert output.review is not None and output.review.asked is not None
    assert (output.review.asked.reason, output.review.asked.language) == ("language", "French")
    assert client.calls == []


# -- what the policy refuses whatever the arguments is not offered --------------------------


MIRROR_REFUSAL = "policy rule no mirror refused mirror__list_directory: The mirror is closed."


def test_a_choice_the_policy_refuses_whatever_the_arguments_is_not_offered_and_the_other_is_asked_alone(
    graph: CompiledGraph, mirrored_client: FaultInjectingClient
) -> None:
    context = GraphContext(
        mcp=mirrored_client, policy=_refusing("mirror__*", "no mirror", "The mirror is closed.")
    )

    output = start_request(graph, context, LISTING, thread_id="t-one-left").final_output

    assert output.status == "needs_clarification"
    assert _choices(output) == ["filesystem__list_directory"]
    assert output.response == (
        "Two capabilities fit this request about equally well, and only one of them may be asked for: "
        "filesystem__list_directory. Is that what you mean? Not offered, as the policy refuses it whatever "
        f"the arguments: {MIRROR_REFUSAL.rstrip('.')}. Reply on this thread with its name if so, or say in "
        "other words what you meant."
    )
    assert output.review is not None and output.review.asked is not None
    assert output.review.asked.not_offered == [MIRROR_REFUSAL]
    assert mirrored_client.calls == []

    done = resume(
        graph,
        context,
        "t-one-left",
        ReviewDecision(action="answer", by="operator", text="filesystem__list_directory"),
    )

    assert done.final_output.status == "ok"
    assert mirrored_client.calls == [("filesystem", "list_directory", {})]


def test_a_request_in_another_language_whose_other_best_fit_is_refused_offers_the_one_left(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    context = GraphContext(
        mcp=client, policy=_refusing("tickets__update_ticket", "no updates", "Tickets are changed by hand.")
    )

    output = start_request(graph, context, FRENCH_EMAIL).final_output

    assert output.status == "needs_clarification"
    assert _choices(output) == ["email__send_email"]
    assert output.response.startswith(
        "This request reads as French, which I read only roughly; this fits it best: email__send_email. "
        "Is that what you mean? Not offered, as the policy refuses it whatever the arguments: policy rule "
        "no updates refused tickets__update_ticket: Tickets are changed by hand."
    )
    assert client.calls == []


def test_when_the_policy_refuses_every_choice_the_answer_is_the_refusal(
    graph: CompiledGraph, mirrored_client: FaultInjectingClient
) -> None:
    context = GraphContext(
        mcp=mirrored_client, policy=_refusing("*__list_directory", "no listings", "Listings are off.")
    )

    outcome = start_request(graph, context, LISTING)

    output = outcome.final_output
    refusal = "policy rule no listings refused filesystem__list_directory: Listings are off."
    assert output.status == "error"
    assert output.response.startswith(
        "The closest fit for this request, List the files and folders in a directory of the managed project "
        f"folder (filesystem), is refused by the policy whatever the arguments: {refusal} Nothing was run."
    )
    assert output.response.endswith(
        " Not offered: List the files and folders in a directory of the managed project folder (mirror), "
        "which the policy refuses whatever the arguments (policy rule no listings refused "
        "mirror__list_directory: Listings are off)."
    )
    assert output.errors == [refusal]
    assert output.review is None or output.review.choices == []
    assert "validate_capability" not in outcome.path
    assert mirrored_client.calls == []


def test_when_the_planner_s_first_choice_is_refused_the_other_is_asked_about_not_the_refusal_given(
    graph: CompiledGraph, mirrored_client: FaultInjectingClient
) -> None:
    context = GraphContext(
        mcp=mirrored_client, policy=_refusing("filesystem__*", "no filesystem", "Use the mirror.")
    )

    output = start_request(graph, context, LISTING).final_output

    assert output.status == "needs_clarification"
    assert _choices(output) == ["mirror__list_directory"]
    assert output.response.startswith(
        "Two capabilities fit this request about equally well, and only one of them may be asked for: "
        "mirror__list_directory. Is that what you mean? Not offered, as the policy refuses it whatever the "
        "arguments: policy rule no filesystem refused filesystem__list_directory: Use the mirror. "
    )
    assert output.selected_capability is not None and output.selected_capability.server == "mirror"
    assert output.explanation == (
        "Asked about mirror__list_directory: the planner's first choice, filesystem__list_directory, "
        "is refused by the policy whatever the arguments."
    )
    assert output.errors == []
    assert mirrored_client.calls == []
