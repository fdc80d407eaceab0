"""Approve a review in a process that dies at a chosen point of carrying the decision out.

    python -m tests.reviews.crashing_decider DATA SERVERS REVIEW_ID POINT

POINT is where the process ends itself (``os._exit``, no cleanup, like a kill):
``before_start`` (the decision is recorded, the call's start is not), ``after_start`` (the
start is journaled, the call not made), ``after_result`` (the call ran and its result is
recorded, the thread's checkpoint after it is not written). The review service and the graph
are the real ones; only the hooks that report to the ledger are wrapped to end the process.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from graph.context import CallOutcome, ReviewHooks
from tests.reviews.review_support import services_for

_DIED = 86


class _DieAt:
    def __init__(self, hooks: ReviewHooks, point: str) -> None:
        self._hooks = hooks
        self._point = point

    def review_opened(self, payload: dict[str, Any]) -> None:
        self._hooks.review_opened(payload)

    def call_starting(self, review_id: str, call_hash: str, thread_id: str) -> bool:
        if self._point == "before_start":
            os._exit(_DIED)
        started = self._hooks.call_starting(review_id, call_hash, thread_id)
        if self._point == "after_start":
            os._exit(_DIED)
        return started

    def call_finished(self, review_id: str, outcome: CallOutcome, result: dict[str, Any]) -> None:
        self._hooks.call_finished(review_id, outcome, result)
        if self._point == "after_result":
            os._exit(_DIED)

    def recorded_result(self, review_id: str) -> dict[str, Any] | None:
        return self._hooks.recorded_result(review_id)


def main() -> None:
    data, servers, review_id, point = sys.argv[1:5]
    with services_for(Path(data), servers=Path(servers)) as services:
        service = services.reviews
        service.context = replace(service.context, reviews=_DieAt(service.context.reviews, point))
        service.decide(review_id, reviewer="reviewer", approve=True)
    sys.exit("the decision was carried out without reaching the crash point")


if __name__ == "__main__":
    main()
