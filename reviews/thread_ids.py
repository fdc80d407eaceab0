"""A thread named the way people name it: its full id, the short id shown on screen (the first
characters, gatehouse/web/short_ids.py), or the id of one of its reviews, full or short.

Every front end that takes a thread (the Traces page's thread box, a chat link, `gatehouse
trace`, `ask --thread`, `reviews withdraw`) resolves it here, so a short id copied from one
screen works on every other, and a start that several threads share is refused naming them
rather than guessed. Short ids are looked up among the threads that have a conversation: every
run through the services records one (reviews/service.py record_run).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from reviews.errors import (
    AmbiguousReviewIdError,
    AmbiguousThreadIdError,
    ReviewNotFoundError,
    ThreadNotFoundError,
)
from reviews.ledger import MIN_SHORT_LENGTH

if TYPE_CHECKING:
    from reviews.conversations import Conversations
    from reviews.ledger import ReviewLedger

# How many candidates an ambiguous short id lists (one more is read, to know there are more).
CANDIDATES_SHOWN = 5
# A review's id: ``<thread>-r<round>`` (graph/nodes/review.py review_id), or its short form.
_REVIEW = re.compile(r".+-r\d+")
_TITLE_CHARS = 40


def resolve_thread(
    reference: str,
    *,
    conversations: Conversations,
    ledger: ReviewLedger,
    exists: Callable[[str], bool],
) -> str:
    """The full id of the thread ``reference`` names. Reads only.

    Args:
        reference: a full thread id (any thread with checkpoints), the start of one (at least
            MIN_SHORT_LENGTH letters and digits, as shown on screen), or a review's id, full
            or short (its thread).
        conversations: where the threads' ids are listed.
        ledger: where the reviews' ids are.
        exists: whether a full id has checkpoints.

    Raises:
        AmbiguousThreadIdError: several threads (or reviews) start so; it names them.
        ThreadNotFoundError: none does, or the reference is too short to look up.
    """
    wanted = reference.strip()
    if not wanted:
        raise ThreadNotFoundError("no thread id given")
    if exists(wanted):
        return wanted
    if _REVIEW.fullmatch(wanted):
        return _thread_of_review(wanted, conversations, ledger)
    if not (wanted.isascii() and wanted.isalnum()):
        raise ThreadNotFoundError(f"no thread {wanted}")
    if len(wanted) < MIN_SHORT_LENGTH:
        raise ThreadNotFoundError(
            f"no thread {wanted}: give at least {MIN_SHORT_LENGTH} characters of its id"
        )
    found = conversations.starting_with(wanted, limit=CANDIDATES_SHOWN + 1)
    if len(found) > 1:
        shown = found[:CANDIDATES_SHOWN]
        raise AmbiguousThreadIdError(wanted, [c.thread_id for c in shown], [_title(c.title) for c in shown])
    if not found:
        raise ThreadNotFoundError(f"no thread {wanted}: no thread id starts with it")
    return found[0].thread_id


def _thread_of_review(wanted: str, conversations: Conversations, ledger: ReviewLedger) -> str:
    try:
        review_id = ledger.resolve_id(wanted)
    except AmbiguousReviewIdError as exc:
        titles = [_title_of(ledger.thread_of(match), conversations) for match in exc.matches]
        raise AmbiguousThreadIdError(wanted, exc.matches, titles) from exc
    except ReviewNotFoundError as exc:
        raise ThreadNotFoundError(f"no thread {wanted}: {exc}") from exc
    thread = ledger.thread_of(review_id)
    if thread is None:
        raise ThreadNotFoundError(f"no thread {wanted}: review {review_id} names none")
    return thread


def _title_of(thread: str | None, conversations: Conversations) -> str:
    conversation = conversations.get(thread) if thread else None
    return _title(conversation.title) if conversation else "no conversation"


def _title(title: str) -> str:
    return title if len(title) <= _TITLE_CHARS else f"{title[: _TITLE_CHARS - 1]}…"
