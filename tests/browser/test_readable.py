"""The review page reads well in a real browser: every flag reason is on the page in full
(wrapped, not cut off in a table cell), a long diff line wraps, nothing leaves an empty gap
between the flags and the preview, and a write to a file that does not exist yet is
previewed as a new file, not as the read tool's error."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.browser.harness import AppServer, OpenApp, no_exception, reviewer_on_reviews, send_chat

LONG_LINE = "a long line of fresh notes " * 12
# Streamlit puts 1rem (16 px) between elements; anything much more is a hole in the page.
LARGEST_GAP_PX = 40


def pending_flags(data: Path) -> list[dict[str, str]]:
    """The flags of the one pending review, as the ledger holds them."""
    with sqlite3.connect(f"file:{data / 'gatehouse.db'}?mode=ro", uri=True) as db:
        [(flags,)] = db.execute("SELECT flags FROM reviews WHERE status = 'pending'").fetchall()
    loaded: list[dict[str, str]] = json.loads(flags)
    return loaded


def fits(element: Locator) -> bool:
    """Nothing of the element's content is cut off or scrolled out of sight sideways."""
    return bool(element.evaluate("e => e.scrollWidth <= e.clientWidth + 1"))


def gap_above(page: Page, element: Locator) -> float:
    """The empty space between ``element`` and the nearest element above it in its column."""
    return float(
        element.evaluate(
            """target => {
                const box = target.getBoundingClientRect();
                let bottom = -Infinity;
                for (const other of document.querySelectorAll('[data-testid="stMain"] [data-testid="stElementContainer"]')) {
                    if (other.contains(target)) continue;
                    const r = other.getBoundingClientRect();
                    if (r.height === 0 || r.width === 0) continue;
                    const overlaps = r.left < box.right && r.right > box.left;
                    if (overlaps && r.bottom <= box.top + 1) bottom = Math.max(bottom, r.bottom);
                }
                return box.top - bottom;
            }"""
        )
    )


def test_a_new_file_review_reads_in_full_without_gaps(app_server: AppServer, open_app: OpenApp) -> None:
    operator = open_app()
    send_chat(operator, f'Write "{LONG_LINE}" to the file fresh/new-notes.md')
    reviewer = reviewer_on_reviews(open_app, height=2200)
    main = reviewer.get_by_test_id("stMain")
    no_exception(reviewer)

    # 1. Every reason, word for word, on the page and not cut off.
    flags = pending_flags(app_server.data)
    assert flags
    for flag in flags:
        reason = main.get_by_test_id("stMarkdown").filter(has_text=flag["message"])
        expect(reason).to_have_count(1)
        expect(reason).to_be_visible()
        assert fits(reason), flag["message"]

    # 4. A new file, all added; not the read tool's "no such file".
    expect(main.get_by_text("New file: it does not exist yet", exact=False)).to_be_visible()
    expect(main.get_by_text("no such file", exact=False)).to_have_count(0)

    # 2. The long line wraps inside the diff.
    diff = main.get_by_test_id("stCode").filter(has_text="+++ b/fresh/new-notes.md").locator("pre")
    expect(diff).to_be_visible()
    assert fits(diff)

    # 3. The preview follows what is above it without a hole.
    heading = main.get_by_test_id("stMarkdown").filter(has_text="Preview: ")
    expect(heading).to_be_visible()
    assert gap_above(reviewer, heading) <= LARGEST_GAP_PX
