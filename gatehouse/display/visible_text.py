"""Text from servers as people see it: every control character shown, none acted on.

Tool output, descriptions and error messages reach the operator's terminal and the web
pages, and a server can put control characters in them: ANSI CSI cursor moves and line
erases that overwrite a line with a fake "status: ok", OSC 52 clipboard writes, OSC 8 links,
SGR conceal, C1 controls (U+009B is a CSI by itself), bare carriage returns, backspaces,
bidi overrides that reorder a line. A terminal acts on them; a browser shows nothing for
them, so a reviewer would not know they are there. The same holds for the characters that
are drawn as nothing at all: a zero-width space in a tool name (``send\\u200b_email`` reads
as ``send_email``), joiners, the word joiner, the byte order mark, soft hyphens, tag
characters (which spell out hidden ASCII), variation selectors (which smuggle bytes behind
an emoji), Hangul fillers and the blank Braille pattern. Every such character is written as
its JSON escape, ESC as ``\\u001b`` (one above U+FFFF as its UTF-16 pair, as JSON writes it):
readable, the same as ``--json`` shows it, and inside a JSON document (where such a
character can only stand in a string) exactly the escape JSON uses, so JSON output stays
valid and loses nothing. An escape sequence without its raw ESC is plain text, so no
sequence survives.
"""

from __future__ import annotations

import re
from typing import Any

# Written out rather than asked of unicodedata, whose tables are as old as the interpreter:
# the test holds this list to every format character (Cf) the running Python knows.
_HIDDEN = (
    # C0 controls but tab and newline, DEL, C1.
    "\x00-\x08\x0b-\x1f\x7f-\x9f"
    # Soft hyphen, combining grapheme joiner, Arabic number signs and letter mark, the Syriac
    # and Arabic end-of-ayah marks, Hangul fillers, Khmer inherent vowels, Mongolian
    # variation selectors and vowel separator.
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    # Zero-width space, non-joiner and joiner, LRM/RLM, the line and paragraph separators, the
    # bidi embeddings, overrides and isolates, the word joiner and invisible operators, the
    # deprecated format controls.
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    # The blank Braille pattern, the Hangul filler, variation selectors, the byte order mark
    # (zero-width no-break space), the halfwidth Hangul filler, unassigned ignorables and the
    # interlinear annotation controls.
    "\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    # Lone surrogates (no character at all: they cannot even be encoded for a terminal).
    "\ud800-\udfff"
    # Kaithi and Egyptian hieroglyph format controls, shorthand format controls, musical
    # symbol format controls, tags and the supplementary variation selectors.
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff"
)
_CONTROL = re.compile(f"[{_HIDDEN}]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    # Above the BMP JSON has no single escape, only the UTF-16 pair.
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def visible(text: str) -> str:
    """``text`` with every control and invisible character shown as ``\\uXXXX``; CRLF becomes LF."""
    return _CONTROL.sub(_escaped, text.replace("\r\n", "\n"))


def visible_in(data: Any) -> Any:
    """A copy of JSON-like ``data`` (dicts, lists, strings) with every string made visible."""
    if isinstance(data, str):
        return visible(data)
    if isinstance(data, dict):
        return {visible_in(key): visible_in(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [visible_in(item) for item in data]
    return data


def continued(value: str, indent: int) -> str:
    """A value that may span lines, its later lines indented under its first: text from a
    server cannot start a line of its own (a forged "status:" line) in a labelled listing."""
    return value.replace("\n", "\n" + " " * indent)
