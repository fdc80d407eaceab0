"""Resume a paused thread with a person's decision. ``Command(resume=...)`` is built only here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langgraph.types import Command

from graph.context import ResumeRefusedError
from graph.runner import RunOutcome, StepListener, TextListener, execute, pending_interrupt, stored_trace
from reviews.edited_arguments import check_storable
from reviews.errors import DecisionNotAllowedError, NothingToResumeError
from telemetry.spans import workflow_run

if TYPE_CHECKING:
    from graph.builder import CompiledGraph
    from graph.context import GraphContext
    from graph.state import ReviewDecision, ReviewPayload


def check_decision(stage: str, decision: ReviewDecision) -> None:
    """The one gate for a decision on a paused thread: it fits the stage (graph/state.py
    ReviewDecision.problem_at, the rule written once) and edited arguments can be stored and
    sent. The review service calls it before anything is recorded; resume calls it for every
    caller (a refusal there leaves the thread paused)."""
    problem = decision.problem_at(stage)
    if problem is not None:
        raise DecisionNotAllowedError(problem)
    if decision.arguments is not None:
        check_storable(decision.arguments)


def resume_value(decision: ReviewDecision, review_id: str) -> dict[str, Any]:
    """What a thread waiting on ``review_id`` is resumed with: the decision, naming the review
    it decides; the graph checks it against the ledger's record of that review
    (graph/nodes/review.py, reviews/resume_check.py)."""
    return decision.model_dump(mode="json") | {"review_id": review_id}


def resume(
    graph: CompiledGraph,
    context: GraphContext,
    thread_id: str,
    decision: ReviewDecision,
    *,
    pending: ReviewPayload | None = None,
    on_step: StepListener | None = None,
    on_text: TextListener | None = None,
    trace: dict[str, str] | None = None,
) -> RunOutcome:
    """Continue a paused thread with a person's decision. ``pending`` is the payload the
    caller just read for this thread (saves reading the checkpoint twice); ``trace`` the
    request's stored trace context, when the caller read it already (else read here, when
    tracing is on): the continuation is part of the request's trace."""
    pending = pending if pending is not None else pending_interrupt(graph, thread_id)
    if pending is None:
        raise NothingToResumeError(thread_id)
    # Free text loses NUL characters (PostgreSQL cannot store them; nobody can read them).
    decision = decision.model_copy(
        update={
            "text": decision.text.replace("\x00", "") if decision.text else decision.text,
            "reason": decision.reason.replace("\x00", "") if decision.reason else decision.reason,
        }
    )
    check_decision(pending["stage"], decision)
    parent = trace if trace is not None else stored_trace(graph, thread_id)
    with workflow_run(thread_id, run="resume", parent=parent):
        run = execute(
            graph,
            context,
            # The review it decides, by id: the graph checks the decision against the ledger's
            # record of that review (graph/nodes/review.py, reviews/resume_check.py).
            Command(resume=resume_value(decision, pending["review_id"])),
            thread_id,
            on_step=on_step,
            on_text=on_text,
        )
    # The graph refuses a resume that is not the review's recorded decision by waiting again.
    if run.pending is not None and run.pending.get("review_id") == pending["review_id"]:
        refused = run.pending.get("resume_refused")
        if refused:
            raise ResumeRefusedError(refused)
    return run
