"""The chat's requests on threads of their own: one at a time per thread, their steps kept for the
page, a refusal or a failure kept as the notice the page shows once."""

from __future__ import annotations

import threading

import pytest

from gatehouse.errors import ThreadBusyError
from gatehouse.web.background_runs import RunInProgress, RunsInProgress


def test_a_run_keeps_its_steps_and_text_for_the_page_and_a_thread_runs_one_at_a_time() -> None:
    runs = RunsInProgress()
    release = threading.Event()

    def work(run: RunInProgress) -> None:
        run.add_step("preprocess_request")
        run.add_text("Hel")
        run.add_text("lo")
        release.wait(30)

    run = runs.start("t1", work)
    with pytest.raises(ThreadBusyError, match="a request is still running on thread t1"):
        runs.start("t1", work)
    other = runs.start("t2", lambda run: None)  # another thread is not held up
    assert other.finished.wait(30)

    release.set()
    assert run.finished.wait(30)
    assert (run.steps, run.text) == (["preprocess_request"], "Hello")
    assert runs.of("t1") is run
    assert runs.collect(run) is None
    assert runs.of("t1") is None
    assert runs.start("t1", lambda run: None).finished.wait(30)


def test_a_refusal_or_a_failure_is_the_notice_the_page_shows_once() -> None:
    runs = RunsInProgress()

    def refused(run: RunInProgress) -> None:
        raise ThreadBusyError("thread t1 waits for a reviewer")

    def broken(run: RunInProgress) -> None:
        raise KeyError("bug")

    first = runs.start("t1", refused)
    second = runs.start("t2", broken)
    assert first.finished.wait(30) and second.finished.wait(30)

    assert runs.collect(first) == "thread t1 waits for a reviewer"
    assert runs.collect(first) is None
    assert runs.collect(second) == "The request failed (KeyError); the app's log has the details."
