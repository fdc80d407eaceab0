"""The chat page's "What you can ask": the capability catalogue (gatehouse/display/catalogue.py) of the
listing the graph plans from, by server, each capability in plain words with a request to try.

Names, descriptions and examples are the servers' and the admin's words: shown literally
(gatehouse/web/literal.py), with the secrets the policy names hidden, as every answer is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from gatehouse.display.catalogue import catalogue_data, catalogue_of
from gatehouse.web.literal import markdown_literal, name_literal

if TYPE_CHECKING:
    from gatehouse.wiring import Services

LABEL = "What you can ask"
# A server with thousands of capabilities would bury the page: the first ones are shown, and
# `gatehouse capabilities` prints them all.
SHOWN_PER_SERVER = 40


def _entry(entry: dict[str, Any]) -> None:
    st.markdown(
        f"{name_literal(entry['name'])} · {markdown_literal(entry['kind'])}: {markdown_literal(entry['does'])}"
    )
    aliases = f" · also called {markdown_literal(', '.join(entry['aliases']))}" if entry["aliases"] else ""
    st.caption(f"Try: {markdown_literal(entry['example'])}{aliases}")


def show_catalogue(app: Services, *, expanded: bool) -> None:
    """One section, open on an empty thread, listing what every server offers now."""
    # The host's discovery, as a request's (cached by the pool: no round trip once listed).
    data = app.secrets.value(catalogue_data(catalogue_of(app.requests.offered())))
    with st.expander(LABEL, expanded=expanded, icon=":material/menu_book:"):
        if not data["servers"]:
            st.caption("No servers are configured.")
        st.caption(
            "Every capability the configured servers offer now, with a request to try. Ask in your own "
            "words; where a value is needed, the answer asks for it."
        )
        for server in data["servers"]:
            st.markdown(f"**{name_literal(server['name'])}**")
            if server["problem"]:
                st.caption(f"Not available now: {markdown_literal(server['problem'])}")
                continue
            entries = server["entries"]
            if not entries:
                st.caption("Offers nothing at the moment.")
            for entry in entries[:SHOWN_PER_SERVER]:
                _entry(entry)
            if len(entries) > SHOWN_PER_SERVER:
                st.caption(
                    f"{len(entries) - SHOWN_PER_SERVER:d} more: `gatehouse capabilities` lists every one."
                )
