"""Ids as people see them on screen: short, and unambiguous in practice.

Thread ids are 32 hex characters (graph/runner.new_thread_id) and review ids are built from
them (``<thread>-r<round>``, graph/nodes/review.py review_id): a table whose first column is such an
id says nothing a person can take in. The first 8 characters of a thread id tell threads
apart among thousands; a review id keeps its round. The full id stays in links, the JSON and
CLI contracts and a tooltip or a details view, where it is copied rather than read.
"""

from __future__ import annotations

import re

SHORT_LENGTH = 8

_REVIEW = re.compile(r"(?P<thread>.+)-r(?P<round>\d+)")


def short_thread(thread_id: str) -> str:
    """The first SHORT_LENGTH characters of a thread id (a shorter id as it is)."""
    return thread_id[:SHORT_LENGTH]


def short_review(review_id: str) -> str:
    """A review id with its thread part shortened: ``<first 8 of the thread>-r<round>``. An id
    of another shape is shortened as a thread id is, with an ellipsis saying it was cut."""
    match = _REVIEW.fullmatch(review_id)
    if match:
        return f"{short_thread(match['thread'])}-r{match['round']}"
    return review_id if len(review_id) <= SHORT_LENGTH else f"{review_id[:SHORT_LENGTH]}…"
