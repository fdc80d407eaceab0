"""The sidebar's "Reviews waiting on you": the pending reviews the person at the browser may
decide, refreshed by itself on every page, and made noticeable when one arrives.

Only the reviews this person may decide are counted (ReviewService.waiting_on: the same rule
that decides whether their decision is accepted), not the whole queue: a reviewer's own
request under four-eyes, a review for another role and one they already approved wait for
someone else. The Reviews page's "Pending (N)" still counts the whole queue it lists.

A new review waiting on you shows as a toast on the page, in the tab's title ("(2) ..."),
and, while the tab is out of sight, as a browser notification once the person agreed to them
(gatehouse/web/tab_attention.py). Only what is new since the session's last refresh is
announced: reviews already waiting when the page opened, or when the person picked another
name, are counted, not announced.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import streamlit as st

from gatehouse.display.visible_text import visible
from gatehouse.web.literal import markdown_literal
from gatehouse.web.live_queue import REFRESH_SECONDS
from gatehouse.web.live_view import live_fragment
from gatehouse.web.page import current_user, may_review, services, shared_looks
from gatehouse.web.short_ids import short_review
from gatehouse.web.tab_attention import NewReview, attention_script

if TYPE_CHECKING:
    from reviews.ledger import Review

LABEL = "Reviews waiting on you"
# Session key: (whose reviews, the ids waiting on them at the last refresh).
_SEEN = "waiting_on_you_seen"


def new_since(seen: tuple[str, frozenset[str]] | None, user: str, waiting: Sequence[Review]) -> list[Review]:
    """The reviews of ``waiting`` that were not waiting on ``user`` at the last refresh
    (``seen``); none on a session's first refresh or the first after a change of name, where
    everything would look new."""
    if seen is None or seen[0] != user:
        return []
    return [review for review in waiting if review.id not in seen[1]]


def announcement(review: Review) -> str:
    """One new review in words (plain text: a requester's and a server's names are theirs)."""
    return visible(
        f"{review.requester} asks for {review.capability_key or 'a call'} (review {short_review(review.id)})"
    )


def live_waiting_count() -> None:
    """Call it inside ``with st.sidebar``. Writes: a read of the pending reviews first expires
    those past their deadline (the app's sweep on a schedule), as the Reviews page's does."""
    live_fragment(_waiting_count, key="sidebar-waiting", every=REFRESH_SECONDS)


def _pending_reviews() -> tuple[Review, ...]:
    app = services()
    app.reviews.expire_overdue()
    return tuple(app.ledger.queue("pending"))


def _waiting_count(timed: bool) -> None:
    app = services()
    # A timed look shares the process's read of the pending reviews with every open tab (each
    # tab then keeps those its person may decide); the page's own run reads afresh.
    pending = shared_looks().look("pending-reviews", _pending_reviews, fresh=not timed)
    user = current_user()
    reviewer = may_review(user)
    waiting = app.reviews.waiting_on(user, pending) if user else []
    fresh: list[Review] = []
    if user:
        fresh = new_since(st.session_state.get(_SEEN), user, waiting)
        st.session_state[_SEEN] = (user, frozenset(review.id for review in waiting))
    if reviewer or waiting:
        st.metric(
            LABEL,
            len(waiting),
            help="Pending reviews you may decide and have not decided yet: your role reviews their kind "
            "and four-eyes does not keep you out. The Reviews page lists every pending review.",
        )
    if fresh:
        text = announcement(fresh[0]) if len(fresh) == 1 else f"{len(fresh):d} new reviews"
        st.toast(
            f"Waiting on you: {markdown_literal(text)}", icon=":material/notifications:", duration="long"
        )
    news = [NewReview(review.id, announcement(review)) for review in fresh]
    st.html(attention_script(len(waiting), news, offer=reviewer), unsafe_allow_javascript=True)
