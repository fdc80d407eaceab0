"""Calls to a language model with a time limit, and reasons a person can read when one fails.

A chat model's own client has a timeout of its own (set where the model is made), but not every
provider has one, and a provider's retries can add up: every call here also has a wall-clock
limit. A call past it is abandoned (its worker finishes or times out in the background) and
the caller falls back. Errors are reported in one line with secrets hidden: a provider's
message must never carry a key into a flag, a log or a page.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable

from mcp_host.reported import UnavailableError
from policies.secrets import redact_text

# Calls in flight at once across every session (an abandoned call holds a worker until its
# client gives up).
_WORKERS = 8
_REASON_CHARS = 160
# A streamed answer may take several times the wait for its first words, never without end.
_STREAM_BUDGET = 4


class ModelFailure(UnavailableError):
    """The model gave no usable answer: the message is the one-line reason shown as a flag."""


def failure_reason(exc: BaseException) -> str:
    """One line naming the failure, with anything shaped like a secret hidden."""
    first_line = (str(exc).strip().splitlines() or [""])[0]
    detail = redact_text(first_line)[:_REASON_CHARS]
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


_END = object()


class ModelCaller:
    """Runs model calls on worker threads and waits for each at most ``timeout`` seconds."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="gatehouse-model")

    def invoke(self, runnable: Runnable[Any, Any], messages: Sequence[BaseMessage]) -> AIMessage:
        future = self._pool.submit(runnable.invoke, list(messages))
        try:
            reply = future.result(timeout=self.timeout)
        except FutureTimeout as exc:
            future.cancel()
            raise ModelFailure(f"the language model did not answer within {self.timeout:g} s") from exc
        except Exception as exc:  # any provider error means: fall back (re-raised as ModelFailure)
            raise ModelFailure(f"the language model failed ({failure_reason(exc)})") from exc
        if not isinstance(reply, AIMessage):
            raise ModelFailure(f"the language model answered with a {type(reply).__name__}, not a message")
        return reply

    def stream_text(
        self, runnable: Runnable[Any, Any], messages: Sequence[BaseMessage], on_text: Callable[[str], None]
    ) -> str:
        """The model's text answer, each piece handed to ``on_text`` as it arrives (on the
        caller's thread). Waits at most ``timeout`` for each piece."""
        pieces: queue.Queue[object] = queue.Queue()
        stop = threading.Event()

        def produce() -> None:
            try:
                for chunk in runnable.stream(list(messages)):
                    if stop.is_set():
                        return
                    text = getattr(chunk, "text", "")
                    if isinstance(text, str) and text:
                        pieces.put(text)
                pieces.put(_END)
            except Exception as exc:  # noqa: BLE001 - handed to the waiting caller
                pieces.put(exc)

        self._pool.submit(produce)
        deadline = time.monotonic() + self.timeout * _STREAM_BUDGET
        written: list[str] = []
        try:
            while True:
                wait = min(self.timeout, deadline - time.monotonic())
                try:
                    item = pieces.get(timeout=max(wait, 0.0))
                except queue.Empty as exc:
                    raise ModelFailure(
                        f"the language model stopped answering for {self.timeout:g} s"
                    ) from exc
                if item is _END:
                    return "".join(written)
                if isinstance(item, BaseException):
                    raise ModelFailure(f"the language model failed ({failure_reason(item)})") from item
                text = str(item)
                written.append(text)
                on_text(text)
        finally:
            stop.set()
