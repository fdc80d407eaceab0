"""Times of day a request says, read as HH:MM: in digits ("14:30", "9am", "9.30 pm", "2:30 in
the afternoon") and in English words ("half past two in the afternoon" is 14:30, "quarter to
five pm" 16:45, "noon" 12:00, "three o'clock" 03:00, "seven in the evening" 19:00, "ten thirty
pm" 22:30, and the British "half two", 02:30). An hour in words or in digits; an hour said
with no am or pm and no part of the day is the number said, on the 24-hour clock.

The argument rules (graph/planner/arguments.py) take these for a time, the provenance check
(graph/planner/provenance.py) shows a value as the words that said it, and scoring
(graph/planner/scoring.py) reads a request that says one as about time. Numbers in words are
read by graph/planner/quantities.py. A number that only might be an hour is none: "two files",
"half of the rows", "the past two weeks", "in the afternoon" with no hour. Where a phrase is a
time only by where it stands ("half two", "ten thirty", "five to ten"), it is read when a word
that places a time leads it ("at", "is", "until") and no noun it would count follows it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from graph.planner.quantities import SMALL, number_of_words


@dataclass(frozen=True)
class TimeSaid:
    """A time of day a text says: where, in which words, and as HH:MM."""

    start: int
    end: int
    words: str
    value: str


_UNIT = "|".join(w for w, n in SMALL.items() if 0 < n < 10)
# Longest first, so "nineteen" is never read as "nine".
_TEEN = "|".join(sorted((w for w, n in SMALL.items() if 10 <= n < 20), key=len, reverse=True))
_HOUR_WORD = rf"twenty(?:[\s-](?:one|two|three)\b)?|{_TEEN}|{_UNIT}"
_HOUR_DIGITS = r"(?<![\w.:])(?:2[0-3]|[01]?\d)(?![\d:])"
_HOUR = rf"(?P<hour>\b(?:{_HOUR_WORD})\b|{_HOUR_DIGITS})"
# The minutes after an hour in words: "ten thirty", "nine forty-five", "six oh five".
_MINUTE_WORD = rf"oh[\s-](?:{_UNIT})|(?:twenty|thirty|forty|fifty)(?:[\s-](?:{_UNIT}))?|{_TEEN}"
# The minutes before "past" or "to": "quarter", "half", "twenty-five", "ten minutes".
_COUNT_WORD = rf"twenty(?:[\s-](?:{_UNIT}))?|{_TEEN}|{_UNIT}"
_MERIDIEM = r"(?P<meridiem>[ap])(?:m|\.\s?m\.)(?!\w)"
_PART = r"(?P<part>(?:in\s+the|this|tomorrow|yesterday)\s+(?:morning|afternoon|evening)|at\s+night|tonight)\b"
# What may follow a time to say which half of the day it is in.
_HALF_OF_DAY = rf"(?:\s*{_MERIDIEM}|\s+{_PART})"
_OCLOCK = r"o['’]?\s?clock\b"

# Each way of saying a time, read by the function beside it (below).
_DIGITS = re.compile(
    # (Seconds, "14:30:00", are read past: the time is its hours and minutes.)
    rf"(?<![\w.])(?P<hour>2[0-3]|[01]?\d)(?P<sep>[:.])(?P<minute>[0-5]\d)(?::[0-5]\d)?(?![\d]|[:.]\d)"
    rf"(?:{_HALF_OF_DAY}|\s+(?P<oclock>{_OCLOCK}))?",
    re.IGNORECASE,
)
_HOUR_AND_HALF_OF_DAY = re.compile(rf"{_HOUR}{_HALF_OF_DAY}", re.IGNORECASE)
_HOUR_AND_MINUTES = re.compile(
    rf"\b(?P<hour>{_HOUR_WORD})[\s-]+(?P<minute>{_MINUTE_WORD})\b(?!-){_HALF_OF_DAY}?", re.IGNORECASE
)
_HOUR_OCLOCK = re.compile(rf"{_HOUR}\s+{_OCLOCK}{_HALF_OF_DAY}?", re.IGNORECASE)
_BEFORE_OR_AFTER = re.compile(
    rf"\b(?:a\s+)?(?P<minutes>half|quarter|(?P<count>{_COUNT_WORD})(?P<unit>\s+minutes?)?)\s+"
    rf"(?P<direction>past|after|to|till|til)\s+"
    rf"(?:(?P<named>noon|midday|midnight)\b|{_HOUR}{_HALF_OF_DAY}?)",
    re.IGNORECASE,
)
_HALF_HOUR = re.compile(rf"\bhalf\s+{_HOUR}{_HALF_OF_DAY}?", re.IGNORECASE)
_NAMED = re.compile(r"\b(?:(?:12|twelve)\s+)?(?P<named>noon|midday|mid-day|midnight)\b", re.IGNORECASE)

_NAMED_HOURS = {"noon": 12, "midday": 12, "mid-day": 12, "midnight": 0}
# Minutes said before "past" or "to" without the word "minutes": "ten past two", "twenty to six".
_ROUND_MINUTES = frozenset({5, 10, 20, 25})
# Words that place a time said only by where it stands: "at half two", "it is ten thirty".
_LEADS = re.compile(
    r"(?:^|[^\w\s]|\b(?:at|is|it's|its|was|by|until|till|til|around|about|before|after|since|from|to"
    r"|convert|for))\s*$",
    re.IGNORECASE,
)
# "from five to ten", "between ten to twenty": a range of numbers, no time.
_RANGE_LEADS = re.compile(r"\b(?:from|between)\s*$", re.IGNORECASE)
# What may follow such a time: the end, punctuation, a name ("London"), or a word that is no
# noun the number would count ("half two files", "ten thirty rows" are counts).
_FOLLOWERS = re.compile(
    r"\s*(?:$|[^\w\s]|[A-Z]|(?i:in|at|on|from|to|for|and|or|but|when|then|if|is|was|where|there|"
    r"tomorrow|today|tonight|yesterday|local|time|please|sharp|exactly|utc|gmt)\b)"
)


def _on_the_clock(hour: int, match: re.Match[str]) -> int | None:
    """``hour`` on the 24-hour clock, as the am, pm or part of the day after it places it;
    None when an am or pm cannot go with it ("14 pm")."""
    meridiem = match.group("meridiem")
    part = (match.group("part") or "").lower()
    if meridiem:
        if not 1 <= hour <= 12:
            return None
        return hour % 12 + (12 if meridiem.lower() == "p" else 0)
    if not part or not 1 <= hour <= 12:
        return hour  # the number said; an hour past noon has no half of the day to place
    if part.endswith("morning"):
        return hour % 12
    if part.endswith(("afternoon", "evening")):
        return hour if hour == 12 else hour + 12
    # At night: "eleven at night" is 23:00, "twelve at night" midnight, "two at night" 02:00.
    return 0 if hour == 12 else hour + 12 if hour >= 6 else hour


def _hour(words: str) -> int | None:
    """The hour said in digits or words ("9", "nine", "twenty-one")."""
    return int(words) if words.isdigit() else number_of_words(words)


def _stands_as_a_time(text: str, match: re.Match[str]) -> bool:
    """A time said only by where it stands: led by a word that places a time, followed by no
    noun it would count."""
    return bool(_LEADS.search(text[: match.start()])) and _FOLLOWERS.match(text, match.end()) is not None


def _before_no_verb(text: str, end: int) -> bool:
    """Whether what follows an "am" leaves it the morning's, not the verb ("one am I")."""
    return _FOLLOWERS.match(text, end) is not None and re.match(r"\s+I\b", text[end:]) is None


