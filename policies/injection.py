"""Text from a server that tries to steer the agent: flagged, never obeyed.

Descriptions, annotations and output are a server's words. Words such as "ignore previous
instructions", <IMPORTANT> blocks, quiet requests to copy someone, characters a person
cannot see, or terminal control characters (escape sequences that move the cursor, erase a
line, write the clipboard or hide text; a carriage return or backspaces that overwrite a line)
never change what the host decides; they are reported so a reviewer sees them.
"""

from __future__ import annotations

import re
import unicodedata

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern, re.IGNORECASE))
    for label, pattern in (
        (
            "asks to ignore earlier instructions",
            r"\b(ignore|disregard|forget)\b.{0,40}\b(previous|prior|above|earlier|all)\b.{0,20}\b(instructions?|prompts?|rules?)",
        ),
        ("an <IMPORTANT>-style block", r"<\s*/?\s*(important|system|instructions?|secret)\s*>"),
        (
            "asks to copy or forward to another address",
            r"\b(bcc|blind[ -]?copy|cc)\b.{0,60}@|\b(forward|send|copy)\b.{0,40}\b(also|additionally|secretly|silently)\b",
        ),
        (
            "asks to keep something from the user",
            r"\b(do not|don't|never)\b.{0,30}\b(tell|mention|inform|reveal|show)\b.{0,30}\b(user|human|operator)\b",
        ),
        (
            "asks to act secretly",
            r"\b(secretly|silently|covertly|quietly)\s+(send|copy|forward|upload|share|email|include|add|read|exfiltrate)|\bwithout (telling|asking|informing|notifying) (the )?(user|human|operator)",
        ),
        (
            "reaches for keys or credentials",
            r"(~/\.ssh|id_rsa|\.aws/credentials|\.env\b|private key|api[_ -]?key)",
        ),
        ("asks for a step before the tool is used", r"\bbefore (using|calling|you use) (this|the) tool\b"),
        (
            "claims to override the system",
            r"\b(system prompt|developer message|you are now|new instructions)\b",
        ),
    )
)


# C0 controls but tab and newline (a CR is a line ending only right before a newline), DEL
# and C1 (U+009B is a CSI by itself): what a terminal acts on instead of showing.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")
# Whole sequences: CSI (ESC [ or U+009B) with its parameters, a terminated OSC/DCS/APC/PM/SOS
# string, and two-character escapes. They are removed before the word patterns are matched,
# so an escape inside a word ("ig<ESC>[0mnore") does not hide the word.
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]P_^X]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[ -~]",
    re.DOTALL,
)


def _control_reasons(text: str) -> tuple[list[str], str]:
    """The reason naming the terminal control characters in ``text``, and the text without them."""
    found = sorted({f"U+{ord(match.group()[0]):04X}" for match in _CONTROL.finditer(text)})
    if not found:
        return [], text
    return [f"control characters {', '.join(found)}"], _CONTROL.sub("", _SEQUENCE.sub("", text))


def _invisible(ch: str) -> bool:
    # Format characters (zero-width space/joiners, bidi overrides, BOM) and Unicode tags.
    return unicodedata.category(ch) == "Cf" or 0xE0000 <= ord(ch) <= 0xE007F


# The web app's own markup: Streamlit's coloured text and badge directives (":green-badge[...]",
# ":red[...]") and its icons (":material/verified:"). Pages show untrusted text literally, so
# these never render; text that carries them is still trying to look like Gatehouse's own
# verdicts ("Pre-approved by Security"), and a reviewer is told.
_APP_MARKUP = re.compile(
    r":(?:red|orange|yellow|green|blue|violet|gray|grey|rainbow|primary)(?:-badge|-background)?\[|:material/\w+:",
    re.IGNORECASE,
)
# HTML tags: in a request (a person's words) they have no business either. Server text (files,
# pages, output) carries HTML legitimately, so for it only the app's own markup counts.
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
APP_MARKUP_REASON = "imitates the app's own markup"


def imitated_markup(text: str, *, html: bool = False) -> list[str]:
    """The reason naming the app's own markup in ``text`` (with ``html``, HTML tags too)."""
    found = sorted({match.group() for match in _APP_MARKUP.finditer(text)})
    if html:
        found += sorted({match.group() for match in _HTML_TAG.finditer(text)})
    if not found:
        return []
    shown = ", ".join(repr(item) for item in found[:3]) + (", ..." if len(found) > 3 else "")
    return [f"{APP_MARKUP_REASON} ({shown})"]


def request_reasons(text: str) -> list[str]:
    """Why a person's request looks like an attempt to dress up its review: the app's own
    markup or HTML in it. The agent-steering patterns are for server text only (a request may
    well say "send it also to ...")."""
    return imitated_markup(text, html=True)


def hidden_character_reasons(text: str) -> list[str]:
    """Why a name looks other than it is: control or invisible characters in it (a tool named
    ``list\u200b_files`` reads as list_files, and is not the name a rule or a person matched)."""
    return _hidden_characters(text)[0]


def _hidden_characters(text: str) -> tuple[list[str], str]:
    reasons, visible = _control_reasons(text)
    # Every invisible character is outside ASCII; most text is ASCII and needs no walk.
    if not text.isascii():
        hidden = sorted({f"U+{ord(ch):04X}" for ch in text if _invisible(ch)})
        if hidden:
            reasons.append(f"invisible characters {', '.join(hidden)}")
            visible = "".join(ch for ch in visible if not _invisible(ch))
    return reasons, visible


def suspicious_reasons(text: str) -> list[str]:
    """Why this text looks like an attempt to steer the agent; empty when it does not."""
    reasons, visible = _hidden_characters(text)
    reasons.extend(label for label, pattern in _PATTERNS if pattern.search(visible))
    reasons.extend(imitated_markup(visible))
    return reasons
