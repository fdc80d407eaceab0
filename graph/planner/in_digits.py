"""A request with its numbers put in digits, for the arithmetic rules to read, and the way back
from what they read to the operator's own words.

"What's twelve percent of 48,000?" is read as "What's 12 percent of 48,000?", so one rule for
"N percent of M" serves both spellings; a rule's match in the digits is then mapped back to the
span of the request it came from ("twelve percent of 48,000"), which is what a reviewer is shown
(graph/planner/provenance.py finds those words in the request). Number words are read by
graph/planner/quantities.py; a currency sign before digits ("$80") is dropped, as the amount is
what a calculator is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from graph.planner.quantities import spoken_numbers

# A currency sign written before an amount: "$80", "€ 1,250".
_CURRENCY_SIGN = re.compile(r"[$€£¥]\s*(?=\d)")


@dataclass(frozen=True)
class Edit:
    """Where the digits text replaced some of the request: ``start``-``end`` there, and the
    ``original_start``-``original_end`` of the request it stands for."""

    start: int
    end: int
    original_start: int
    original_end: int


@dataclass(frozen=True)
class InDigits:
    """``text``: the request ``original`` with its numbers in digits; ``edits``: each place
    they differ, in order."""

    original: str
    text: str
    edits: tuple[Edit, ...]

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The request's span for text[start:end]: a span that touches a replaced number
        covers all of its words."""
        return self._position(start, at_start=True), self._position(end, at_start=False)

    def words(self, start: int, end: int) -> str:
        """The request's words for text[start:end], spaces around them left out."""
        begin, finish = self.original_span(start, end)
        return self.original[begin:finish].strip()

    def _position(self, position: int, *, at_start: bool) -> int:
        shift = 0  # how much longer the request is than the digits, up to ``position``
        for edit in self.edits:
            if at_start:
                if edit.start <= position < edit.end:
                    return edit.original_start
                # (A sign left out just before a span's first digit belongs to the span: "$80".)
                if edit.start >= position and (edit.end > position or edit.start == edit.end):
                    break
            else:
                if edit.start < position <= edit.end:
                    return edit.original_end
                if edit.start >= position:
                    break
            shift = edit.original_end - edit.end
        return position + shift


@lru_cache(maxsize=256)
def in_digits(text: str) -> InDigits:
    """``text`` with each number written in words in digits ("forty-two" is 42, "a dozen" 12)
    and each currency sign before an amount left out."""
    replacements = [(n.start, n.end, n.digits) for n in spoken_numbers(text)]
    replacements += [(m.start(), m.end(), "") for m in _CURRENCY_SIGN.finditer(text)]
    pieces: list[str] = []
    edits: list[Edit] = []
    position = length = 0
    for start, end, digits in sorted(replacements):
        if start < position:
            continue  # (a sign inside a number's words cannot be; kept safe all the same)
        pieces.append(text[position:start])
        length += start - position
        edits.append(Edit(length, length + len(digits), start, end))
        pieces.append(digits)
        length += len(digits)
        position = end
    pieces.append(text[position:])
    return InDigits(text, "".join(pieces), tuple(edits))
