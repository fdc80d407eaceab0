"""What an operator's message does, as two functions over the services: kept for scripts and
tests that call ``ask(services, text)``. The use case itself is the request service's
(reviews/requests.py RequestService), which the command line and the pages call."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gatehouse.wiring import Services
    from graph.runner import RunOutcome, StepListener, TextListener


def thread_owner(services: Services, thread_id: str) -> str | None:
    """Who started a thread (RequestService.thread_owner)."""
    return services.requests.thread_owner(thread_id)


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
    """Send an operator's message (RequestService.ask)."""
    return services.requests.ask(
        text,
        thread_id=thread_id,
        requester=requester,
        server_preferences=server_preferences,
        on_step=on_step,
        on_text=on_text,
    )
