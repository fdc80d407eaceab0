"""What an operator's message does: start a request, or answer the question a thread asked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gatehouse.errors import NotAllowedError, ThreadBusyError
from graph.runner import RunOutcome, new_thread_id, pending_interrupt, start_request
from graph.state import ReviewDecision
from reviews.resume import resume

if TYPE_CHECKING:
    from gatehouse.wiring import Services


def ask(
    services: Services,
    text: str,
    *,
    thread_id: str | None = None,
    requester: str = "operator",
    server_preferences: list[str] | None = None,
) -> RunOutcome:
    """Send an operator's message. On a thread waiting for clarification it is the answer."""
    if not services.policy.may_request(requester):
        roster = ", ".join(sorted(services.policy.policy.users)) or "nobody"
        raise NotAllowedError(f"{requester!r} may not make requests under this policy; its roster: {roster}")
    if thread_id is not None:
        pending = pending_interrupt(services.graph, thread_id)
        if pending is not None and pending["stage"] == "clarification":
            decision = ReviewDecision(action="answer", by=requester, text=text)
            services.reviews.record_request(text, thread_id=thread_id, requester=requester)
            answered = resume(services.graph, services.context, thread_id, decision)
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
    )
    services.reviews.record_run(run, actor=requester)
    return run
