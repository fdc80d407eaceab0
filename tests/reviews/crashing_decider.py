"""Approve a review in a process that dies at a chosen point of carrying the decision out.

    python -m tests.reviews.crashing_decider DATA SERVERS REVIEW_ID POINT

POINT is where the process ends itself (``os._exit``, no cleanup, like a kill):
``before_start`` (the decision is recorded, the call's start is not), ``after_steps``
(likewise, and the steps that ran after the pause saved their writes while the checkpoints
after them were never written: the background writer of LangGraph's "async" durability had not
got to them), ``after_start`` (the start is journaled, the call not made), ``after_result`` (the
call ran and its result is recorded, the thread's checkpoint after it is not written). The
review service and the graph are the real ones; only the hooks that report to the ledger, and
for ``after_steps`` the checkpointer's ``put``, are wrapped.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver

from graph.context import CallOutcome, ReviewHooks
from graph.state import EffectCheckData, ReviewDecision, ReviewPayload
from tests.reviews.review_support import services_for

_DIED = 86


class _StepWritesOnly:
    """Checkpoints are not written; a step's writes are (LangGraph saves each finished task's
    writes as it ends, the checkpoint after the step later, in the background)."""

    def __init__(self, saver: BaseCheckpointSaver[Any]) -> None:
        self._put_writes = saver.put_writes
        self.step_written = threading.Event()
        saver.put = self._put  # type: ignore[method-assign]
        saver.put_writes = self._record_writes  # type: ignore[method-assign]

    def _put(
        self, config: RunnableConfig, checkpoint: Any, metadata: Any, new_versions: Any
    ) -> RunnableConfig:
        configurable = {**config["configurable"], "checkpoint_id": checkpoint["id"]}
        return {"configurable": configurable}

    def _record_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        self._put_writes(config, writes, task_id, task_path)
        # The resume answer is a write of its own ("__resume__"); a step's output is not.
        if any(not channel.startswith("__") for channel, _ in writes):
            self.step_written.set()


class _DieAt:
    def __init__(self, hooks: ReviewHooks, point: str, steps: _StepWritesOnly | None = None) -> None:
        self._hooks = hooks
        self._point = point
        self._steps = steps

    def review_opened(self, payload: ReviewPayload) -> None:
        self._hooks.review_opened(payload)

    def call_started(self, review_id: str) -> bool:
        return self._hooks.call_started(review_id)

    def call_starting(self, review_id: str, call_hash: str, thread_id: str) -> bool:
        if self._point == "before_start":
            os._exit(_DIED)
        if self._steps is not None:
            # The step before this one has ended; its writes are saved by a background thread.
            self._steps.step_written.wait(timeout=30)
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

    def effect_checked(self, review_id: str, check: EffectCheckData) -> None:
        self._hooks.effect_checked(review_id, check)

    def decision_problem(self, payload: ReviewPayload, decision: ReviewDecision) -> str | None:
        return self._hooks.decision_problem(payload, decision)


def main() -> None:
    data, servers, review_id, point = sys.argv[1:5]
    with services_for(Path(data), servers=Path(servers)) as services:
        service = services.reviews
        checkpointer = service.graph.checkpointer
        assert isinstance(checkpointer, BaseCheckpointSaver)
        steps = _StepWritesOnly(checkpointer) if point == "after_steps" else None
        service.context = replace(service.context, reviews=_DieAt(service.context.reviews, point, steps))
        service.decide(review_id, reviewer="reviewer", approve=True)
    sys.exit("the decision was carried out without reaching the crash point")


if __name__ == "__main__":
    main()
