"""The Reviews page's notifications section: where review notifications go, what is pending,
what was delivered, and what failed with the receiver's error."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from gatehouse.display.visible_text import visible_in
from gatehouse.notifications.webhook_message import shown_url
from gatehouse.web.literal import markdown_literal

if TYPE_CHECKING:
    from gatehouse.wiring import Services

RECENT = 10


def notification_status(app: Services) -> None:
    """One collapsed section whose label says how delivery stands; the rows inside."""
    if app.outbox is None or app.settings.webhook_url is None:
        with st.expander("Notifications: off"):
            st.caption(
                "No webhook is configured: set GATEHOUSE_WEBHOOK_URL, or `webhook_url` under"
                " `[notifications]` in .streamlit/secrets.toml, to be told when a review waits."
            )
        return
    counts = app.outbox.counts()
    label = f"Notifications: {counts['pending']:d} pending, {counts['failed']:d} failed"
    failing = counts["failed"] > 0
    # Keyed by whether anything failed, not by the label: an expander's identity otherwise comes
    # from its label, so each change of a count drew a new, closed section under the reviewer
    # reading it. A first failure still opens it (a new key, drawn expanded).
    with st.expander(label, expanded=failing, key=f"notifications-{'failing' if failing else 'ok'}"):
        st.caption(
            f"Posted to {markdown_literal(shown_url(app.settings.webhook_url))} ({counts['delivered']:d} delivered);"
            " a failed attempt is retried with a doubling pause, then given up."
        )
        rows = app.outbox.recent(limit=RECENT)
        if not rows:
            st.caption("Nothing sent yet.")
            return
        # The receiver's error is its own words: shown visibly, like everything in the table.
        st.dataframe(
            visible_in(
                [
                    {
                        "event": row.event,
                        "review": row.review_id,
                        "status": row.status,
                        "attempts": row.attempts,
                        "added": row.created_at,
                        "delivered": row.delivered_at or "",
                        "receiver's error": app.secrets.text(row.last_error or ""),
                    }
                    for row in rows
                ]
            ),
            hide_index=True,
        )
