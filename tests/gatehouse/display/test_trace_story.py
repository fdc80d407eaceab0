"""A trace told for a demo: steps numbered in the order they ran (a loop gives a step two
numbers, on the diagram too), named in the chat's words, inputs from what each node's docstring
says it reads, and a decision as a sentence with the arguments a reviewer edited."""

from __future__ import annotations

from datetime import UTC
from typing import Any

import pytest

from gatehouse.display.step_labels import STEP_LABELS, step_label
from gatehouse.display.trace_story import decision_of, executed, field_label, panel, readable, story
from graph.builder import build_graph
from graph.diagram import step_numbers
from graph.state import GraphState
from graph.trace import node_reads

NODES = [name for name in build_graph().nodes if not name.startswith("__")]


def step(node: str | None, **extra: Any) -> dict[str, Any]:
    return {"node": node, "request": 1, "at": "2026-11-28T10:00:00+00:00", "values": {}, **extra}


def decided(action: str, *, stage: str = "before_execution", **decision: Any) -> dict[str, Any]:
    review: dict[str, Any] = {"stage": stage, "changes": decision.pop("changes", None)}
    return step(
        "mark_needs_review",
        decision={
            "action": action,
            "by": decision.pop("by", "alice"),
            "at": "2026-11-28T10:00:00+00:00",
            **decision,
        },
        values={"review": review},
    )


def test_every_node_of_the_graph_has_plain_words_and_documented_inputs() -> None:
    assert sorted(STEP_LABELS) == sorted(NODES)
    for node in NODES:
        assert node_reads(node), f"{node}'s docstring names no field it reads"
        assert set(node_reads(node)) <= set(GraphState.__annotations__)
    assert step_label("a_node_not_yet_worded") == "a_node_not_yet_worded"


def test_steps_are_numbered_in_the_order_they_ran_and_a_wait_has_no_number() -> None:
    steps = [
        step("validate_capability", inputs={"proposed_arguments": {"to": "bob@example.com"}}),
        step("mark_needs_review", interrupt={"stage": "before_execution"}),
    ]
    finished = [
        steps[0],
        step(None, waiting="before_execution", duration_s=12.34),
        decided("approve"),
        step("validate_capability", values={"status": None}),
    ]

    told = story(finished, zone=UTC)

    assert [(s.number, s.label) for s in told] == [
        (1, "Checked it against the policy"),
        (None, "Waited 12.3 s for a person (before execution)"),
        (2, "Stopped for a person"),
        (3, "Checked it against the policy"),
    ]
    assert told[0].inputs == ["Proposed arguments:", "    to: bob@example.com"]
    assert told[3].outputs == ["Status: (none)"]
    assert executed(told) == ["validate_capability", "mark_needs_review", "validate_capability"]
    assert step_numbers(executed(told)) == {"validate_capability": [1, 3], "mark_needs_review": [2]}
    assert story(steps)[1].paused == "Waiting for a person now (before execution)"


@pytest.mark.parametrize(
    ("decision", "sentence"),
    [
        (decided("approve"), "Approved by alice at 10:00 UTC"),
        (
            decided(
                "approve",
                changes={"proposed": {"body": "hi", "to": "bob"}, "approved": {"body": "hello", "to": "bob"}},
            ),
            "Approved by alice at 10:00 UTC, with edits to body",
        ),
        (decided("reject", by="bob", reason="not this week"), "Rejected by bob at 10:00 UTC: not this week"),
        (decided("cancel", by="operator"), "Withdrawn by operator at 10:00 UTC"),
        (decided("expire", by="gatehouse"), "Expired at 10:00 UTC: nobody decided in time"),
        (decided("approve", stage="untrusted_output"), "Output released by alice at 10:00 UTC"),
        (decided("answer", stage="clarification", text="to carol"), "alice answered the question: to carol"),
    ],
    ids=["approve", "approve with edits", "reject", "withdraw", "expire", "release", "answer"],
)
def test_a_decision_is_a_sentence_saying_who_did_what(decision: dict[str, Any], sentence: str) -> None:
    told = decision_of(decision, zone=UTC)

    assert told is not None
    assert told.sentence.replace("28 Nov, ", "") == sentence


def test_an_approval_with_edits_carries_the_diff_of_each_edited_argument() -> None:
    told = decision_of(
        decided(
            "approve", changes={"proposed": {"body": "hi"}, "approved": {"body": "hello", "cc": "carol"}}
        ),
        zone=UTC,
    )

    assert told is not None
    assert [(c.name, c.diff) for c in told.changes] == [
        ("body", "- hi\n+ hello"),
        ("cc", "- (not set)\n+ carol"),
    ]
    assert told.sentence.endswith("with edits to body, cc")


def test_values_read_as_short_lines_nested_ones_too() -> None:
    assert field_label("mcp_request") == "MCP request"
    assert field_label("selected_capability") == "Selected capability"
    assert readable({"server": "email", "name": "send_email"}) == "server: email · name: send_email"
    assert readable(["a", "b"]) == "a; b"
    assert readable(None) == readable([]) == "(none)"
    assert readable(list(range(10))) == "0; 1; 2; 3; 4; 5; 6; 7 and 2 more"
    assert len(readable("x" * 1000)) == 160
    assert readable({"arguments": {"to": ["bob"], "body": "hi"}}) == "arguments: to: bob · body: hi"
    assert panel({"mcp_request": {"name": "send_email", "arguments": {"body": "hi"}}, "errors": []}) == [
        "MCP request:",
        "    name: send_email",
        "    arguments: body: hi",
        "Errors: (none)",
    ]
    assert panel({"errors": [], "status": None}, skip_empty=True) == []
