"""A server asking the host for a language-model completion in the middle of a call
(``sampling/createMessage``).

As with elicitation (mcp_host/elicitation.py), the host only carries the request: whoever holds
the session pool decides how it is answered (a reviewer, then a model or the reviewer's own
text; a test). The pool hands every request to one ``SamplingHandler`` with the server's name,
and declares the sampling capability to servers only when a handler is there.

A request waits for a person, which takes minutes, not the seconds a call is given: while one
of a server's requests is with the handler, the time limits of that server's calls in flight
stand still (``CallClocks``), and the handler bounds the wait itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

import anyio
from mcp.types import CreateMessageRequestParams, CreateMessageResult, ErrorData

# The MCP specification's error code for a sampling request the user rejected (client/sampling,
# "Error Handling"). Every refusal by the host uses it: a reviewer's, an expired wait, a limit.
SAMPLING_REFUSED = -1


class SamplingHandler(Protocol):
    """Answers one server's request for a completion, or refuses it with ErrorData (the server
    gets the error); raising is a refusal too."""

    async def __call__(
        self, server: str, params: CreateMessageRequestParams
    ) -> CreateMessageResult | ErrorData: ...


class CallClocks:
    """The time limits of one session's calls in flight, which stand still while a person
    answers a request of that server (a sampling request made during one of those calls)."""

    def __init__(self) -> None:
        # Each call's cancel scope, with the seconds it had left when its clock was stopped.
        self._calls: dict[anyio.CancelScope, float | None] = {}
        self._people_answering = 0

    @contextmanager
    def bounded(self, seconds: float) -> Iterator[None]:
        """``anyio.fail_after(seconds)`` whose clock stops while a person answers the server."""
        with anyio.fail_after(seconds) as scope:
            self._calls[scope] = None
            if self._people_answering:
                self._stop(scope)
            try:
                yield
            finally:
                del self._calls[scope]

    @contextmanager
    def person_answering(self) -> Iterator[None]:
        self._people_answering += 1
        if self._people_answering == 1:
            for scope in self._calls:
                self._stop(scope)
        try:
            yield
        finally:
            self._people_answering -= 1
            if self._people_answering == 0:
                now = anyio.current_time()
                for scope, left in self._calls.items():
                    if left is not None:
                        scope.deadline = now + left
                        self._calls[scope] = None

    def _stop(self, scope: anyio.CancelScope) -> None:
        if self._calls[scope] is None and not math.isinf(scope.deadline):
            self._calls[scope] = max(scope.deadline - anyio.current_time(), 0.0)
            scope.deadline = math.inf
