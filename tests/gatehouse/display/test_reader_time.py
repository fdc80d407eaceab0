"""Times as the reader sees them: the zone their browser reports (UTC when it reports none or one
that is not a zone), and the time in it, readable or whole for a table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from gatehouse.display.reader_time import readable_time, table_time, zone_named

BERLIN_WINTER = timezone(timedelta(hours=1), "CET")
NOW = datetime(2025, 3, 12, 16, 0, tzinfo=UTC)
DECIDED = "2025-03-12T13:33:07.123456+00:00"


def test_the_zone_is_the_one_the_browser_names() -> None:
    assert zone_named("Asia/Kolkata") == ZoneInfo("Asia/Kolkata")
    assert readable_time(DECIDED, zone=zone_named("Asia/Kolkata"), now=NOW) == "19:03 IST"
    assert readable_time(DECIDED, zone=zone_named("America/New_York"), now=NOW) == "09:33 EDT"


@pytest.mark.parametrize(
    "name",
    [
        None,  # the browser sent no zone (AppTest, a client without Intl)
        "",
        "Mars/Olympus_Mons",  # not in the zone database
        "Europe/Berlin ",
        "Europe",  # a folder of zones, not a zone
        "../../etc/passwd",  # a path, sent by a client that is not a browser
        "x" * 300,  # too long for a file name
        "a\x00b",
    ],
)
def test_without_a_zone_the_browser_names_times_are_utc_and_say_so(name: str | None) -> None:
    assert zone_named(name) is UTC
    assert readable_time(DECIDED, zone=zone_named(name), now=NOW) == "13:33 UTC"


def test_a_time_today_is_the_clock_in_the_readers_zone_without_seconds() -> None:
    assert readable_time(DECIDED, zone=BERLIN_WINTER, now=NOW) == "14:33 CET"


def test_an_older_time_says_the_day_and_the_year_when_it_is_another_year() -> None:
    assert readable_time("2025-03-10T13:33:07+00:00", zone=UTC, now=NOW) == "10 Mar, 13:33 UTC"
    assert readable_time("2024-12-31T23:30:00+00:00", zone=UTC, now=NOW) == "31 Dec 2024, 23:30 UTC"
    # Past midnight in the reader's zone is another day there.
    assert readable_time("2025-03-11T23:30:00+00:00", zone=BERLIN_WINTER, now=NOW) == "00:30 CET"


def test_a_time_that_is_not_a_time_is_shown_as_it_is() -> None:
    assert readable_time("yesterday-ish", zone=UTC, now=NOW) == "yesterday-ish"
    assert table_time("yesterday-ish", UTC) == "yesterday-ish"


def test_a_table_shows_the_whole_date_in_the_readers_zone_to_the_minute() -> None:
    assert table_time(DECIDED, BERLIN_WINTER) == "2025-03-12 14:33 CET"
    # Late in the evening in UTC is the next morning in Kolkata: the date is the reader's.
    assert table_time("2025-03-12T22:00:59+00:00", ZoneInfo("Asia/Kolkata")) == "2025-03-13 03:30 IST"
    assert table_time(None, UTC) == "" and table_time("", UTC) == ""
