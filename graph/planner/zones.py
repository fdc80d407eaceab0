"""IANA time-zone names in a request: written out ("Europe/Paris", "UTC") or as the place a
zone is named after ("Tokyo", "New York"), each with the words it was read from."""

from __future__ import annotations

import re
import zoneinfo
from dataclasses import dataclass
from functools import lru_cache

_SPELLED = re.compile(r"\b[A-Z][A-Za-z_+-]+(?:/[A-Za-z0-9_+-]+){1,2}\b|\b(?:UTC|GMT)\b")
_LEGACY_PREFIXES = ("Etc/", "SystemV/", "US/", "posix/", "right/")


@dataclass(frozen=True)
class ZoneMention:
    zone: str
    words: str
    start: int


@lru_cache(maxsize=1)
def _zones_by_place() -> dict[str, str]:
    """ "tokyo" -> "Asia/Tokyo", "new york" -> "America/New_York": a place that names exactly one
    zone (a place two zones share says nothing for sure, so it is left out)."""
    seen: dict[str, set[str]] = {}
    for zone in zoneinfo.available_timezones():
        if "/" not in zone or zone.startswith(_LEGACY_PREFIXES):
            continue
        place = zone.rsplit("/", 1)[1].replace("_", " ").lower()
        seen.setdefault(place, set()).add(zone)
    return {place: next(iter(zones)) for place, zones in seen.items() if len(zones) == 1}


@lru_cache(maxsize=1)
def _place_pattern() -> re.Pattern[str]:
    places = sorted(_zones_by_place(), key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(re.escape(place) for place in places) + r")\b", re.IGNORECASE)


def zone_mentions(text: str) -> list[ZoneMention]:
    """Every zone the text names, in the order it names them."""
    known = zoneinfo.available_timezones()
    found: list[ZoneMention] = []
    taken: list[tuple[int, int]] = []
    for match in _SPELLED.finditer(text):
        if match.group(0) in known:
            found.append(ZoneMention(match.group(0), match.group(0), match.start()))
            taken.append(match.span())
    for match in _place_pattern().finditer(text):
        # Places count as written with a capital ("in Tokyo"), or right before "time" ("sydney
        # time"), never as ordinary words elsewhere.
        before_time = re.match(r"\s+time\b", text[match.end() :], re.IGNORECASE)
        if not (match.group(0)[0].isupper() or before_time) or any(a <= match.start() < b for a, b in taken):
            continue
        found.append(ZoneMention(_zones_by_place()[match.group(0).lower()], match.group(0), match.start()))
    return sorted(found, key=lambda mention: mention.start)
