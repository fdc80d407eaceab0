"""Untrusted text in the few places Streamlit always parses Markdown (labels, alerts)."""

from __future__ import annotations

import string

from gatehouse.web.literal import markdown_literal, name_literal


def test_every_markdown_character_is_escaped_so_nothing_can_start_markup() -> None:
    text = "> :green-badge[ok] ![i](http://x/i.png) <b>#</b> :material/verified: $x$"

    escaped = markdown_literal(text)

    unescaped = [
        ch
        for i, ch in enumerate(escaped)
        if ch in string.punctuation and ch != "\\" and escaped[i - 1] != "\\"
    ]
    assert unescaped == []
    assert escaped.replace("\\", "") == text.replace("\\", "")


def test_a_multi_line_value_stays_on_one_line_and_shows_its_control_characters() -> None:
    assert markdown_literal("first\n# second\x1b[2K") == "first \\# second\\\\u001b\\[2K"


def test_only_plain_identifiers_become_inline_code() -> None:
    assert name_literal("email__send_email") == "`email__send_email`"
    assert name_literal("x`y") == "x\\`y"
