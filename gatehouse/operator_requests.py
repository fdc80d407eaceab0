"""What an operator's message does: start a request, or answer the question a thread asked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gatehouse.errors import NotAllowedError, ThreadBusyError
from graph.runner import (
    RunOutcome,
    StepListener,
    TextListener,
    new_thread_id,
    pending_interrupt,
    start_request,
    thread_config,
    thread_exists,
)
from graph.state import ReviewDecision
from reviews.resume import resume

if TYPE_CHECKING:
    from gatehouse.wiring import Services


def thread_owner(services: Services, thread_id: str) -> str | None:
    """Who started a thread: its conversation's owner, else the requester in its checkpoints."""
    conversation = services.conversations.get(thread_id)
    if conversation is not None:
        return conversation.owner
    if not thread_exists(services.graph, thread_id):
        return None
    requester = services.graph.get_state(thread_config(thread_id)).values.get("requester")
    return str(requester) if requester else None


def _check_ownership(services: Services, thread_id: str, requester: str) -> None:
    """Only a thread's owner continues it or answers its questions; a role allowed to take
    threads over may, and that is recorded."""
    owner = thread_owner(services, thread_id)
    if owner is None or owner == requester:
        return
    if not services.policy.may_take_over(requester):
        raise NotAllowedError(
            f"thread {thread_id} belongs to {owner}; only {owner}, or a role allowed to take threads over, "
            "may continue it"
        )
    services.audit.append("thread_taken_over", {"owner": owner}, thread_id=thread_id, actor=requester)


def ask(
    services: Services,
    text: str,
    *,
    thread_id: str | None = None,
    requester: str = "operator",
    server_preferences: list[str] | None = None,
    on_step: StepListener | None = None,
    on_text: TextListener | None = None,
) -> RunOutcome:
    """Send an operator's message. On a thread waiting for clarification it is the answer.
    ``on_step`` hears each graph step as it completes (the chat's progress display), and
    ``on_text`` each piece of an answer a language model writes."""
    if not services.policy.may_request(requester):
        roster = ", ".join(sorted(services.policy.policy.users)) or "nobody"
        raise NotAllowedError(f"{requester!r} may not make requests under this policy; its roster: {roster}")
    if thread_id is not None:
        _check_ownership(services, thread_id, requester)
        pending = pending_interrupt(services.graph, thread_id)
        if pending is not None and pending["stage"] == "clarification":
            decision = ReviewDecision(action="answer", by=requester, text=text)
            services.reviews.record_request(text, thread_id=thread_id, requester=requester)
            answered = resume(
                services.graph, services.context, thread_id, decision, on_step=on_step, on_text=on_text
            )
            services.reviews.record_run(answered, actor=requester)
            return answered
        if pending is not None:
            raise ThreadBusyError(
                f"thread {thread_id} waits for a reviewer (review {pending['review_id']}); "
                "your message was not applied"
            )
    thread = thread_id or new_thread_id()
    services.reviews.record_request(text, thread_id=thread, requester=requester)
    run = start_request(
        services.graph,
        services.context,
        text,
        thread_id=thread,
        requester=requester,
        server_preferences=server_preferences,
        on_step=on_step,
        on_text=on_text,
    )
    services.reviews.record_run(run, actor=requester)
    return run
