"""The "which one?" question as the chat asks it above the choices' buttons. The words are the
graph's (graph/choice_words.py), so the answer, the flag and the chat say the same; a page
reads them here instead of reaching into the graph."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graph.choice_words import TIE, chat_question


def which_one_question(review: Mapping[str, Any]) -> str:
    """The question for a review payload's choices; one saved before the reason was recorded
    (no ``asked``) reads as a tie, as it was asked then."""
    return chat_question(review.get("asked") or TIE, len(review["choices"]))
