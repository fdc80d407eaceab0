"""How a decision looks and is reached: Approve reads as the positive action (green), Reject as
a distinct one (red on white), neither in the theme's primary colour (red, which would make
approving look like the dangerous choice); one key each; and the preview of what approving
does (or the messages a server asks a model to answer) scrolls inside a box of its own, so the
buttons stay next to it.

Streamlit gives a button only its theme's primary and secondary looks, so the colours are CSS on
the classes Streamlit gives a keyed element (``st-key-<key>``): every page that offers a
decision keys its buttons ``approve-...`` and ``reject-...`` (a forward action that decides
nothing ``forward-...``) and calls ``decision_style()``: the Reviews and the Policy pages.
A disabled button keeps Streamlit's own disabled look. Each text colour meets WCAG AA on its
background (4.5:1; tests/browser/test_review_layout.py measures what the browser draws).
"""

from __future__ import annotations

from typing import Final

import streamlit as st

APPROVE_KEY: Final = "approve-"
# A page's forward action that is not a decision (proposing a policy change): the approving
# colours too, so the theme's red never marks a safe action, and its label stays readable
# (white on the theme's red is 3.1:1).
FORWARD_KEY: Final = "forward-"
REJECT_KEY: Final = "reject-"
PREVIEW_KEY: Final = "effect-preview-"
# The messages of a server's request for a model completion: what approving answers.
MESSAGES_KEY: Final = "sampling-messages-"

# Keys, not chords: Streamlit ignores a single-key shortcut while the focus is in a text field
# (so typing a reason or an argument never decides), and keeps "R" and "C" for itself. Its own
# hint inside the button is hidden (it would rename the button "Approve Shortcut A" for screen
# readers and every test): the keys are said once, beside the buttons, by SHORTCUT_HINT.
APPROVE_SHORTCUT: Final = "A"
REJECT_SHORTCUT: Final = "X"
# The hint's container: hidden on a narrow or touch screen, which has no keys to press, so the
# preview keeps its place on a phone's first screen.
KEYS_HINT_KEY: Final = "decision-keys-hint"
SHORTCUT_HINT: Final = (
    f"Keys: **{APPROVE_SHORTCUT}** approves, **{REJECT_SHORTCUT}** rejects (not while typing in a field)"
)

# White on green 5.0:1 (hover 7.1:1); red on white 6.5:1 (hover, on pale red, 5.9:1).
APPROVE_BACKGROUND: Final = "#15803d"
APPROVE_HOVER: Final = "#166534"
APPROVE_TEXT: Final = "#ffffff"
REJECT_TEXT: Final = "#b91c1c"
REJECT_BACKGROUND: Final = "#ffffff"
REJECT_HOVER: Final = "#fef2f2"

# The box of what approving acts on (a preview, a request's messages): at most this share of
# the window's height, then it scrolls by itself.
PREVIEW_MAX_HEIGHT: Final = "38vh"


def _button(key: str, *, text: str, background: str, border: str, hover: str) -> str:
    selector = f'[class*="st-key-{key}"] button:not(:disabled)'
    return (
        f"{selector}, {selector} * {{color: {text} !important;}}\n"
        f"{selector} {{background-color: {background} !important; border-color: {border} !important;}}\n"
        f"{selector}:hover, {selector}:focus-visible {{background-color: {hover} !important;}}\n"
    )


def style_sheet() -> str:
    """The CSS of decisions (a pure function, so a test can read what the page gets)."""
    return (
        "".join(
            _button(
                key,
                text=APPROVE_TEXT,
                background=APPROVE_BACKGROUND,
                border=APPROVE_BACKGROUND,
                hover=APPROVE_HOVER,
            )
            for key in (APPROVE_KEY, FORWARD_KEY)
        )
        + _button(
            REJECT_KEY, text=REJECT_TEXT, background=REJECT_BACKGROUND, border=REJECT_TEXT, hover=REJECT_HOVER
        )
        + f'[class*="st-key-{APPROVE_KEY}"] kbd, [class*="st-key-{REJECT_KEY}"] kbd {{display: none;}}\n'
        + f'[class*="st-key-{PREVIEW_KEY}"], [class*="st-key-{MESSAGES_KEY}"] '
        f"{{max-height: {PREVIEW_MAX_HEIGHT}; overflow-y: auto;}}\n"
        + f'@media (max-width: 640px), (hover: none) {{[class*="st-key-{KEYS_HINT_KEY}"] {{display: none;}}}}\n'
    )


def decision_style() -> None:
    """Put the decisions' CSS on this page (a style-only element: it takes no space)."""
    st.html(f"<style>\n{style_sheet()}</style>")
