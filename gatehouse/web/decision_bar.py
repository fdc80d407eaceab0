"""The decision on one review, laid out the same for every kind of review the Reviews page opens
(a tool call, a server's request for a model completion): why this person may not decide, or
the reason, Approve and Reject in one bar above what is decided; under it, what approving acts
on in a box that scrolls by itself, beside the rest (below it on a phone). Both fit the first
screen of a laptop and of a phone (tests/browser/test_review_layout.py,
tests/browser/test_sampling_layout.py).

A click is recorded by the button's callback, which runs before the run the click starts: that
run draws both buttons disabled and says what runs, and the page carries the decision out last,
once everything is drawn. A second click, or the key, meanwhile decides nothing. A refusal by
the service is shown by the next run beside the buttons, live again.

The buttons are keyed for decision_style (colours) and carry its keys (shortcuts).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from gatehouse.web.decision_style import (
    APPROVE_KEY,
    APPROVE_SHORTCUT,
    KEYS_HINT_KEY,
    REJECT_KEY,
    REJECT_SHORTCUT,
    SHORTCUT_HINT,
)
from gatehouse.web.literal import markdown_literal
from gatehouse.web.page import services
from reviews.errors import NotPermittedError
from reviews.ledger import Review

# The session's record of a click on Approve or Reject (or its key), for the run it starts,
# and of the service's refusal of the decision, for the run after.
CLICKED = "review_clicked"
REFUSED = "review_refused"
# Pixels: beside the buttons on a laptop, a row of its own above them on a phone.
REASON_WIDTH = 320


@dataclass(frozen=True)
class Asked:
    """What a click asks for, once it may be made: approve or reject, with the reason typed."""

    approve: bool
    reason: str | None


@dataclass(frozen=True)
class ApproveButton:
    """The Approve button as the review's page has it now.

    ``disabled_because``: the button is drawn disabled, and this is said under it. ``missing``:
    the button stays live, and a click is answered with this instead of a decision (what is
    missing is typed into a field that commits its text only as the focus leaves it, i.e. on
    the click itself: a button disabled until then would swallow that click). Every text is
    plain: the bar shows it literally (a server's or a model's name in it stays a name)."""

    label: str
    help: str | None = None
    disabled_because: str | None = None
    missing: str | None = None


@dataclass(frozen=True)
class BarWords:
    """What the bar says: the reason field's label, the answer to a rejection without a
    reason, and what runs once a decision is being carried out (by approve or reject); plain
    text, shown literally."""

    reason_label: str
    reason_needed: str
    running: Callable[[bool], str]


def why_not_decide(review: Review, user: str) -> str | None:
    """Why ``user`` may not decide ``review`` on this page (None: they may), as plain text."""
    try:
        services().reviews.check_permission(review, user)
    except NotPermittedError as exc:
        return f"You cannot decide this review: {exc}"
    if any(d.reviewer == user for d in review.decisions):
        return "You have approved this already; it waits for another reviewer."
    return None


def clicked(review_id: str, approve: bool) -> None:
    # A button's callback: it runs before the run the click starts, so that run draws both
    # buttons disabled before the decision (and what it starts) begins, and a second click is none.
    st.session_state[CLICKED] = (review_id, approve)


def take_click() -> object:
    """The click this run was started by, if any: it counts on that run only."""
    return st.session_state.pop(CLICKED, None)


def refuse_later(review_id: str, message: str) -> None:
    """Have the next run show the service's refusal of a decision beside the live buttons."""
    st.session_state[REFUSED] = (review_id, message)


def decision_bar(review_id: str, asked: object, approve: ApproveButton, words: BarWords) -> Asked | None:
    """The reason, Approve and Reject, each button with its key. Returns the decision the click
    ``asked`` (see take_click) asked for, once it may be made; the buttons are then drawn
    disabled and the bar says what runs, until the decision's own run ends."""
    approve_asked = asked == (review_id, True)
    reject_asked = asked == (review_id, False)
    refused = st.session_state.pop(REFUSED, None)
    with st.container(key=f"decision-bar-{review_id}"):
        if refused is not None and refused[0] == review_id:
            st.error(markdown_literal(refused[1]))
        # The reason as the click left it (the field is drawn after: disabled once deciding).
        reason = str(st.session_state.get(f"reason-{review_id}") or "").strip()
        decision: Asked | None = None
        if approve_asked and approve.disabled_because is None and approve.missing is None:
            decision = Asked(True, reason or None)
        elif approve_asked and approve.missing is not None:
            st.error(markdown_literal(approve.missing))
        elif reject_asked and reason:
            decision = Asked(False, reason)
        elif reject_asked:
            st.error(markdown_literal(words.reason_needed))
        busy = decision is not None
        # One row on a wide screen; on a narrow one the buttons wrap under the reason.
        with st.container(horizontal=True, gap="small", vertical_alignment="bottom"):
            st.text_input(
                markdown_literal(words.reason_label),
                key=f"reason-{review_id}",
                disabled=busy,
                width=REASON_WIDTH,
            )
            st.button(
                markdown_literal(approve.label),
                type="primary",
                disabled=busy or approve.disabled_because is not None,
                key=f"{APPROVE_KEY}{review_id}",
                on_click=clicked,
                args=(review_id, True),
                shortcut=APPROVE_SHORTCUT,
                help=markdown_literal(approve.help) if approve.help else None,
            )
            st.button(
                "Reject",
                disabled=busy,
                key=f"{REJECT_KEY}{review_id}",
                on_click=clicked,
                args=(review_id, False),
                shortcut=REJECT_SHORTCUT,
            )
            with st.container(key=KEYS_HINT_KEY):
                st.caption(SHORTCUT_HINT, width="content")
        if approve.disabled_because:
            st.caption(markdown_literal(approve.disabled_because))
        if decision is not None:
            st.info(markdown_literal(words.running(decision.approve)), icon=":material/hourglass_top:")
    return decision


def proposal_columns(box_key: str) -> tuple[DeltaGenerator, DeltaGenerator]:
    """Under the bar: a box that scrolls by itself (decision_style bounds it) holding what
    approving acts on, and a column beside it for the rest; on a phone the column comes
    under the box. Returns the box and the column."""
    box_column, side_column = st.columns(2)
    return box_column.container(key=box_key), side_column
