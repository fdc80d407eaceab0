"""Whether a server's question during an MCP client's call can be put to that client, and, for
the calls this process runs, the endpoint's answer to the host's question "may I ask?"
(reviews/asking.py ``decline_when``).

A client can be asked only on MCP 2026-07-28, where the answer to a call may be an
``InputRequiredResult`` (or, with the tasks extension, a task whose status is
``input_required``), and only in the modes of elicitation it declared on its request (a bare
``elicitation: {}`` counts as forms, as the SDK reads it). A 2025-11-25 client on this stateless
endpoint has no channel a question could travel on (it would need the session's stream of a
stateful server), so its questions are declined; so are those of a call that is no client's
call of this process (a read or a prompt, which cannot be answered with an input request here).
Every decline is said: in the log of `gatehouse serve`, in the audit log (``question_refused``),
and in the call's own result (``declined_note``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

    from reviews.questions import QuestionMode

# Why a question is declined when the call is no client call this process runs.
NOT_A_CLIENT_CALL = (
    "the call came through Gatehouse's MCP endpoint outside a client's tool call (a read or a prompt), "
    "which cannot ask its client"
)
_LEGACY = (
    "the client speaks MCP {version}, which cannot be asked during a call on Gatehouse's stateless "
    "endpoint (MCP 2026-07-28 clients are asked)"
)
_NOT_DECLARED = "the client did not declare {what} elicitation, so it cannot be asked"


@dataclass(frozen=True)
class Reach:
    """The question modes a client takes during its call, and why it takes none (when so)."""

    modes: frozenset[QuestionMode]
    why_not: str = ""

    @property
    def can_be_asked(self) -> bool:
        return bool(self.modes)

    def refusal(self, mode: QuestionMode) -> str | None:
        """Why a question of ``mode`` is declined for this client; None when it is asked."""
        if mode in self.modes:
            return None
        if not self.modes:
            return self.why_not
        return _NOT_DECLARED.format(what="URL" if mode == "url" else "form")


def reach_of(ctx: ServerRequestContext[Any]) -> Reach:
    """What the client of this request can be asked."""
    version = ctx.protocol_version
    if version not in MODERN_PROTOCOL_VERSIONS:
        return Reach(frozenset(), _LEGACY.format(version=version))
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    if elicitation is None:
        return Reach(frozenset(), _NOT_DECLARED.format(what="any"))
    modes: set[QuestionMode] = set()
    if elicitation.form is not None or elicitation.url is None:
        modes.add("form")
    if elicitation.url is not None:
        modes.add("url")
    return Reach(frozenset(modes))


class ClientReaches:
    """The threads of the client calls this process is running, with their clients' reach; the
    declines of each, kept for its result. Read from the host's event loop (the question
    handler) and written from the runs' worker threads: behind a lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reaches: dict[str, tuple[Reach, list[str]]] = {}

    @contextmanager
    def reaching(self, thread_id: str, reach: Reach) -> Iterator[list[str]]:
        """While the block runs the thread's call, its questions go by ``reach``; yields the
        lines saying which were declined and why (filled as they are)."""
        declined: list[str] = []
        with self._lock:
            self._reaches[thread_id] = (reach, declined)
        try:
            yield declined
        finally:
            with self._lock:
                self._reaches.pop(thread_id, None)

    def decline_reason(self, thread_id: str, server: str, mode: QuestionMode) -> str | None:
        """reviews/asking.py's DeclineReason: why the question must be declined, None to ask it."""
        with self._lock:
            entry = self._reaches.get(thread_id)
        if entry is None:
            return NOT_A_CLIENT_CALL
        reach, declined = entry
        reason = reach.refusal(mode)
        if reason is not None:
            declined.append(f"{server} asked a question during the call; Gatehouse declined it: {reason}.")
        return reason


def declined_note(result: types.CallToolResult, declined: list[str]) -> types.CallToolResult:
    """The result with a line for each question declined during the call, so that the client
    learns why the server went on without an answer."""
    if not declined:
        return result
    notes = [types.TextContent(type="text", text=line) for line in declined]
    return result.model_copy(update={"content": [*result.content, *notes]})
