"""Typing slips: two neighbouring letters swapped ("shwo me the tabels", "pull up tikcet #3").

A word of the request is read as the word it slips from when it is no word the planner knows
(not a word of any capability, of the verb tables or a stop word), the embedding model's
tokenizer does not hold it as one word (every common English word is one token: "form" stays
"form", never "from"), and swapping two neighbouring letters gives exactly one word the
capabilities or the verb tables use. Values are never touched: only words of letters, of four
or more, outside quotes, paths and names written with a capital inside a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_WORD = re.compile(r"(?<![\w'./:@#-])([A-Za-z]{4,})(?![\w'./:@-])")
_QUOTED = re.compile(r""""[^"]*"|'[^']*'|“[^”]*”|«[^»]*»|`[^`]*`""")


def _swaps(word: str) -> list[str]:
    return [
        word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        for i in range(len(word) - 1)
        if word[i] != word[i + 1]
    ]


def respelled(text: str, known: Callable[[str], bool], one_token: Callable[[str], bool]) -> str:
    """``text`` with each slipped word written as the known word it slips from."""
    quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(text)]

    def fix(match: re.Match[str]) -> str:
        written = match.group(1)
        if any(start <= match.start() < end for start, end in quoted):
            return written
        # A capital inside a sentence is a name ("Dana"): a value, as written.
        if (
            written[0].isupper()
            and match.start() > 0
            and not text[: match.start()].rstrip().endswith((".", "!", "?"))
        ):
            return written
        lower = written.lower()
        if known(lower) or one_token(lower):
            return written
        candidates = sorted({s for s in _swaps(lower) if known(s)})
        if len(candidates) != 1:
            return written
        fixed = candidates[0]
        return fixed.capitalize() if written[0].isupper() else fixed

    return _WORD.sub(fix, text)
