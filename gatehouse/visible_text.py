"""Text from servers as people see it: every control character shown, none acted on.

Tool output, descriptions and error messages reach the operator's terminal and the web
pages, and a server can put control characters in them: ANSI CSI cursor moves and line
erases that overwrite a line with a fake "status: ok", OSC 52 clipboard writes, OSC 8 links,
SGR conceal, C1 controls (U+009B is a CSI by itself), bare carriage returns, backspaces,
bidi overrides that reorder a line. A terminal acts on them; a browser shows nothing for
them, so a reviewer would not know they are there. Every such character is written as its
JSON escape, ESC as ``\\u001b``: readable, the same as ``--json`` shows it, and inside a JSON
document (where such a character can only stand in a string) exactly the escape JSON uses,
so JSON output stays valid and loses nothing. An escape sequence without its raw ESC is
plain text, so no sequence survives.
"""

from __future__ import annotations

import re
from typing import Any

# C0 controls but tab and newline, DEL, C1, the Arabic letter mark, LRM/RLM, the line and
# paragraph separators, and the bidi embeddings, overrides and isolates.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def visible(text: str) -> str:
    """``text`` with every control character shown as ``\\uXXXX``; CRLF becomes LF."""
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
