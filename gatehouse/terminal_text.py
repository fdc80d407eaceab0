"""Text the CLI writes to a terminal: what a server wrote is shown, never acted on.

Tool output, descriptions and error messages reach the operator's terminal, and a server
can put control characters in them: ANSI CSI cursor moves and line erases that overwrite a
line with a fake "status: ok", OSC 52 clipboard writes, OSC 8 links, SGR conceal, C1
controls (U+009B is a CSI by itself), bare carriage returns, backspaces, bidi overrides
that reorder a line. Every character a terminal may act on instead of showing is written as
its JSON escape, ESC as ``\\u001b``: readable, the same as ``--json`` shows it, and inside a
JSON document (where such a character can only stand in a string) exactly the escape JSON
uses, so JSON output stays valid and loses nothing. An escape sequence without its raw ESC
is plain text, so no sequence survives.
"""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1, the Arabic letter mark, LRM/RLM, the line and
# paragraph separators, and the bidi embeddings, overrides and isolates.
_TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every terminal control character shown as ``\\uXXXX``; CRLF becomes LF."""
    return _TERMINAL_CONTROL.sub(_escaped, text.replace("\r\n", "\n"))


def continued(value: str, indent: int) -> str:
    """A value that may span lines, its later lines indented under its first: text from a
    server cannot start a line of its own (a forged "status:" line) in a labelled listing."""
    return value.replace("\n", "\n" + " " * indent)
