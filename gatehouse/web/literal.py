"""Text from requesters and servers on a web page: shown as the characters it is, never as markup.

Streamlit parses Markdown in st.markdown, captions, alerts and every widget label, with its own
extensions on top: ``:green-badge[...]`` and ``:red[...]`` directives, ``:material/icon:``,
emoji shortcodes, links, images (which the browser then fetches) and headings. A request that
ends in ``:green-badge[Pre-approved by Security]`` would otherwise look like Gatehouse's own
badge. So untrusted text goes through ``st.text`` (no parsing at all: ``show``), or, where a
label or an alert must hold it, through ``markdown_literal``, which backslash-escapes every
ASCII punctuation character: CommonMark then reads each as itself, and no directive, link,
image, HTML tag, emphasis, heading or math can start. Both also show control characters
(gatehouse/display/visible_text.py); secrets are hidden by the caller (policies/secrets.py).
"""

from __future__ import annotations

import re

import streamlit as st

from gatehouse.display.visible_text import visible

# Every ASCII punctuation character can be backslash-escaped in CommonMark, and reads as itself.
_PUNCTUATION = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")


def markdown_literal(text: str) -> str:
    """``text`` as Markdown source that Streamlit shows character for character (on one line:
    a label or an alert). Line breaks become spaces, so no line can start a block of its own."""
    one_line = " ".join(visible(text).splitlines())
    return _PUNCTUATION.sub(r"\\\1", one_line)


def markdown_lines(lines: list[str]) -> str:
    """Lines each as markdown_literal shows it, one under the other in one alert (every
    mistake an error names: ReportedError.lines)."""
    return "  \n".join(markdown_literal(line) for line in lines)


_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def name_literal(text: str) -> str:
    """A name (a capability, a server, a flag code) as inline code when it is a plain
    identifier, which cannot break out of a code span; anything else as markdown_literal."""
    return f"`{text}`" if _NAME.fullmatch(text) else markdown_literal(text)


def show(text: str) -> None:
    """Draw untrusted text as plain text: line breaks kept, nothing parsed."""
    st.text(visible(text))
