"""Requests the chat runs on threads of their own, which the page follows while they run.

A request used to run inside the page's script run, and a page cannot take a click while its
script waits inside a call. A server that asks the operator a question during the call (MCP
elicitation) needs exactly that click: the form is on the page and the call waits for it. So
the chat starts each run here and follows it: each step and each piece of a model's answer
is kept for the page to draw, a click reruns the page while the run goes on (the next rerun
follows the same run again), and the run's answer is in the stored conversation when it ends.
A run outlives the page that started it: closing the tab does not stop a request half-way.

One registry per process (the app keeps it with its services); one run at a time per thread.
Nothing here touches Streamlit: a run may not draw, it only records.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from gatehouse.errors import NotAllowedError, ThreadBusyError
from reviews.errors import ReviewError

_LOG = logging.getLogger(__name__)


@dataclass(eq=False)
class RunInProgress:
    thread_id: str
    # Graph steps as they complete, and a language model's answer as it is written.
    steps: list[str] = field(default_factory=list)
    text: str = ""
    # What the operator should read instead of an answer (a refusal, a failure).
    notice: str | None = None
    finished: threading.Event = field(default_factory=threading.Event)

    def add_step(self, step: str) -> None:
        self.steps.append(step)

    def add_text(self, piece: str) -> None:
        self.text += piece


Work = Callable[[RunInProgress], None]


class RunsInProgress:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, RunInProgress] = {}

    def start(self, thread_id: str, work: Work) -> RunInProgress:
        """Run ``work`` on a thread of its own; ThreadBusyError while the thread has one going."""
        with self._lock:
            current = self._runs.get(thread_id)
            if current is not None and not current.finished.is_set():
                raise ThreadBusyError(
                    f"a request is still running on thread {thread_id}; wait for its answer, "
                    "or start a new thread"
                )
            # Runs that ended with nothing to tell are in the stored conversation already.
            for key, ended in list(self._runs.items()):
                if ended.finished.is_set() and ended.notice is None:
                    del self._runs[key]
            run = RunInProgress(thread_id)
            self._runs[thread_id] = run
        threading.Thread(
            target=self._run, args=(run, work), name=f"chat-run-{thread_id[:8]}", daemon=True
        ).start()
        return run

    @staticmethod
    def _run(run: RunInProgress, work: Work) -> None:
        try:
            work(run)
        except (ThreadBusyError, NotAllowedError, ReviewError) as exc:
            run.notice = str(exc)
        except Exception as exc:  # noqa: BLE001 - no page is there to show a traceback: say it failed
            _LOG.exception("a chat request failed")
            run.notice = f"The request failed ({type(exc).__name__}); the app's log has the details."
        finally:
            run.finished.set()

    def of(self, thread_id: str) -> RunInProgress | None:
        """The thread's run started in this process: running, or finished and not collected."""
        with self._lock:
            return self._runs.get(thread_id)

    def collect(self, run: RunInProgress) -> str | None:
        """Forget a finished run; its notice, for the page to show once."""
        with self._lock:
            if self._runs.get(run.thread_id) is run and run.finished.is_set():
                del self._runs[run.thread_id]
        notice, run.notice = run.notice, None
        return notice
