"""Why a decision or an operator's message could not be applied. Each message says what to do
instead."""

from __future__ import annotations

from mcp_host.reported import EXIT_ALREADY_DECIDED, ConflictError, RefusalError


class ReviewError(RefusalError):
    """Base of every refusal by the review service."""


class NothingToResumeError(ReviewError):
    def __init__(self, thread_id: str) -> None:
        super().__init__(f"thread {thread_id} is not waiting for a decision")
        self.thread_id = thread_id


class DecisionNotAllowedError(ReviewError):
    """The decision does not fit the stage the thread is paused at."""


class ReviewNotFoundError(ReviewError):
    """No review has that id."""


class AmbiguousReviewIdError(ReviewNotFoundError):
    """A short id that more than one review starts with: the full id says which."""

    def __init__(self, short: str, matches: list[str]) -> None:
        listed = ", ".join(matches)
        super().__init__(f"review id {short} is ambiguous: it could be {listed}; give the full id")
        self.short = short
        self.matches = matches


class AlreadyDecidedError(ReviewError, ConflictError):
    """Someone else decided first (exit 3)."""

    exit_code = EXIT_ALREADY_DECIDED

    def __init__(self, review_id: str, status: str, by: str | None, at: str | None) -> None:
        who = by or "someone"
        when = f" at {at}" if at else ""
        super().__init__(f"review {review_id} was already decided by {who}{when} ({status})")
        self.review_id = review_id
        self.status = status
        self.by = by
        self.at = at


class NotPermittedError(ReviewError):
    """The policy does not let this person make this decision."""


# The operator's refusals (reviews/requests.py). Not ReviewErrors: a page that catches a
# reviewer's refusal (ReviewError) does not catch these, nor did it before they moved here.
class ThreadBusyError(RefusalError):
    """The thread waits for a reviewer, so an operator's new message cannot be applied."""


class NotAllowedError(RefusalError):
    """The policy's roster does not let this user do this."""


class ThreadNotFoundError(RefusalError):
    """No thread has that id, and none starts with it (reviews/thread_ids.py)."""


class AmbiguousThreadIdError(ThreadNotFoundError):
    """A short thread id that more than one thread starts with: more of the id says which."""

    def __init__(self, short: str, matches: list[str], titles: list[str]) -> None:
        listed = "; ".join(f"{thread} ({title})" for thread, title in zip(matches, titles, strict=True))
        super().__init__(f"thread id {short} is ambiguous: it could be {listed}; give more of the id")
        self.short = short
        self.matches = matches
