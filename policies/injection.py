"""Text from a server that tries to steer the agent: flagged, never obeyed.

Descriptions, annotations and output are a server's words. Words such as "ignore previous
instructions", <IMPORTANT> blocks, quiet requests to copy someone, or characters a person
cannot see never change what the host decides; they are reported so a reviewer sees them.
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


def _invisible(ch: str) -> bool:
    # Format characters (zero-width space/joiners, bidi overrides, BOM) and Unicode tags.
    return unicodedata.category(ch) == "Cf" or 0xE0000 <= ord(ch) <= 0xE007F


def suspicious_reasons(text: str) -> list[str]:
    """Why this text looks like an attempt to steer the agent; empty when it does not."""
    reasons = []
    visible = text
    # Every invisible character is outside ASCII; most text is ASCII and needs no walk.
    if not text.isascii():
        hidden = sorted({f"U+{ord(ch):04X}" for ch in text if _invisible(ch)})
        if hidden:
            reasons.append(f"invisible characters {', '.join(hidden)}")
            visible = "".join(ch for ch in text if not _invisible(ch))
    reasons.extend(label for label, pattern in _PATTERNS if pattern.search(visible))
    return reasons
