"""`gatehouse trace` as text speaks as the Traces page does: each step numbered in the order it
ran and named in plain words (gatehouse/display/step_labels.py), the wait for a person, and the
reviewer's decision as a sentence with the argument they edited. `--json` keeps the graph's
node names, for machines."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gatehouse.display.step_labels import STEP_LABELS, step_label
from tests.graph.routes import TO_REVIEW
from tests.reviews.review_support import EMAIL_REQUEST, email_servers, gatehouse, services_for

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")


def numbered_steps(text: str) -> list[tuple[int, str]]:
    """The ``N. label`` lines of the text output, as (N, label)."""
    found = re.findall(r"^ *(\d+)\. (.+?)  +\+\d", text, flags=re.MULTILINE)
    return [(int(number), label.strip()) for number, label in found]


def test_trace_text_numbers_plain_steps_and_tells_the_decision_as_a_sentence(data_dir: Path) -> None:
    with services_for(data_dir, servers=email_servers(data_dir)) as services:
        first = services.requests.ask(EMAIL_REQUEST)
        thread = first.final_output.thread_id
        assert first.final_output.review is not None
        services.reviews.decide(
            first.final_output.review.id,
            reviewer="reviewer",
            approve=True,
            arguments={"to": "bob@example.com", "body": "Hello Bob"},
        )
        # A second request on the thread runs the same steps again: a loop, with numbers of its own.
        services.requests.ask("Send an email to bob@example.com saying again", thread_id=thread)

    shown = gatehouse(data_dir, "trace", thread)
    as_json = gatehouse(data_dir, "trace", "--json", thread)

    assert shown.returncode == 0 and as_json.returncode == 0, (shown.stderr, as_json.stderr)
    text = shown.stdout
    # No graph node name is left in the text; every step is in the page's words.
    assert [node for node in STEP_LABELS if re.search(rf"\b{node}\b", text)] == []
    steps = numbered_steps(text)
    assert [number for number, _ in steps] == list(range(1, len(steps) + 1))
    ran = [step["node"] for step in json.loads(as_json.stdout)["steps"] if step["node"] is not None]
    assert [label for _, label in steps] == [step_label(node) for node in ran]
    # Both requests read the request: two numbers for the same step.
    assert [number for number, label in steps if label == "Read the request"] == [
        1,
        ran.index("preprocess_request", 1) + 1,
    ]
    # An approval with edits checks the call again: the policy check is run (and numbered) twice.
    checked = [number for number, label in steps if label == "Checked it against the policy"]
    assert checked == [n for n, node in enumerate(ran, start=1) if node == "validate_capability"]
    assert len(checked) == 3
    assert "Request 1" in text and "Request 2" in text
    # The wait, then the decision as a sentence with the edited argument, then the step that read it.
    assert re.search(r"Waited \d+\.\d s for a person \(before execution\)", text)
    decision = re.search(r"^ +Approved by reviewer at .+, with edits to body$", text, flags=re.MULTILINE)
    assert decision is not None
    after = text[decision.end() :]
    assert re.search(r"- hi\n +\+ Hello Bob", after)
    assert re.search(rf"^ *{len(TO_REVIEW)}\. Stopped for a person ", after, flags=re.MULTILINE)
    # The second request waits for a reviewer now.
    assert text.rstrip().endswith("Waiting for a person now (before execution)")

    # The machines' output keeps the node names and their order.
    assert ran[: len(TO_REVIEW)] == TO_REVIEW
    assert "mark_needs_review" in as_json.stdout
