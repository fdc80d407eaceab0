"""The Traces page tells a request's route to someone watching a demo, in a real browser: the
steps numbered in the order they ran in the chat's plain words (a step run twice, in a loop,
has two numbers, on the diagram too), a legend for the diagram's lines and colours, each step's
inputs and outputs as readable lines, and what a person decided as a sentence, with the diff of
the arguments a reviewer edited. Two people: the operator asks and watches, a reviewer decides
(approves with edits, rejects) or the operator withdraws. The thread box takes the short id
shown on screen, and says so when an id names no thread."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from tests.browser.harness import (
    OpenApp,
    expect_waiting_for_a_reviewer,
    go_to,
    new_thread,
    no_exception,
    reviewer_on_reviews,
    screenshot,
    send_chat,
    wait_for_app,
)

# Up to the reviewer's stop: the same for every e-mail that waits for a reviewer.
TO_REVIEW = [
    "1. Read the request",
    "2. Decided whether a server is needed",
    "3. Asked the servers what they offer",
    "4. Chose a capability",
    "5. Checked it against the policy",
    "6. Stopped for a person",
]
# The operator's page follows a waiting thread every 3 s; allow a few rounds on a busy machine.
FOLLOW_TIMEOUT_MS = 20_000
NODE_NAMES = re.compile(r"mark_needs_review|validate_capability|preprocess_request|generate_final_response")


def steps_shown(page: Page, count: int) -> list[str]:
    """The numbered steps as listed (each expander's title up to its times), once ``count``
    of them are drawn."""
    summaries = page.get_by_test_id("stExpander").locator("summary")
    expect(summaries).to_have_count(count)
    titles = [re.search(r"\d+\. [^·]+", title) for title in summaries.all_inner_texts()]
    return [title.group().strip() for title in titles if title]


def main_text(page: Page) -> str:
    return page.get_by_test_id("stMain").inner_text()


def diagram(page: Page) -> Locator:
    # The drawing (the chart's toolbar, shown on hover, has icons of its own).
    chart = page.get_by_test_id("stGraphVizChart").locator("svg:has(g.graph)")
    expect(chart).to_be_visible()
    return chart


def reads_like_a_story(page: Page) -> None:
    """What every trace shows a stranger: the legend, plain words, no node names on screen
    (they wait in each step's folded details for experts)."""
    legend = page.get_by_test_id("stMarkdown").filter(has_text="How to read the diagram.")
    expect(legend).to_be_visible()
    expect(legend).to_contain_text("solid")
    expect(legend).to_contain_text("dashed")
    expect(legend).to_contain_text("Green")
    expect(legend).to_contain_text("Grey")
    expect(diagram(page).locator("text", has_text="Stopped for a person")).to_have_count(1)
    assert NODE_NAMES.search(main_text(page)) is None, main_text(page)


def open_step(page: Page, title: str) -> Locator:
    """Unfold the step whose title starts with ``title`` and return it."""
    step = page.get_by_test_id("stExpander").filter(has_text=f"{title} · ")
    step.locator("summary").click()
    expect(step.get_by_text("What it read")).to_be_visible()
    return step


def follows_to_traces(operator: Page, status: str) -> None:
    """Once the operator's chat has followed the decision by itself (a click while it redraws
    may be dropped), open Traces."""
    answer = operator.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text(status, exact=True)).to_be_visible(timeout=FOLLOW_TIMEOUT_MS)
    wait_for_app(operator)
    go_to(operator, "Traces")


def operator_asks(open_app: OpenApp, saying: str) -> Page:
    operator = open_app(height=1600)
    new_thread(operator)
    send_chat(operator, f"Send an email to bob@example.com saying {saying}")
    expect_waiting_for_a_reviewer(operator)
    return operator


def test_an_approval_with_edits_is_numbered_step_by_step_with_its_loop_and_its_diff(
    open_app: OpenApp,
) -> None:
    operator = operator_asks(open_app, "as proposed")
    reviewer = reviewer_on_reviews(open_app)
    body = reviewer.get_by_role("textbox", name="body *", exact=True)
    body.fill("as the reviewer wrote it")
    body.press("Control+Enter")
    approve = reviewer.get_by_role("button", name="Approve with my changes")
    expect(approve).to_be_visible()
    wait_for_app(reviewer)
    approve.click()
    expect(reviewer.get_by_text(re.compile(r"Outcome: ok"))).to_be_visible()

    follows_to_traces(operator, "done")

    # The edited arguments go back to the policy check: that step ran twice, as 5 and 7.
    assert steps_shown(operator, 11) == [
        *TO_REVIEW,
        "7. Checked it against the policy",
        "8. Prepared the call",
        "9. Called the server",
        "10. Read the result",
        "11. Wrote the answer",
    ]
    expect(diagram(operator).locator("text", has_text="steps 5, 7")).to_have_count(1)
    expect(diagram(operator).locator("text", has_text="step 11")).to_have_count(1)
    # The decision, without a click: a sentence, then the diff of what the reviewer edited.
    expect(
        operator.get_by_text(
            re.compile(r"^Approved by reviewer at \d\d:\d\d [A-Z+0-9]+, with edits to body$")
        )
    ).to_be_visible()
    diff = operator.get_by_test_id("stCode").filter(has_text="- as proposed")
    expect(diff).to_contain_text("+ as the reviewer wrote it")
    expect(diff).to_be_visible()
    reads_like_a_story(operator)
    # A step's inputs and outputs as lines a person reads; the raw JSON stays folded.
    call = open_step(operator, "9. Called the server")
    read = call.get_by_test_id("stText").filter(has_text="MCP request:")
    expect(read).to_be_visible()
    expect(read).to_contain_text("body: as the reviewer wrote it")
    expect(call.get_by_text("What it produced")).to_be_visible()
    expect(call.get_by_test_id("stText").filter(has_text="MCP result:")).to_contain_text("success: true")
    no_exception(operator)
    screenshot(operator, "traces-edited-approval")


def test_a_rejection_reads_as_who_rejected_and_why(open_app: OpenApp) -> None:
    operator = operator_asks(open_app, "not this week")
    reviewer = reviewer_on_reviews(open_app)
    reviewer.get_by_role("textbox", name=re.compile(r"^Reason")).fill("the team is on holiday")
    reviewer.get_by_role("button", name="Reject", exact=True).click()
    expect(reviewer.get_by_text(re.compile(r"Outcome: rejected"))).to_be_visible()

    follows_to_traces(operator, "rejected")

    assert steps_shown(operator, 7) == [*TO_REVIEW, "7. Wrote the answer"]
    expect(
        operator.get_by_text(
            re.compile(r"^Rejected by reviewer at \d\d:\d\d [A-Z+0-9]+: the team is on holiday$")
        )
    ).to_be_visible()
    expect(
        operator.get_by_text(re.compile(r"Waited \d+\.\d s for a person \(before execution\)"))
    ).to_be_visible()
    reads_like_a_story(operator)
    no_exception(operator)


def test_a_withdrawal_reads_as_the_operator_withdrawing_and_short_ids_find_threads(open_app: OpenApp) -> None:
    operator = operator_asks(open_app, "never mind")
    operator.get_by_role("button", name="Withdraw this request").click()
    expect(operator.get_by_test_id("stChatMessage").last.get_by_text("withdrawn", exact=True)).to_be_visible()
    wait_for_app(operator)

    go_to(operator, "Traces")

    assert steps_shown(operator, 7) == [*TO_REVIEW, "7. Wrote the answer"]
    expect(
        operator.get_by_text(re.compile(r"^Withdrawn by operator at \d\d:\d\d [A-Z+0-9]+$"))
    ).to_be_visible()
    assert "operator decided" not in main_text(operator)
    reads_like_a_story(operator)

    # The thread box: an id that names no thread says so, and shows no thread's steps ...
    listed = operator.get_by_role("combobox", name="Thread", exact=True).input_value()
    short = listed.rsplit(" · ", 1)[1]
    assert re.fullmatch(r"[0-9a-f]{8}", short), listed
    box = operator.get_by_role("textbox", name="or a thread id")
    box.fill("ffffffff")
    box.press("Enter")
    expect(operator.get_by_text("no thread ffffffff: no thread id starts with it.")).to_be_visible()
    wait_for_app(operator)
    assert steps_shown(operator, 0) == []
    # ... and the short id shown in the thread list finds the thread.
    box.fill(short)
    box.press("Enter")
    assert steps_shown(operator, 7) == [*TO_REVIEW, "7. Wrote the answer"]
    expect(operator.get_by_text(re.compile(r"^Withdrawn by operator at "))).to_be_visible()
    expect(operator.get_by_text(re.compile("no thread|No checkpoints"))).to_have_count(0)
    wait_for_app(operator)
    no_exception(operator)
