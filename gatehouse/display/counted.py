"""A number with its noun, singular or plural as English has it: "1 flag", "4 flags", never
"4 flag(s)", which reads as a program talking."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``1 row``, ``0 rows``, ``3 entries`` (``plural`` where adding an s is wrong)."""
    return f"{count:d} {noun if count == 1 else plural or noun + 's'}"
