"""Times on the pages are in the reader's time zone, as their browser reports it (AppTest sends
it as ``st.context.timezone``), and in UTC, named, when the browser reports none it knows."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from streamlit.testing.v1 import AppTest

from gatehouse.web.literal import markdown_literal
from gatehouse.web.page import services
from tests.app.test_app import EMAIL, app_env, ask, button, markdown_text, on_page, session

# The bundled servers run in this process (tests/in_process_servers.py): in `make quick`.
pytestmark = pytest.mark.usefixtures("bundled_in_process")

__all__ = ["app_env"]  # the fixture, imported so pytest finds it here


def in_zone(app: AppTest, zone: str | None) -> AppTest:
    """The session from now on in a browser that reports ``zone`` (None: no zone at all)."""
    app.context = {"timezone": zone}
    app.run()
    assert not app.exception, app.exception
    return app


def clock(at: str, zone: str) -> str:
    """``19:03 IST``: a time of today as the pages say it."""
    return datetime.fromisoformat(at).astimezone(ZoneInfo(zone)).strftime("%H:%M %Z")


def whole(at: str, zone: str) -> str:
    """``2026-11-24 04:13 IST``: a time as the pages' tables show it, the date the reader's."""
    return datetime.fromisoformat(at).astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z")


def warnings(app: AppTest) -> str:
    return "\n".join(warning.value for warning in app.warning)


def captions(app: AppTest) -> str:
    return "\n".join(caption.value for caption in app.caption)


def test_the_reviews_page_and_the_chat_show_times_in_the_browsers_zone(app_env: Path) -> None:
    operator = in_zone(session(), "Asia/Kolkata")
    ask(operator, EMAIL)
    review_id = services().ledger.queue("pending")[0].id
    stale = in_zone(on_page(session("reviewer"), "review_queue"), "Asia/Kolkata")
    created = services().ledger.require(review_id).created_at
    # "Asked by operator at ...": literal, like every text the caption holds.
    assert f"{markdown_literal(clock(created, 'Asia/Kolkata'))} · " in captions(stale)
    assert stale.dataframe[0].value["waiting since"].tolist() == [whole(created, "Asia/Kolkata")]

    winner = on_page(session("reviewer2"), "review_queue")
    button(winner, "Approve").click().run()
    stale.button(key=f"approve-{review_id}").click().run()  # refused: decided meanwhile

    decided_at = services().ledger.require(review_id).decided_at
    assert decided_at is not None
    ist = clock(decided_at, "Asia/Kolkata")
    assert markdown_literal(f"{ist} (executed)") in warnings(stale)  # "was decided by reviewer2 at ..."
    assert stale.dataframe[0].value["decided at"].tolist() == [whole(decided_at, "Asia/Kolkata")]
    operator.run()
    assert markdown_literal(f"Approved by reviewer2 at {ist}") in markdown_text(operator)


def test_without_a_zone_the_browser_names_the_reviews_page_shows_utc_and_says_so(app_env: Path) -> None:
    ask(session(), EMAIL)
    review_id = services().ledger.queue("pending")[0].id
    created = services().ledger.require(review_id).created_at
    for zone in (None, "Europe", "Mars/Olympus_Mons"):  # none; a folder of zones; no such zone
        reviewer = in_zone(on_page(session("reviewer"), "review_queue"), zone)
        assert f"{markdown_literal(clock(created, 'UTC'))} · " in captions(reviewer)
        assert reviewer.dataframe[0].value["waiting since"].tolist() == [whole(created, "UTC")]
