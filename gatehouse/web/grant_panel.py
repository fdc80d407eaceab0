"""The Reviews page's remembered approvals (reviews/grant_service.py): the "remember this
approval" choice beside Approve, and the Grants section (the grants that cover calls now, and
revoking one). Kept apart from the page's layout: the page calls these two functions only."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import streamlit as st

from gatehouse.web.literal import markdown_literal
from gatehouse.web.page import services
from reviews.errors import ReviewError
from reviews.grant_service import GRANTABLE_STAGE, Remember, parse_remember

if TYPE_CHECKING:
    from reviews.ledger import Review

REMEMBER_LABEL = "Remember this approval"
# The choices, in the order shown: what the reviewer reads, and what decide() is given.
THIS_CALL_ONLY = "For this call only"
ON_THIS_THREAD = "For the same call on this thread"
BY_THIS_REQUESTER = "For the same call asked by this requester"
BY_ANYONE = "For the same call by anyone, for 8 hours"
REMEMBER_OPTIONS = (THIS_CALL_ONLY, ON_THIS_THREAD, BY_THIS_REQUESTER, BY_ANYONE)
REMEMBER_CHOICES: dict[str, str | None] = {
    THIS_CALL_ONLY: None,
    ON_THIS_THREAD: "thread",
    BY_THIS_REQUESTER: "requester",
    BY_ANYONE: "8h",
}
REMEMBER_HINT = (
    "Chosen before you click Approve above, the approval also covers later calls of this capability"
    " within bounds: it is then a grant, listed below and revocable."
)
WITHIN_LABEL = "Within these bounds (JSON; every other argument exactly as approved)"
GRANTS_HEADER = "Grants"
REVOKE_LABEL = "Revoke"


def remember_key(review_id: str) -> str:
    return f"remember-{review_id}"


def within_key(review_id: str) -> str:
    return f"remember-within-{review_id}"


def remember_choice(review: Review) -> Remember | None:
    """Draw the choice under Approve and return what it asks to remember (None: this call
    only). Only for a call before it runs, needing one approval: no other can be remembered.
    A malformed bounds text is said beside it and remembers nothing (the approval is then
    for this call only, as the choice's caption says)."""
    if review.stage != GRANTABLE_STAGE or review.required_approvals > 1:
        return None
    st.subheader(REMEMBER_LABEL)
    chosen = st.selectbox(
        REMEMBER_LABEL,
        REMEMBER_OPTIONS,
        key=remember_key(review.id),
        label_visibility="collapsed",
        help="A remembered approval lets later calls of this capability, with arguments within the"
        " bounds, run without a review; it never covers what the policy refuses or marks ungrantable.",
    )
    scope = REMEMBER_CHOICES.get(str(chosen))
    if scope is None:
        st.caption(REMEMBER_HINT)
        return None
    within_text = st.text_input(WITHIN_LABEL, key=within_key(review.id), placeholder='{"body": "any"}')
    within = _within(within_text)
    if isinstance(within, str):
        st.error(markdown_literal(within))
        return None
    return parse_remember(scope, within=within)


def _within(text: str | None) -> dict[str, object] | str | None:
    """The bounds the reviewer typed (None: none), or why they cannot be read."""
    if not (text or "").strip():
        return None
    try:
        value = json.loads(str(text))
    except json.JSONDecodeError as exc:
        return f"The bounds are not JSON ({exc.msg}); nothing will be remembered."
    if not isinstance(value, dict):
        return "The bounds are a JSON object of argument names; nothing will be remembered."
    return value


def grants_section(user: str) -> None:
    """The grants that cover calls now (after checking them against the policy in force), and
    a Revoke button for each one this person may end: its maker, or anyone whose role reviews."""
    grant_service = services().grants
    live = grant_service.list()
    st.header(f"{GRANTS_HEADER} ({len(live):d})")
    if not live:
        st.caption("No remembered approvals cover calls now.")
        return
    role = services().policy.role(user)
    may_revoke_any = role is not None and bool(role.review)
    for grant in live:
        with st.container(border=True, key=f"grant-{grant.id}"):
            uses = "no cap" if grant.uses_left is None else f"{grant.uses_left} of {grant.uses_max} uses left"
            st.markdown(
                markdown_literal(
                    f"{grant.id}: {grant.capability_key} for {grant.scope_words()}; "
                    f"approved by {grant.created_by}; until {grant.expires_at}; {uses}"
                )
            )
            st.caption(markdown_literal(grant.summary()["bounds"]))
            may_revoke = may_revoke_any or grant.created_by == user
            if may_revoke and st.button(REVOKE_LABEL, key=f"revoke-{grant.id}"):
                _revoke(grant.id, user)


def _revoke(grant_id: str, user: str) -> None:
    try:
        services().grants.revoke(grant_id, by=user, reason="revoked on the Reviews page")
    except ReviewError as exc:
        st.session_state["review_notice"] = ("warning", str(exc), "")
    else:
        st.session_state["review_notice"] = ("success", f"Grant {grant_id} revoked.", "")
    st.rerun()
