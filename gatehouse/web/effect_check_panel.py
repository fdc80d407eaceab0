"""What an approved call's effect read back as after it ran (graph/effect_readback.py), drawn
on the Reviews page and in the operator's chat.

A mismatch is an alert in error colours saying what differs; "not verified" says why;
"verified" says so. The detail names a file and a server, and may quote what a server
returned: it is untrusted text, made literal here (gatehouse/web/literal.py); secrets are
hidden by the caller (``hide``), as everywhere on the pages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import streamlit as st

from gatehouse.display.render import EFFECT_WORDS
from gatehouse.web.literal import markdown_literal, name_literal
from gatehouse.web.short_ids import short_review

if TYPE_CHECKING:
    from graph.state import EffectCheck
    from reviews.ledger import Review

# Where the effect notice waits for the page's next run (a decision reruns the page).
NOTICE_KEY = "review_effect_notice"


def effect_word(check: EffectCheck | None) -> str:
    """The check in one word, for a table cell ("-": nothing was read back)."""
    if check is None:
        return "-"
    return EFFECT_WORDS.get(check.status, check.status)


def show_effect_check(status: str, detail: str) -> None:
    """One effect check: a mismatch as an error, "not verified" as a warning, "verified" as a
    success, each with the check's detail (taken literally: it quotes paths and servers)."""
    said = markdown_literal(detail)
    if status == "mismatch":
        st.error(
            f"**Effect mismatch: what the call did is not what was approved.** {said}",
            icon=":material/error:",
        )
    elif status == "verified":
        st.success(f"**Effect verified:** {said}", icon=":material/verified:")
    else:
        st.warning(f"**Effect not verified:** {said}", icon=":material/help:")


def show_review_effect(review: Review, hide: Callable[[str, Review], str]) -> None:
    """A decided review's effect check, when its call's effect was read back (``hide``: the
    page's secret hiding for the review's thread)."""
    if review.effect_check is not None:
        show_effect_check(review.effect_check.status, hide(review.effect_check.detail, review))


def show_history_mismatches(reviews: Iterable[Review], hide: Callable[[str, Review], str]) -> None:
    """Above the history's table: each listed review whose effect read back as something other
    than what was approved, with what differs (a table cell alone is too easily passed over)."""
    for review in reviews:
        check = review.effect_check
        if check is None or check.status != "mismatch":
            continue
        st.error(
            f"**Review {markdown_literal(short_review(review.id))}** "
            f"({name_literal(str(review.capability_key))}, {markdown_literal(review.status)}): "
            f"the effect does not match what was approved. {markdown_literal(hide(check.detail, review))}",
            icon=":material/error:",
        )


def keep_effect_notice(check: EffectCheck | None, hidden_detail: str) -> None:
    """Keep a decision's effect check for the page's next run, which shows it beside the
    decision's notice (the page reruns once the decided call has run)."""
    if check is None:
        st.session_state.pop(NOTICE_KEY, None)
    else:
        st.session_state[NOTICE_KEY] = (check.status, hidden_detail)


def show_effect_notice() -> None:
    """The effect check a decision on this page left for this run (keep_effect_notice), once."""
    kept = st.session_state.pop(NOTICE_KEY, None)
    if kept is not None:
        show_effect_check(*kept)
