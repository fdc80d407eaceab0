"""Which of the zones a request names a time is converted from (the source) and which to (the
target), for a conversion such as mcp-server-time's ``convert_time``.

Word order alone does not say it: "What time is it in Tokyo when it is half past two in the
afternoon in London?" names the target first. The request says it in one of three ways, read
in this order:

1. a word that leads the zone: "from London", "to Tokyo", "-> Honolulu", "for the Bangalore team";
2. the time of day it states: the time is that of the zone named with it, so that zone is the
   source ("half past two in the afternoon in London", "9am Berlin time", "in London it's 3pm");
3. what it asks: "what time is it in Tokyo", "what's the time in Denver", "Tokyo time" (not
   said of a stated time) is the zone the time is wanted in, the target.

A zone none of these places is placed by order: the first left is the source, the last the
target ("Convert 16:30 between London and Tokyo").

Times of day are read by graph/planner/clock_words.py, zones by graph/planner/zones.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from graph.planner.clock_words import times_of_day
from graph.planner.text import compiled
from graph.planner.zones import ZoneMention

# Words that lead the zone a time goes to ("to Tokyo", "-> Honolulu", "for the Bangalore team").
TOWARDS = ("to", "into", "->", "→", "for", "for the")

# What may stand between a time and the zone it is the time of: "2:30pm in London", "9am Berlin
# time", "noon (Chicago)", "3pm, in the United Kingdom", "9am, Paris time".
_TIME_THEN_ITS_ZONE = re.compile(r"\s*(?:\(\s*|,?\s*in\s+(?:the\s+)?|,\s*)?", re.IGNORECASE)
# What may stand between a zone and the time it says it has: "in London it's 3pm", "London time
# is 3pm", "the time in London is 3pm", "if London is at 3pm".
_ZONE_THEN_ITS_TIME = re.compile(
    r"(?:\s+time)?,?\s+(?:it\s+is|it['’]s|is|was|will\s+be)(?:\s+(?:now|already|at))*\s+", re.IGNORECASE
)
# A question about the time in a zone, right before the zone: "what time is it in", "what's the
# local time in", "what time will it be in", "what is it in".
_ASKED_IN = re.compile(
    r"\bwhat(?:['’]s|\s+is)?(?:\s+the)?(?:\s+(?:local|current))?\s+time"
    r"(?:\s+(?:is|will|would)\s+it(?:\s+be)?)?(?:\s+now)?\s+in\s+(?:the\s+)?$"
    r"|\bwhat(?:['’]s|\s+is|\s+will|\s+would)\s+it(?:\s+be)?\s+in\s+(?:the\s+)?$",
    re.IGNORECASE,
)
# "Tokyo time": a zone's time, asked for unless it is a stated time's zone ("9am Tokyo time").
_ZONE_TIME = re.compile(r"\s+time\b", re.IGNORECASE)


def led_by(text: str, mention: ZoneMention, *leads: str) -> bool:
    """Whether one of ``leads`` is the word right before the zone ("from London")."""
    lead = "|".join(re.escape(word) for word in leads)
    return bool(compiled(rf"(?:^|[\s(])(?:{lead})\s*$", re.IGNORECASE).search(text[: mention.start]))


def conversion_zones(text: str, mentions: Sequence[ZoneMention]) -> tuple[ZoneMention, ZoneMention]:
    """The source and the target among ``mentions``, which name two zones or more (one zone
    alone is either, as the words around it say: the caller's to read)."""
    towards = [m for m in mentions if led_by(text, m, *TOWARDS)]
    given = [m for m in mentions if led_by(text, m, "from")]
    given += [m for m in stated_zones(text, mentions) if m not in towards and m not in given]
    wanted = towards + [m for m in mentions if m not in given and m not in towards and _asked(text, m)]
    source = given[0] if given else None
    target = next((m for m in wanted if source is None or m.zone != source.zone), None)
    if source is None:
        # Placed by nothing: the first zone no rule made the target's ("Convert 16:30 between
        # London and Tokyo"), or failing that the first other than the target.
        others = [m for m in mentions if target is None or m.zone != target.zone]
        source = next((m for m in others if m not in wanted), others[0])
    if target is None:
        target = next(m for m in reversed(mentions) if m.zone != source.zone)
    return source, target


def stated_zones(text: str, mentions: Sequence[ZoneMention]) -> list[ZoneMention]:
    """The zones whose time of day the text states, in order: for each time, the zone named
    right after it ("9am in Berlin", "3pm London time"), else the zone right before it that says
    it has that time ("in London it's 3pm")."""
    found: list[ZoneMention] = []
    for said in times_of_day(text):
        after = next(
            (
                m
                for m in mentions
                if m.start >= said.end and _TIME_THEN_ITS_ZONE.fullmatch(text, said.end, m.start)
            ),
            None,
        )
        before = next(
            (
                m
                for m in reversed(mentions)
                if m.start + len(m.words) <= said.start
                and _ZONE_THEN_ITS_TIME.fullmatch(text, m.start + len(m.words), said.start)
            ),
            None,
        )
        zone = after or before
        if zone is not None and zone not in found:
            found.append(zone)
    return found


def _asked(text: str, mention: ZoneMention) -> bool:
    """Whether the text asks for the time in this zone: "what time is it in Tokyo", "Tokyo time"."""
    return bool(_ASKED_IN.search(text[: mention.start])) or bool(
        _ZONE_TIME.match(text, mention.start + len(mention.words))
    )
