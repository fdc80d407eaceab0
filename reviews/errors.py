"""Why a decision could not be applied. Each message says what to do instead."""

from __future__ import annotations


class ReviewError(Exception):
    """Base of every refusal by the review service."""


class NothingToResumeError(ReviewError):
    def __init__(self, thread_id: str) -> None:
        super().__init__(f"thread {thread_id} is not waiting for a decision")
        self.thread_id = thread_id


class DecisionNotAllowedError(ReviewError):
    """The decision does not fit the stage the thread is paused at."""
