"""Resume a paused thread with a person's decision. ``Command(resume=...)`` is built only here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from langgraph.types import Command

from graph.runner import RunOutcome, StepListener, TextListener, execute, pending_interrupt
from reviews.edited_arguments import check_storable
from reviews.errors import DecisionNotAllowedError, NothingToResumeError

if TYPE_CHECKING:
    from graph.builder import CompiledGraph
    from graph.context import GraphContext
    from graph.state import ReviewDecision, ReviewPayload

_ALLOWED = {
    "clarification": {"answer", "reject", "expire", "cancel"},
    "before_execution": {"approve", "reject", "expire", "cancel"},
    "after_failure": {"approve", "reject", "expire", "cancel"},
    "untrusted_output": {"approve", "reject", "expire", "cancel"},
}


def check_decision(stage: str, decision: ReviewDecision) -> None:
    allowed = _ALLOWED.get(stage, set())
    if decision.action not in allowed:
        raise DecisionNotAllowedError(
            f"a thread paused for {stage} takes {', '.join(sorted(allowed))}, not {decision.action}"
        )
    if decision.action == "reject" and stage != "clarification" and not (decision.reason or "").strip():
        raise DecisionNotAllowedError("a rejection needs a reason the operator can read")
    if decision.action == "answer" and not (decision.text or "").strip():
        raise DecisionNotAllowedError("an answer to a clarifying question cannot be blank")
    if decision.arguments is not None and stage != "before_execution":
        raise DecisionNotAllowedError("edited arguments are only accepted before execution")
    if decision.arguments is not None:
        check_storable(decision.arguments)


def resume(
    graph: CompiledGraph,
    context: GraphContext,
    thread_id: str,
    decision: ReviewDecision,
    *,
    pending: ReviewPayload | None = None,
    on_step: StepListener | None = None,
    on_text: TextListener | None = None,
) -> RunOutcome:
    """Continue a paused thread with a person's decision. ``pending`` is the payload the
    caller just read for this thread (saves reading the checkpoint twice)."""
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
    return execute(
        graph,
        context,
        Command(resume=decision.model_dump(mode="json")),
        thread_id,
        on_step=on_step,
        on_text=on_text,
    )
