"""Resuming a paused thread: approvals run once, rejections explain, answers continue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graph.builder import CompiledGraph, compile_graph, open_sqlite_checkpointer
from graph.runner import start_request
from graph.state import ReviewDecision
from graph.trace import route_from_checkpoints
from mcp_host.sdk_client import SdkMcpClient
from reviews.errors import DecisionNotAllowedError, NothingToResumeError
from reviews.resume import resume
from servers.catalog import build_all
from tests.fakes import FaultInjectingClient, failure, opaque_pdf
from tests.graph.routes import EXECUTE, TO_REVIEW
from tests.support import ask, context_for

EMAIL = "Send an email to bob@example.com saying hi"


def _outbox(data_dir: Path) -> list[dict[str, object]]:
    path = data_dir / "outbox.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_approval_runs_the_reviewed_call_exactly_once(
    graph: CompiledGraph, client: FaultInjectingClient, data_dir: Path
) -> None:
    paused = ask(graph, client, EMAIL, thread_id="t-mail", requester="operator")
    assert _outbox(data_dir) == []

    done = resume(graph, context_for(client), "t-mail", ReviewDecision(action="approve", by="reviewer"))

    assert done.path == ["mark_needs_review", *EXECUTE, "integrate_result", "generate_final_response"]
    assert done.final_output.status == "ok"
    assert done.final_output.review is not None
    assert done.final_output.review.decided_by == "reviewer"
    assert [(m["to"], m["body"]) for m in _outbox(data_dir)] == [("bob@example.com", "hi")]
    assert paused.final_output.review is not None
    assert done.final_output.review.id == paused.final_output.review.id
    with pytest.raises(NothingToResumeError):
        resume(graph, context_for(client), "t-mail", ReviewDecision(action="approve", by="reviewer"))
    assert len(_outbox(data_dir)) == 1
    assert route_from_checkpoints(graph, "t-mail") == [*TO_REVIEW, *done.path[1:]]


def test_rejection_ends_with_the_reviewers_reason_and_runs_nothing(
    graph: CompiledGraph, client: FaultInjectingClient, data_dir: Path
) -> None:
    ask(graph, client, EMAIL, thread_id="t-rej")

    done = resume(
        graph,
        context_for(client),
        "t-rej",
        ReviewDecision(action="reject", by="reviewer", reason="wrong recipient"),
    )

    assert done.path == ["mark_needs_review", "generate_final_response"]
    assert done.final_output.status == "rejected"
    assert "wrong recipient" in done.final_output.response
    assert "reviewer" in (done.final_output.fallback_reason or "")
    assert _outbox(data_dir) == []
    assert client.calls == []


def test_rejection_without_a_reason_is_refused_and_the_thread_keeps_waiting(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    ask(graph, client, EMAIL, thread_id="t-noreason")

    with pytest.raises(DecisionNotAllowedError, match="reason"):
        resume(graph, context_for(client), "t-noreason", ReviewDecision(action="reject", by="reviewer"))

    still = resume(graph, context_for(client), "t-noreason", ReviewDecision(action="expire", by="sweeper"))
    assert still.final_output.status == "expired"


def test_edited_arguments_are_revalidated_and_the_edited_call_runs(
    graph: CompiledGraph, client: FaultInjectingClient, data_dir: Path
) -> None:
    ask(graph, client, EMAIL, thread_id="t-edit")
    edited = {"to": "carol@example.com", "body": "hello Carol"}

    done = resume(
        graph,
        context_for(client),
        "t-edit",
        ReviewDecision(action="approve", by="reviewer", arguments=edited),
    )

    assert done.path[:3] == ["mark_needs_review", "validate_capability", "build_mcp_request"]
    assert done.final_output.status == "ok"
    assert [(m["to"], m["body"]) for m in _outbox(data_dir)] == [("carol@example.com", "hello Carol")]


def test_edited_arguments_that_break_the_schema_run_nothing(
    graph: CompiledGraph, client: FaultInjectingClient, data_dir: Path
) -> None:
    ask(graph, client, EMAIL, thread_id="t-bad-edit")

    done = resume(
        graph,
        context_for(client),
        "t-bad-edit",
        ReviewDecision(action="approve", by="reviewer", arguments={"to": 42, "body": "hi"}),
    )

    assert done.final_output.status == "needs_clarification"
    assert done.final_output.review is not None
    assert "invalid_argument" in [flag.code for flag in done.final_output.review.flags]
    assert _outbox(data_dir) == []


def test_clarification_answer_resumes_the_same_thread(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    paused = ask(graph, client, "Please greet someone for me.", thread_id="t-greet")
    assert paused.final_output.missing_arguments == ["name"]

    done = resume(
        graph, context_for(client), "t-greet", ReviewDecision(action="answer", by="operator", text="Ada")
    )

    assert done.final_output.status == "ok"
    assert "Hello, Ada!" in done.final_output.response
    assert done.final_output.thread_id == "t-greet"
    assert client.calls == [("greeter", "greet", {"name": "Ada"})]


def test_clarification_answer_naming_its_argument_fills_it(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    ask(graph, client, "Send an email to bob@example.com", thread_id="t-body")

    done = resume(
        graph,
        context_for(client),
        "t-body",
        ReviewDecision(action="answer", by="operator", text='body="see you at 5"'),
    )

    # The answer completes the arguments; sending still needs a reviewer.
    assert done.final_output.status == "needs_review"
    assert done.pending is not None
    assert done.pending["arguments"] == {"to": "bob@example.com", "body": "see you at 5"}


def test_a_reviewer_decision_cannot_answer_a_clarification(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    ask(graph, client, "Please greet someone for me.", thread_id="t-wrong")

    with pytest.raises(DecisionNotAllowedError):
        resume(graph, context_for(client), "t-wrong", ReviewDecision(action="approve", by="reviewer"))


def test_approved_retry_after_failure_runs_the_call_once_more(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    client.faults["filesystem__list_directory"] = [
        failure("auth", "token expired"),
        failure("auth", "token expired"),
    ]
    ask(graph, client, "List the files in the managed project folder.", thread_id="t-retry")
    client.faults.clear()

    done = resume(graph, context_for(client), "t-retry", ReviewDecision(action="approve", by="reviewer"))

    assert done.final_output.status == "ok"
    assert len(client.calls) == 2


def test_released_opaque_output_is_marked_untrusted(
    graph: CompiledGraph, client: FaultInjectingClient
) -> None:
    client.faults["docs://support-handbook"] = [opaque_pdf]
    ask(graph, client, "Read the support handbook document.", thread_id="t-release")

    done = resume(graph, context_for(client), "t-release", ReviewDecision(action="approve", by="reviewer"))

    assert done.final_output.status == "ok"
    assert done.state["context_update"]["untrusted"] is True
    assert done.final_output.response.startswith("[untrusted output, released by reviewer]")


def test_paused_thread_survives_a_restart_on_the_sqlite_file(data_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "gatehouse.db"
    with SdkMcpClient(build_all(data_dir)) as first_process:
        saver = open_sqlite_checkpointer(db)
        paused = start_request(compile_graph(saver), context_for(first_process), EMAIL, thread_id="t-restart")
        saver.conn.close()
    assert paused.final_output.status == "needs_review"

    with SdkMcpClient(build_all(data_dir)) as second_process:
        saver = open_sqlite_checkpointer(db)
        mode = saver.conn.execute("PRAGMA journal_mode").fetchone()[0]
        done = resume(
            compile_graph(saver),
            context_for(second_process),
            "t-restart",
            ReviewDecision(action="approve", by="reviewer"),
        )
        saver.conn.close()

    assert mode == "wal"
    assert done.final_output.status == "ok"
    assert [m["to"] for m in _outbox(data_dir)] == ["bob@example.com"]
