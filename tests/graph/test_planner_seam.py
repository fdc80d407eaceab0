"""The planner seam: the graph asks whichever planner the context holds, and whatever it
proposes goes through the same validation and policy (a planner chooses, it never permits)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from graph.builder import CompiledGraph
from graph.context import Limits
from graph.planner.arguments import Extraction
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.intent import IntentDecision
from graph.planner.protocol import Composition, Planner, PlanningRequest, Selection
from graph.planner.scoring import ScoredCapability
from graph.runner import start_request
from mcp_host.manifest import Capability
from tests.fakes import FaultInjectingClient
from tests.support import context_for


class ScriptedPlanner:
    """Chooses the capability named ``key`` with ``arguments``, whatever the request says."""

    def __init__(self, key: str, arguments: dict[str, object], *, fallback: str | None = None) -> None:
        self.key = key
        self.arguments = arguments
        self.fallback = fallback
        self.composed: list[Composition] = []

    @property
    def label(self) -> str:
        return "scripted"

    def classify(self, text: str) -> IntentDecision:
        if text.startswith("What is"):
            return IntentDecision("answer_without_mcp", "none", "a general question")
        return IntentDecision("execute_tool", "tool", "an operation")

    def select(
        self, request: PlanningRequest, capabilities: Sequence[Capability], limits: Limits
    ) -> Selection:
        chosen = next(c for c in capabilities if c.key == self.key)
        return Selection(
            candidates=[ScoredCapability(chosen, 9.0, ["+9 scripted"])],
            chosen=ScoredCapability(chosen, 9.0, ["+9 scripted"]),
            explanation=f"Chose {chosen.key} as scripted.",
            fallback=self.fallback,
        )

    def extract(self, capability: Capability, request: PlanningRequest) -> Extraction:
        return Extraction(
            arguments=dict(self.arguments),
            sources={name: "scripted" for name in self.arguments},
            evidence={name: str(value) for name, value in self.arguments.items()},
        )

    def answer(self, question: str) -> str | None:
        return f"An answer to: {question}"

    def compose(self, composition: Composition) -> str:
        self.composed.append(composition)
        return f"Composed from {composition.capability}: {len(composition.result_text or '')} characters"


def run(graph: CompiledGraph, client: FaultInjectingClient, planner: Planner, text: str) -> dict[str, object]:
    context = replace(context_for(client), planner=planner)
    return start_request(graph, context, text).final_output.model_dump()


def test_a_planners_write_proposal_still_waits_for_a_reviewer(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    planner = ScriptedPlanner(
        "email__send_email", {"to": "bob@example.com", "subject": "hi", "body": "hello"}
    )

    output = run(graph, client, planner, "tell bob hello")

    assert output["status"] == "needs_review"
    assert client.calls == []
    assert output["planner"] == "scripted"
    assert output["explanation"] == "Chose email__send_email as scripted."
    assert output["arguments"] == {"to": "bob@example.com", "subject": "hi", "body": "hello"}


def test_a_read_runs_and_the_planner_writes_the_answer_from_the_result(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    planner = ScriptedPlanner("filesystem__list_directory", {})

    output = run(graph, client, planner, "what do we have")

    assert output["status"] == "ok"
    assert [c.capability for c in planner.composed] == ["filesystem__list_directory"]
    assert "sample.txt" in (planner.composed[0].result_text or "")
    assert str(output["response"]).startswith("Composed from filesystem__list_directory:")
    # The raw result is still there beside the planner's words.
    assert "sample.txt" in str(output["result"])


def test_a_general_question_is_answered_by_the_planner_when_it_can(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    output = run(graph, client, ScriptedPlanner("filesystem__list_directory", {}), "What is MCP?")

    assert output["status"] == "answered_without_mcp"
    assert output["response"] == "An answer to: What is MCP?"


def test_a_fallback_planners_choice_carries_a_flag(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    planner = ScriptedPlanner(
        "email__send_email",
        {"to": "bob@example.com", "subject": "hi", "body": "hello"},
        fallback="the model timed out; the deterministic planner chose",
    )

    output = run(graph, client, planner, "tell bob hello")

    review = output["review"]
    assert isinstance(review, dict)
    assert {"code": "planner_fallback", "severity": "medium", "message": planner.fallback} in review["flags"]


def test_the_deterministic_planner_explains_its_choice_and_cites_each_argument(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    output = run(
        graph, client, DeterministicPlanner(), "Send an email to bob@example.com subject Hello saying see you"
    )

    assert output["planner"] == "deterministic (offline, no language model)"
    assert str(output["explanation"]).startswith("Chose email's send_email")
    evidence = output["argument_evidence"]
    assert isinstance(evidence, dict)
    request = "Send an email to bob@example.com subject Hello saying see you"
    assert evidence and all(str(words) in request for words in evidence.values())
