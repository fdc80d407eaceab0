"""The time limits of one session's calls in flight, which stand still while a person answers
that server: a question during a call (elicitation) or a request for a completion (sampling).
A person takes minutes; a call is given seconds."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import anyio


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