def _placed(match: re.Match[str]) -> bool:
    return bool(match.group("meridiem") or match.group("part"))


def _digits(text: str, match: re.Match[str]) -> tuple[int, int] | None:
    hour = int(match.group("hour"))
    if match.group("sep") == "." and not (_placed(match) or match.group("oclock")):
        return None  # "3.50" is a number; "9.30am", "14.30 o'clock" are times
    placed = _on_the_clock(hour, match)  # None for "14:30 pm", whose time is the digits' all the same
    return hour if placed is None else placed, int(match.group("minute"))


def _hour_and_half_of_day(text: str, match: re.Match[str]) -> tuple[int, int] | None:
    said = match.group("hour")
    hour = _hour(said)
    if hour is None or (
        not said.isdigit()
        and match.group(0).lower().endswith(" am")
        and not _before_no_verb(text, match.end())
    ):
        return None  # "which one am I": "am" is a verb
    placed = _on_the_clock(hour, match)
    return None if placed is None else (placed, 0)


def _hour_and_minutes(text: str, match: re.Match[str]) -> tuple[int, int] | None:
    hour, minutes = _hour(match.group("hour")), _minutes(match.group("minute"))
    # Twelve hours at most: "nineteen fifty" and "twenty twenty-five" are years.
    if hour is None or minutes is None or not 1 <= hour <= 12:
        return None
    if not _placed(match) and not _stands_as_a_time(text, match):
        return None  # "ten fifty" may be a price
    placed = _on_the_clock(hour, match)
    return None if placed is None else (placed, minutes)


