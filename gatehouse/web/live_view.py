"""How the live views refresh themselves cheaply: a fragment that looks again every few seconds,
and reads that every open tab of the process shares for the length of a look.

Every open tab reruns its live views every few seconds (REFRESH_SECONDS in live_queue.py), so
what one look costs is paid by every tab, all the time. Two things keep it small:

- ``live_fragment`` tells the view whether this call is a timed look (the fragment rerunning by
  itself) or the page's own run (a load, a click, a decision just made), so a look may use a
  shared read and the page's own run reads afresh: a person always sees the effect of their own
  action at once.
- ``SharedLooks`` keeps each named read (the pending count, the first page of the queue) for
  FRESH_SECONDS and hands it to every session that looks meanwhile: a dozen tabs cost one read
  per look, not a dozen. A change made anywhere (another tab, replica or `gatehouse` command)
  shows in a tab within its next look plus FRESH_SECONDS.

The rest of a look's cost was Streamlit's full garbage collection after every run, turned off
in .streamlit/config.toml (``runner.postScriptGC``; docs/benchmark.md, figure 10).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import streamlit as st

T = TypeVar("T")

# Short beside a look's interval (3 s): a change reaches a tab at most this much later than
# without sharing, while the tabs that look within the same second share one read.
FRESH_SECONDS = 1.0


class SharedLooks:
    """Named reads shared by every session of the process for ``fresh_for`` seconds (one per
    process: gatehouse/web/page.py ``shared_looks``). Thread-safe: sessions run on threads of
    their own. A read that raises is not kept."""

    def __init__(self, fresh_for: float = FRESH_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self._fresh_for = fresh_for
        self._clock = clock
        self._lock = threading.Lock()
        self._kept: dict[Hashable, tuple[float, Any]] = {}

    def look(self, name: Hashable, read: Callable[[], T], *, fresh: bool = False) -> T:
        """``read()``'s value, shared: the one kept under ``name`` if younger than ``fresh_for``
        (and ``fresh`` is False), else a new read, kept for the next looks."""
        now = self._clock()
        with self._lock:
            kept = self._kept.get(name)
        if kept is not None and not fresh and now - kept[0] < self._fresh_for:
            value: T = kept[1]
            return value
        value = read()
        with self._lock:
            self._kept[name] = (now, value)
        return value


def live_fragment(body: Callable[[bool], T], *, key: str, every: float | None) -> T | None:
    """Run ``body(timed)`` in a fragment that reruns by itself every ``every`` seconds (None:
    only when its own widgets are used). ``timed`` is False for the call the page's run makes,
    True for the fragment's reruns after it: a timed look may use shared reads. ``key`` names
    the view in the session (one per view on a page)."""
    runs = f"live-view-run-{key}"
    run = st.session_state[runs] = int(st.session_state.get(runs, 0)) + 1
    fragment = st.fragment(_look, run_every=every)
    result: T | None = fragment(body, key, run)
    return result


def _look(body: Callable[[bool], T], key: str, run: int) -> T:
    seen = f"live-view-seen-{key}"
    timed = st.session_state.get(seen) == run
    st.session_state[seen] = run
    return body(timed)
