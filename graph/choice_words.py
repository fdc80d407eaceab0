""" "Which one do you mean?" in words that say why it is asked: two capabilities fit about
equally well, the planner is not sure of its best fit, or the request is in another language it
reads only roughly. One wording for the answer (graph/output.py), the flag a reviewer reads
(graph/nodes/validation.py) and the chat (views/chat.py, which shows the choices as buttons
and so names none of them). Plain strings: the chat imports this without the graph's nodes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graph.state import AskedData

# How a refused choice is said: the refusal names the capability, its rule and why.
NOT_OFFERED = "Not offered, as the policy refuses it whatever the arguments:"
# Why a question kept from an older release asks: it did not say, and then only a tie asked.
TIE: AskedData = {"reason": "tie", "language": None, "not_offered": []}


def _language(asked: AskedData) -> str:
    return asked["language"] or "another language"


def _listed(keys: Sequence[str], joiner: str) -> str:
    return f" {joiner} ".join(keys)


def _lead(asked: AskedData, keys: Sequence[str]) -> str:
    """Why the operator is asked, naming the choices (``keys``, one or two)."""
    reason = asked["reason"]
    if reason == "doubt":
        if len(keys) == 1:
            return f"I am not sure this request asks for {keys[0]}. Is that what you mean?"
        return f"I am not sure what this request asks for: {_listed(keys, 'or')}?"
    if reason == "language":
        reads = f"This request reads as {_language(asked)}, which I read only roughly"
        if len(keys) == 1:
            return f"{reads}; this fits it best: {keys[0]}. Is that what you mean?"
        return f"{reads}; these fit it best: {_listed(keys, 'and')}. Which one do you mean?"
    if len(keys) == 1:
        return (
            "Two capabilities fit this request about equally well, and only one of them may be asked "
            f"for: {keys[0]}. Is that what you mean?"
        )
    return f"Two capabilities fit this request about equally well: {_listed(keys, 'and')}. Which one do you mean?"


def _not_offered(asked: AskedData) -> list[str]:
    return [f"{NOT_OFFERED} {refusal.rstrip('.')}." for refusal in asked["not_offered"]]


def question(asked: AskedData, keys: Sequence[str]) -> str:
    """The question the operator answers on the thread, naming each choice by its key."""
    if len(keys) == 1:
        reply = "Reply on this thread with its name if so, or say in other words what you meant."
    elif asked["reason"] == "doubt":
        reply = "Reply on this thread with the name of the one you mean."
    else:
        reply = "Reply on this thread with its name."
    return " ".join([_lead(asked, keys), *_not_offered(asked), reply])


def flag_message(asked: AskedData, keys: Sequence[str]) -> str:
    """The validation flag's message: why the choice is left to the operator."""
    reason = asked["reason"]
    if reason == "doubt":
        said = (
            f"not sure the request asks for {keys[0]}"
            if len(keys) == 1
            else f"not sure what the request asks for: {_listed(keys, 'or')}"
        )
    elif reason == "language":
        fits = f"its best fit: {keys[0]}" if len(keys) == 1 else f"its best fits: {_listed(keys, 'and')}"
        said = f"the request reads as {_language(asked)}, read only roughly; {fits}"
    elif len(keys) == 1:
        said = f"only {keys[0]} of two capabilities that fit the request about equally well may be asked for"
    else:
        said = f"{_listed(keys, 'and')} fit the request about equally well"
    refused = "".join(
        f"; not offered, as the policy refuses it whatever the arguments: {r.rstrip('.')}"
        for r in asked["not_offered"]
    )
    return said + refused


def chat_question(asked: AskedData, count: int) -> str:
    """The question as the chat says it above the choices' buttons (``count`` of them)."""
    reason = asked["reason"]
    if reason == "doubt":
        lead = (
            "I am not sure this is what the request asks for. Is that what you mean?"
            if count == 1
            else "I am not sure what this request asks for. Which one do you mean?"
        )
    elif reason == "language":
        reads = f"This request reads as {_language(asked)}, which I read only roughly"
        lead = (
            f"{reads}; this fits it best. Is that what you mean?"
            if count == 1
            else f"{reads}; these fit it best. Which one do you mean?"
        )
    elif count == 1:
        lead = (
            "Two capabilities fit this request about equally well, and only one of them may be asked for. "
            "Is that what you mean?"
        )
    else:
        lead = f"{count} capabilities fit this request about equally well. Which one do you mean?"
    return " ".join([lead, *_not_offered(asked)])
