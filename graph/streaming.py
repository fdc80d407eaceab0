"""Text a node writes while it runs (a language model's answer, token by token), for a listener.

Nodes write through LangGraph's custom stream (get_stream_writer); the runner hands what it
reads to the caller's ``on_text`` listener (the chat page draws it as it arrives). The answer
is still stored whole in final_output: what is streamed is a preview of it, never the record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.config import get_stream_writer

# The key of a custom-stream payload that carries answer text.
ANSWER_TEXT = "answer_text"

TextWriter = Callable[[str], None]


def answer_text_writer() -> TextWriter:
    """Where the running node writes answer text; a writer that drops it outside a graph run
    (a planner called directly, as in a unit test)."""
    try:
        write = get_stream_writer()
    except RuntimeError:  # not inside a graph run
        return lambda _text: None
    return lambda text: write({ANSWER_TEXT: text})


def answer_text_of(payload: Any) -> str | None:
    """The answer text a custom-stream payload carries, if it carries any."""
    if isinstance(payload, dict):
        text = payload.get(ANSWER_TEXT)
        if isinstance(text, str):
            return text
    return None
