"""Times as the person reading them sees them: in their own time zone, named, to the minute.

Gatehouse stores times as ISO strings in UTC. The pages show them in the zone the reader's
browser reports (gatehouse/web/page.py's ``reader_zone`` reads it there; this module has no
Streamlit in it); the command line, run on the reader's own machine, shows its local time.
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def zone_named(name: str | None) -> tzinfo:
    """The zone a browser reported by its IANA name (``Europe/Berlin``); UTC when it reported
    none or a name this machine does not know as a zone. UTC rather than the server's own zone:
    that says nothing about the reader, and a time labelled UTC is still a right time."""
    if not name:
        return UTC
    try:
        return ZoneInfo(name)
    # The name comes from the browser: a path (ValueError), a folder of zones such as "Europe"
    # (IsADirectoryError) or a name too long for a file (OSError) must not break the page.
    except (ValueError, ZoneInfoNotFoundError, OSError):
        return UTC


def _moment(at: str) -> datetime | None:
    try:
        return datetime.fromisoformat(at)
    except ValueError:
        return None


def _clock(local: datetime) -> str:
    name = local.strftime("%Z")
    return f"{local:%H:%M} {name}" if name else f"{local:%H:%M}"


def readable_time(at: str, *, zone: tzinfo | None = None, now: datetime | None = None) -> str:
    """``14:33 CET`` today, ``12 Mar, 14:33 CET`` this year, ``12 Mar 2024, 14:33 CET`` before;
    in ``zone`` (the browser's), else this machine's local time."""
    moment = _moment(at)
    if moment is None:
        return at  # not a time we wrote: shown as it is
    local = moment.astimezone(zone)
    today = (now or datetime.now(local.tzinfo)).astimezone(local.tzinfo).date()
    clock = _clock(local)
    if local.date() == today:
        return clock
    day = f"{local.day} {local.strftime('%b')}"
    if local.year != today.year:
        day = f"{day} {local.year}"
    return f"{day}, {clock}"


def table_time(at: str | None, zone: tzinfo) -> str:
    """``2026-03-12 14:33 CET`` in ``zone``, for a table column: every row carries its whole date,
    so a column reads (and sorts) the same whatever day it is; "" for no time."""
    if not at:
        return ""
    moment = _moment(at)
    if moment is None:
        return at
    local = moment.astimezone(zone)
    return f"{local:%Y-%m-%d} {_clock(local)}"
