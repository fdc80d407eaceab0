"""Links to a review (``?review=ID``, what a notification sends and the Reviews page's details
show): whichever page of the app such a link opens, it lands on that review on the Reviews
page; a link whose id names no review says so, in words, where the review would have been.

app.py calls follow_review_link between st.navigation and the page's run, so a link to the
app's root (the Chat page), as notifications sent before the Reviews page's own address was
used, or to any other page still lands on the review. The Reviews page calls
open_linked_review to open it. Each acts once per link and session: a reviewer who goes on to
another review or page is not pulled back to the linked one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from gatehouse.display.visible_text import visible
from gatehouse.web.literal import markdown_literal
from reviews.errors import AmbiguousReviewIdError, ReviewNotFoundError
from reviews.ledger import MIN_SHORT_LENGTH

if TYPE_CHECKING:
    from streamlit.navigation.page import StreamlitPage

    from reviews.ledger import ReviewLedger

# The query parameter a link to a review carries (gatehouse/notifications/webhook_message.py).
LINK_PARAMETER = "review"
# Session keys: the last link followed to the Reviews page, and the last one opened there.
_FOLLOWED = "review_link_followed"
_OPENED = "linked_review"
# (the link, what is wrong with it) for a link that opens no review.
_PROBLEM = "review_link_problem"


def follow_review_link(reviews: StreamlitPage, current: StreamlitPage) -> None:
    """On a page other than ``reviews`` opened with ``?review=ID``: go to ``reviews`` with the
    same query (the identity's ``?as=`` too), once per link and session. Stops this run when
    it goes (st.switch_page)."""
    linked = st.query_params.get(LINK_PARAMETER)
    if not linked or st.session_state.get(_FOLLOWED) == linked:
        return
    st.session_state[_FOLLOWED] = linked
    if current.url_path != reviews.url_path:
        st.switch_page(reviews, query_params=st.query_params.to_dict())


def open_linked_review(ledger: ReviewLedger) -> None:
    """On the Reviews page: open the review ``?review=`` names (its full id, or the short one
    shown on screen when it names one review only), once per link and session, by setting the
    session's open review. An id that names none leaves the page on its queue, with a warning
    saying which id and why, for as long as the address holds that link."""
    linked = st.query_params.get(LINK_PARAMETER)
    if linked and st.session_state.get(_OPENED) != linked:
        st.session_state[_OPENED] = linked
        st.session_state.pop(_PROBLEM, None)
        try:
            st.session_state["open_review"] = ledger.resolve_id(linked)
        except ReviewNotFoundError as exc:
            st.session_state[_PROBLEM] = (linked, link_problem(linked, exc))
    # Said on every run while the address holds that link, not only on the first.
    problem = st.session_state.get(_PROBLEM)
    if problem is not None and problem[0] == linked:
        st.warning(markdown_literal(problem[1]), icon=":material/link_off:")


def link_problem(linked: str, error: ReviewNotFoundError) -> str:
    """What a person is told when a link's id ``linked`` opens no review."""
    if isinstance(error, AmbiguousReviewIdError):
        why = str(error)
    elif len(linked) < MIN_SHORT_LENGTH:
        why = (
            f"{visible(linked)} is too short to name a review: give its full id, or the short id"
            f" shown on screen (at least {MIN_SHORT_LENGTH} letters and digits)"
        )
    else:
        why = f"no review has the id {visible(linked)} (it may have been mistyped or cut off)"
    return f"The link does not open a review: {why}. The queue below is as it stands."