def _minutes(words: str) -> int | None:
    said = re.sub(r"^oh[\s-]", "", words.lower())
    minutes = number_of_words(said)
    return minutes if minutes is not None and 0 < minutes < 60 else None


def _hour_oclock(text: str, match: re.Match[str]) -> tuple[int, int] | None:
    hour = _hour(match.group("hour"))
    # "14 o'clock 30" (German's "14 Uhr 30") says minutes this does not read: no time.
    if hour is None or re.match(rf"\s+(?:\d|(?:{_MINUTE_WORD})\b)", text[match.end() :], re.IGNORECASE):
        return None
    placed = _on_the_clock(hour, match)
    return None if placed is None else (placed, 0)


def _before_or_after(text: str, match: re.Match[str]) -> tuple[int, int] | None:
    said = match.group("minutes").lower()
    minutes = 30 if said == "half" else 15 if said == "quarter" else number_of_words(match.group("count"))
    direction = match.group("direction").lower()
    if minutes is None or (said == "half" and direction not in {"past", "after"}):
        return None
    if match.group("count") and not match.group("unit") and minutes not in _ROUND_MINUTES:
        return None  # "one to five" is a range; "five to nine" a time
    before = text[: match.start()]
    # "five to ten" is a time only where a time is placed: not "from five to ten".
    if (
        match.group("count")
        and direction != "past"
        and (_RANGE_LEADS.search(before) or not _LEADS.search(before))
    ):
        return None
    if match.group("named"):
        hour: int | None = _NAMED_HOURS[match.group("named").lower()]
    else:
        said_hour = _hour(match.group("hour"))
        hour = None if said_hour is None else _on_the_clock(said_hour, match)
        # "ten past two weeks", "a quarter to two people"; "half past two" is a time whatever
        # follows it.
        loose = match.group("count") or direction not in {"past", "after"}
        if loose and not _placed(match) and _FOLLOWERS.match(text, match.end()) is None:
            return None
    if hour is None:
        return None
    at = hour * 60 + (minutes if direction in {"past", "after"} else -minutes)
    return divmod(at % (24 * 60), 60)


def _half_hour(text: str, match: re.Match[str]) -> tuple[int, int] | None:
    hour = _hour(match.group("hour"))
    if hour is None or not (_placed(match) or _stands_as_a_time(text, match)):
        return None  # "half two files", "cut in half 2 times"
    placed = _on_the_clock(hour, match)
    return None if placed is None else (placed, 30)


def _named(text: str, match: re.Match[str]) -> tuple[int, int] | None:
    return _NAMED_HOURS[match.group("named").lower()], 0


_READERS: tuple[tuple[re.Pattern[str], Callable[[str, re.Match[str]], tuple[int, int] | None]], ...] = (
    (_DIGITS, _digits),
    (_HOUR_AND_HALF_OF_DAY, _hour_and_half_of_day),
    (_HOUR_AND_MINUTES, _hour_and_minutes),
    (_HOUR_OCLOCK, _hour_oclock),
    (_BEFORE_OR_AFTER, _before_or_after),
    (_HALF_HOUR, _half_hour),
    (_NAMED, _named),
)


@lru_cache(maxsize=1024)  # scoring asks for the request's times once per capability
def times_of_day(text: str) -> tuple[TimeSaid, ...]:
    """Each time of day ``text`` says, in order; where two readings overlap, the one that
    starts first, and of those the longer ("half past two in the afternoon", not "two in the
    afternoon")."""
    found: list[TimeSaid] = []
    for pattern, reader in _READERS:
        for match in pattern.finditer(text):
            read = reader(text, match)
            if read is not None:
                words = match.group(0)
                found.append(TimeSaid(match.start(), match.end(), words, f"{read[0]:02d}:{read[1]:02d}"))
    chosen: list[TimeSaid] = []
    for said in sorted(found, key=lambda t: (t.start, -t.end)):
        if not chosen or said.start >= chosen[-1].end:
            chosen.append(said)
    return tuple(chosen)


def without_times(text: str) -> str:
    """``text`` with each time of day it says blanked out, so that its numbers are read as no
    count or id ("at 9am", "half past 2")."""
    for said in reversed(times_of_day(text)):
        text = f"{text[: said.start]} {text[said.end :]}"
    return text
