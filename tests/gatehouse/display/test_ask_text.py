"""`gatehouse ask`'s text: a question is offered an answer only while the thread waits for it."""

from __future__ import annotations

from typing import Any

from gatehouse.display.render import render_text


def output(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "status": "needs_clarification",
        "response": "To run shell/shell_execute I need: command.",
        "selected_capability": {"server": "shell", "type": "tool", "name": "shell_execute"},
        "missing_arguments": ["command"],
        "thread_id": "t1",
        "errors": [],
        "server_notes": [],
    }
    return base | fields


def test_a_question_says_how_to_answer_it() -> None:
    text = render_text(output())

    assert "missing:    command" in text
    assert 'answer with: gatehouse ask --thread t1 "command=..."' in text


def test_a_refused_call_offers_no_answer_for_the_arguments_it_lacked() -> None:
    # mcp-shell-server's shell_execute, asked for without its command: the policy refuses it,
    # and answering "command=..." on the thread could never make it run.
    refusal = "policy rule shell access refused shell__shell_execute: Arbitrary commands are never run."
    text = render_text(output(status="error", response=refusal, errors=[refusal]))

    assert "answer with" not in text and "missing:" not in text
    assert refusal in text
