"""IANA time-zone names in a request: written out ("Europe/Paris", "UTC") or as the place a
zone is named after ("Tokyo", "New York"), each with the words it was read from."""

from __future__ import annotations

import re
import unicodedata
import zoneinfo
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

_SPELLED = re.compile(r"\b[A-Z][A-Za-z_+-]+(?:/[A-Za-z0-9_+-]+){1,2}\b|\b(?:UTC|GMT)\b")
_LEGACY_PREFIXES = ("Etc/", "SystemV/", "US/", "posix/", "right/")
# Places people name that the IANA database names no zone after: large cities that share a
# zone with its representative city, and US states that are one zone.
_CITIES = {
    **dict.fromkeys(["mumbai", "delhi", "new delhi", "bangalore", "bengaluru", "hyderabad", "chennai", "pune"], "Asia/Kolkata"),
    **dict.fromkeys(["san francisco", "seattle", "san diego", "las vegas", "san jose", "silicon valley"], "America/Los_Angeles"),
    **dict.fromkeys(["boston", "washington dc", "miami", "atlanta", "philadelphia", "nyc"], "America/New_York"),
    **dict.fromkeys(["dallas", "houston", "austin", "minneapolis", "new orleans"], "America/Chicago"),
    **dict.fromkeys(["beijing", "shenzhen", "guangzhou"], "Asia/Shanghai"),
    **dict.fromkeys(["osaka", "kyoto"], "Asia/Tokyo"),
    **dict.fromkeys(["munich", "frankfurt", "hamburg", "cologne"], "Europe/Berlin"),
    **dict.fromkeys(["milan", "naples", "florence"], "Europe/Rome"),
    "barcelona": "Europe/Madrid",
    "geneva": "Europe/Zurich",
    "rio de janeiro": "America/Sao_Paulo",
    "abu dhabi": "Asia/Dubai",
    "tel aviv": "Asia/Jerusalem",
    "cape town": "Africa/Johannesburg",
    "hawaii": "Pacific/Honolulu",
    "alaska": "America/Anchorage",
    "arizona": "America/Phoenix",
    # The names people give the US zones ("11am Pacific").
    "pacific": "America/Los_Angeles",
    "eastern": "America/New_York",
    "central": "America/Chicago",
    "mountain": "America/Denver",
}  # fmt: skip


@dataclass(frozen=True)
class ZoneMention:
    zone: str
    words: str
    start: int


@lru_cache(maxsize=1)
def _zone_names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def is_zone_name(value: str) -> bool:
    """Whether ``value`` is an IANA zone name ("Europe/Madrid" looks like a path, but is not)."""
    return value in _zone_names()


@lru_cache(maxsize=1)
def _zones_by_place() -> dict[str, str]:
    """ "tokyo" -> "Asia/Tokyo", "new york" -> "America/New_York": a place that names exactly one
    zone (a place two zones share says nothing for sure, so it is left out)."""
    seen: dict[str, set[str]] = {}
    # Canonical zones only: the old country-named links ("Mexico/General") name no place.
    canonical = {row[2] for row in _rows("zone.tab") if len(row) >= 3} or zoneinfo.available_timezones()
    for zone in zoneinfo.available_timezones():
        if "/" not in zone or zone.startswith(_LEGACY_PREFIXES) or zone not in canonical:
            continue
        place = zone.rsplit("/", 1)[1].replace("_", " ").lower()
        seen.setdefault(place, set()).add(zone)
    for country, zones in _zones_by_country().items():
        seen.setdefault(country, set()).update(zones)
    for place, zone in _CITIES.items():
        seen.setdefault(place, set()).add(zone)
    return {place: next(iter(zones)) for place, zones in seen.items() if len(zones) == 1}


def _table(name: str) -> str:
    """One of the IANA database's tables, from the tzdata package or the system's zoneinfo."""
    try:
        return resources.files("tzdata.zoneinfo").joinpath(name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        pass
    for folder in zoneinfo.TZPATH:
        path = Path(folder) / name
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return ""


def _rows(table: str) -> list[list[str]]:
    return [line.split("\t") for line in _table(table).splitlines() if line and not line.startswith("#")]


@lru_cache(maxsize=1)
def _zones_by_country() -> dict[str, set[str]]:
    """ "india" -> {"Asia/Kolkata"}: a country by its name in the IANA tables (iso3166.tab,
    zone.tab). Countries with several zones keep them all, so they stay ambiguous."""
    names = {row[0]: row[1] for row in _rows("iso3166.tab") if len(row) >= 2}
    zones: dict[str, set[str]] = {}
    for row in _rows("zone.tab"):
        if len(row) >= 3 and row[0] in names:
            zones.setdefault(row[0], set()).add(row[2])
    found: dict[str, set[str]] = {}
    for code, name in names.items():
        # "Britain (UK)" is also "Britain"; "Korea (South)" is only itself.
        for spelling in {name, re.sub(r"\s*\([^)]*\)", "", name)} if "(UK)" in name else {name}:
            found[spelling.lower()] = zones.get(code, set())
    return found


@lru_cache(maxsize=1)
def _place_pattern() -> re.Pattern[str]:
    places = sorted(_zones_by_place(), key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(re.escape(place) for place in places) + r")\b", re.IGNORECASE)


def _folded(text: str) -> str:
    """``text`` without accents, letter for letter ("São Paulo" is "Sao Paulo" at the same
    positions), so places match however they are written."""
    return "".join(
        next((c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)), ch)
        for ch in text
    )


def zone_mentions(text: str) -> list[ZoneMention]:
    """Every zone the text names, in the order it names them."""
    written, text = text, _folded(text)
    # Typed all in lower case ("current time hawaii"), a place needs no capital.
    lower_case = text == text.lower()
    # The names are read once (_zone_names): listing them walks the whole zoneinfo tree, which
    # took a quarter of the planner's time when done for every request.
    known = _zone_names()
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
        if not (match.group(0)[0].isupper() or before_time or lower_case) or any(
            a <= match.start() < b for a, b in taken
        ):
            continue
        # The words as written (with their accents): what the operator can be shown as evidence.
        place = written[match.start() : match.end()]
        found.append(ZoneMention(_zones_by_place()[match.group(0).lower()], place, match.start()))
    return sorted(found, key=lambda mention: mention.start)
